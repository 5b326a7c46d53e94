// Host keys as OpenSSH checks them (ssh(1), "VERIFYING HOST KEYS"): recorded → go on;
// not recorded → only with the person's consent, then recorded; different → refused, always.
#include "runtime/launcher/host_key.h"

#include <libssh/libssh.h>
#include <memory>

namespace hetplan {

namespace {

struct KeyFree
{
    void operator()(ssh_key key) const { ssh_key_free(key); }
};

// "SHA256:<base64 without padding>", the form `ssh-keygen -l` and ssh(1) show.
Result<HostKeyInfo> serverKey(ssh_session s, const std::string &destination)
{
    ssh_key raw = nullptr;
    if (ssh_get_server_publickey(s, &raw) != SSH_OK)
        return sshError(s, destination, "reading the server's host key");
    std::unique_ptr<ssh_key_struct, KeyFree> key(raw);
    unsigned char *hash = nullptr;
    size_t hashBytes = 0;
    if (ssh_get_publickey_hash(key.get(), SSH_PUBLICKEY_HASH_SHA256, &hash, &hashBytes) != 0)
        return sshError(s, destination, "hashing the server's host key");
    char *text = ssh_get_fingerprint_hash(SSH_PUBLICKEY_HASH_SHA256, hash, hashBytes);
    ssh_clean_pubkey_hash(&hash);
    if (text == nullptr)
        return sshError(s, destination, "hashing the server's host key");
    HostKeyInfo info;
    info.fingerprint = text;
    ssh_string_free_char(text);
    const char *type = ssh_key_type_to_char(ssh_key_type(key.get()));
    info.keyType = type ? type : "unknown";
    return info;
}

std::string knownHostsName(const HostKeyTrust &trust)
{
    return trust.knownHostsFile.empty() ? std::string("~/.ssh/known_hosts") : trust.knownHostsFile;
}

// How a person removes a recorded key that is wrong (after checking with the host's owner).
std::string removeAdvice(ssh_session s, const HostKeyTrust &trust)
{
    unsigned int port = 22;
    ssh_options_get_port(s, &port);
    char *host = nullptr;
    ssh_options_get(s, SSH_OPTIONS_HOST, &host);
    std::string name = host ? host : "HOST";
    ssh_string_free_char(host);
    if (port != 22)
        name = "[" + name + "]:" + std::to_string(port);
    return "ssh-keygen -R " + shellQuote(name) + " -f " + shellQuote(knownHostsName(trust));
}

} // namespace

Status checkHostKey(ssh_session_struct *session, const std::string &destination,
                    const HostKeyTrust &trust, HostKeyInfo *info)
{
    Result<HostKeyInfo> key = serverKey(session, destination);
    if (!key)
        return key.error();
    HostKeyInfo seen = *key;
    const ssh_known_hosts_e state = ssh_session_is_known_server(session);
    switch (state) {
    case SSH_KNOWN_HOSTS_OK:
        seen.state = HostKeyState::Known;
        break;
    case SSH_KNOWN_HOSTS_CHANGED:
        seen.state = HostKeyState::Changed;
        break;
    case SSH_KNOWN_HOSTS_OTHER:
        seen.state = HostKeyState::OtherType;
        break;
    case SSH_KNOWN_HOSTS_NOT_FOUND: // the file does not exist yet: every key is new
    case SSH_KNOWN_HOSTS_UNKNOWN:
        seen.state = HostKeyState::Unknown;
        break;
    case SSH_KNOWN_HOSTS_ERROR:
        return sshError(session, destination, "reading " + knownHostsName(trust),
                        "check that the known-hosts file is readable and well formed");
    }
    if (info != nullptr)
        *info = seen;
    const std::string offered = seen.keyType + " key " + seen.fingerprint;
    switch (seen.state) {
    case HostKeyState::Known:
        return okStatus();
    case HostKeyState::Changed:
    case HostKeyState::OtherType:
        return Error{ErrorKind::BadInput,
                     destination + ": WARNING: THE HOST KEY HAS CHANGED. The host offers the "
                         + offered + ", which is not the key recorded for it in "
                         + knownHostsName(trust)
                         + ". Someone could be intercepting the connection (a man-in-the-middle "
                           "attack), or the host was reinstalled. Not connecting. Ask the "
                           "host's administrator for its real key; only if this change is "
                           "expected, remove the old entry with `"
                         + removeAdvice(session, trust) + "` and connect again."};
    case HostKeyState::Unknown:
        break;
    }
    const bool confirmed = trust.acceptAnyNewKey || trust.confirmedFingerprint == seen.fingerprint;
    if (!confirmed)
        return Error{ErrorKind::BadInput,
                     destination + ": the host's " + offered + " is not in " + knownHostsName(trust)
                         + ". Check the fingerprint with the host's administrator (on the host: "
                           "ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub) and confirm it to accept "
                           "the key (hetplan-cli: --accept-new-host-keys)."};
    if (ssh_session_update_known_hosts(session) != SSH_OK)
        return sshError(session, destination, "recording the host key in " + knownHostsName(trust),
                        "check that the known-hosts file and its folder are writable");
    return okStatus();
}

} // namespace hetplan
