#pragma once

#include "core/base/result.h"
#include "core/base/shell_quote.h"

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

struct ssh_session_struct;
struct sftp_session_struct;

namespace hetplan {

class RemoteCommand;
struct HostEntry;

// Where to connect: one entry of a hosts file (core/io/hosts_json.h) as the launcher needs it.
struct SshTarget
{
    std::string host;
    int port = 22;
    std::string user;         // empty: the local user name, as ssh does
    std::string identityFile; // private key file ("~/" is the local home); empty: the SSH agent
    int timeoutS = 10;        // bounds connecting and every later wait for the server
};

// The destination of one hosts-file entry (core/io/hosts_json.h).
SshTarget sshTarget(const HostEntry &entry, int timeoutS = 10);
// "user@host:port" ("host:port" without a user), as messages name a destination.
std::string destinationOf(const SshTarget &target);

// How host keys are trusted, as OpenSSH does it: a key recorded in the known-hosts file lets
// the connection go on; a key not recorded is accepted (and appended to the file) only when a
// person confirmed it; a key that differs from the recorded one is always refused.
struct HostKeyTrust
{
    std::string knownHostsFile; // empty: ~/.ssh/known_hosts
    // The fingerprint ("SHA256:…") a person was shown and confirmed: accepted only if the
    // server still offers that very key.
    std::string confirmedFingerprint;
    bool acceptAnyNewKey = false; // `--accept-new-host-keys`: the person confirmed in advance
    // Read too, never written (ssh(1)'s GlobalKnownHostsFile); empty: none.
    std::string globalKnownHostsFile = "/etc/ssh/ssh_known_hosts";
};

enum class HostKeyState {
    Known,     // recorded in the file: go on
    Unknown,   // not recorded: ask the person (the fingerprint below)
    Changed,   // a different key is recorded: refused, never accepted
    OtherType, // only keys of other types are recorded: refused, as OpenSSH does
    Revoked,   // an @revoked line names this key: refused, always
    Invalid,   // a known-hosts file, or a line of it for this host, cannot be read: refused
};

// The server's key as it was checked, for showing to a person.
struct HostKeyInfo
{
    HostKeyState state = HostKeyState::Unknown;
    std::string fingerprint; // "SHA256:<base64>", as `ssh-keygen -l` prints it
    std::string keyType;     // "ssh-ed25519"
};

// One authenticated SSH connection (libssh). Not thread-safe: libssh allows one session and
// its channels in one thread at a time, so each host gets its own session and thread. Every
// failure names the host, the step and what to do.
class SshSession
{
public:
    // Connects, checks the host key and authenticates by the identity file or the agent
    // (never a password). When the host key was seen, `*hostKey` (if given) describes it, also
    // on failure: an Unknown key's Error carries its fingerprint in the message and there.
    static Result<std::unique_ptr<SshSession>>
    connect(const SshTarget &target, const HostKeyTrust &trust, HostKeyInfo *hostKey = nullptr);
    ~SshSession();
    SshSession(const SshSession &) = delete;
    SshSession &operator=(const SshSession &) = delete;

    // Starts `command` (run by the remote user's shell) on a new channel; its output is read
    // with RemoteCommand::poll. The command must not outlive this session.
    Result<std::unique_ptr<RemoteCommand>> start(const std::string &command);

    // Writes `content` to `remotePath` atomically: to a temporary name beside it first, then
    // renamed over it, so a reader on the host sees the old file or the whole new one.
    Status upload(const std::string &content, const std::string &remotePath, int mode = 0644);
    // Several files (remote path, content) the same way, on one SFTP session.
    Status upload(const std::vector<std::pair<std::string, std::string>> &files, int mode = 0644);
    // Reads the whole of `remotePath` by SFTP (a result file a rank wrote); at most `maxBytes`.
    Result<std::string> download(const std::string &remotePath,
                                 std::size_t maxBytes = std::size_t(64) << 20);

    // "user@host:port", for messages.
    const std::string &destination() const { return m_destination; }
    const SshTarget &target() const { return m_target; }
    ssh_session_struct *handle() const { return m_session; }

private:
    SshSession(ssh_session_struct *session, SshTarget target);
    Status uploadOne(sftp_session_struct *sftp, const std::string &content,
                     const std::string &remotePath, int mode);

    ssh_session_struct *m_session; // owned
    SshTarget m_target;
    std::string m_destination;
};

// An Error for a failed libssh call: the destination, the step and libssh's own message.
Error sshError(ssh_session_struct *session, const std::string &destination, const std::string &step,
               const std::string &advice = {});
} // namespace hetplan
