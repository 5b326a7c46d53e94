// Connecting, host-key trust and authentication (libssh 0.10). Passwords are never tried: the
// launcher runs unattended, and a stored password would be a secret in a project file.
#include "runtime/launcher/ssh_session.h"

#include "core/io/files.h"
#include "core/io/hosts_json.h"
#include "runtime/launcher/host_key.h"
#include "runtime/launcher/remote_command.h"

#include <cstdlib>
#include <libssh/libssh.h>

namespace hetplan {

namespace {

Status setOptions(ssh_session s, const SshTarget &t, const std::string &destination)
{
    const long timeoutS = t.timeoutS;
    const unsigned int port = unsigned(t.port);
    // ~/.ssh/config is not read: the hosts file is the whole description of a destination,
    // so a launch behaves the same for every user of the same files.
    const int processConfig = 0;
    bool ok = ssh_options_set(s, SSH_OPTIONS_HOST, t.host.c_str()) == SSH_OK
              && ssh_options_set(s, SSH_OPTIONS_PORT, &port) == SSH_OK
              && ssh_options_set(s, SSH_OPTIONS_TIMEOUT, &timeoutS) == SSH_OK
              && ssh_options_set(s, SSH_OPTIONS_PROCESS_CONFIG, &processConfig) == SSH_OK;
    if (ok && !t.user.empty())
        ok = ssh_options_set(s, SSH_OPTIONS_USER, t.user.c_str()) == SSH_OK;
    if (!ok)
        return sshError(s, destination, "setting the connection options",
                        "check the host name, port and user in the hosts file");
    return okStatus();
}

Status authenticateByKey(ssh_session s, const SshTarget &t, const std::string &destination)
{
    const std::string path = expandHome(t.identityFile);
    // libssh opens it blocking: a FIFO there would hang the launch (preflight checked it too,
    // but the file may have changed since).
    if (Status readable = checkReadableFile(path); !readable)
        return Error{ErrorKind::BadInput,
                     destination + ": identity file " + readable.error().message};
    ssh_key key = nullptr;
    if (ssh_pki_import_privkey_file(path.c_str(), nullptr, nullptr, nullptr, &key) != SSH_OK)
        return Error{ErrorKind::BadInput,
                     destination + ": reading the identity file " + path
                         + " failed: it is missing, not a private key, or protected by a "
                           "passphrase; for a key with a passphrase load it into ssh-agent "
                           "(ssh-add) and leave \"identity\" out of the hosts file"};
    const int rc = ssh_userauth_publickey(s, nullptr, key);
    ssh_key_free(key);
    if (rc == SSH_AUTH_SUCCESS)
        return okStatus();
    if (rc == SSH_AUTH_ERROR)
        return sshError(s, destination, "authenticating with " + path);
    return Error{ErrorKind::BadInput,
                 destination + ": the server refused the key " + path + ": add its public half ("
                     + path + ".pub) to ~/.ssh/authorized_keys of "
                     + (t.user.empty() ? std::string("the user") : t.user) + " on " + t.host
                     + ", or name another key as \"identity\""};
}

Status authenticateByAgent(ssh_session s, const SshTarget &t, const std::string &destination)
{
    if (std::getenv("SSH_AUTH_SOCK") == nullptr)
        return Error{ErrorKind::BadInput,
                     destination
                         + ": no \"identity\" is given and no SSH agent runs "
                           "(SSH_AUTH_SOCK is not set): start ssh-agent and ssh-add a "
                           "key, or name a key file as \"identity\" in the hosts file"};
    const int rc = ssh_userauth_agent(s, nullptr);
    if (rc == SSH_AUTH_SUCCESS)
        return okStatus();
    if (rc == SSH_AUTH_ERROR)
        return sshError(s, destination, "authenticating with the SSH agent");
    return Error{ErrorKind::BadInput,
                 destination
                     + ": the server refused every key of the SSH agent: add one's "
                       "public half to ~/.ssh/authorized_keys of "
                     + (t.user.empty() ? std::string("the user") : t.user) + " on " + t.host
                     + ", or name a key file as \"identity\""};
}

} // namespace

std::string destinationOf(const SshTarget &t)
{
    return sshDestination(t.user, t.host, t.port);
}

SshTarget sshTarget(const HostEntry &entry, int timeoutS)
{
    return {entry.host, entry.port, entry.user, entry.identity, timeoutS};
}

Error sshError(ssh_session_struct *session, const std::string &destination, const std::string &step,
               const std::string &advice)
{
    std::string message = destination + ": " + step + " failed";
    const char *why = session ? ssh_get_error(session) : nullptr;
    if (why != nullptr && *why != '\0')
        message += ": " + std::string(why);
    if (!advice.empty())
        message += "; " + advice;
    return Error{ErrorKind::Internal, std::move(message)};
}

SshSession::SshSession(ssh_session_struct *session, SshTarget target)
    : m_session(session)
    , m_target(std::move(target))
    , m_destination(destinationOf(m_target))
{}

SshSession::~SshSession()
{
    ssh_disconnect(m_session);
    ssh_free(m_session);
}

Result<std::unique_ptr<SshSession>>
SshSession::connect(const SshTarget &target, const HostKeyTrust &trust, HostKeyInfo *hostKey)
{
    ssh_session raw = ssh_new();
    if (raw == nullptr)
        return Error{ErrorKind::Internal, destinationOf(target) + ": libssh could not start"};
    // Owned from here on, so every early return below disconnects and frees it.
    std::unique_ptr<SshSession> session(new SshSession(raw, target));
    const std::string &destination = session->destination();
    if (Status s = setOptions(raw, target, destination); !s)
        return s.error();
    if (Status s = prepareHostKeyCheck(raw, destination, trust); !s)
        return s.error();
    if (ssh_connect(raw) != SSH_OK)
        return sshError(raw, destination, "connecting",
                        "check that the host is up, that sshd listens on port "
                            + std::to_string(target.port) + " and that no firewall blocks it");
    if (Status s = checkHostKey(raw, destination, trust, hostKey); !s)
        return s.error();
    Status auth = target.identityFile.empty() ? authenticateByAgent(raw, target, destination)
                                              : authenticateByKey(raw, target, destination);
    if (!auth)
        return auth.error();
    return session;
}

Result<std::unique_ptr<RemoteCommand>> SshSession::start(const std::string &command)
{
    ssh_channel channel = ssh_channel_new(m_session);
    if (channel == nullptr)
        return sshError(m_session, m_destination, "opening a channel");
    if (ssh_channel_open_session(channel) != SSH_OK) {
        Error e = sshError(m_session, m_destination, "opening a channel");
        ssh_channel_free(channel);
        return e;
    }
    if (ssh_channel_request_exec(channel, command.c_str()) != SSH_OK) {
        Error e = sshError(m_session, m_destination, "starting `" + command + "`");
        ssh_channel_close(channel);
        ssh_channel_free(channel);
        return e;
    }
    return std::make_unique<RemoteCommand>(channel, m_destination, command);
}

} // namespace hetplan
