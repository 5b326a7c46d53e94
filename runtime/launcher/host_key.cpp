// Host keys as OpenSSH decides them (ssh(1), "VERIFYING HOST KEYS"; docs/launcher.md#host-keys):
// recorded → go on; revoked or another key recorded → refused, always; a line for the host that
// cannot be read → refused, naming it; not recorded at all → only with the person's consent,
// then recorded. The files are read here (known_hosts.h), never by libssh.
#include "runtime/launcher/host_key.h"

#include "core/io/files.h"
#include "runtime/launcher/known_hosts.h"

#include <algorithm>
#include <cerrno>
#include <libssh/libssh.h>
#include <memory>
#include <sys/stat.h>
#include <vector>

namespace hetplan {

namespace {

struct KeyFree
{
    void operator()(ssh_key key) const { ssh_key_free(key); }
};
using KeyPtr = std::unique_ptr<ssh_key_struct, KeyFree>;

// The host's key as messages show it ("SHA256:…", as `ssh-keygen -l` prints it) and as
// known-hosts lines hold it (base64).
struct ServerKey
{
    HostKeyInfo info;
    std::string base64;
};

Result<ServerKey> serverKey(ssh_session s, const std::string &destination)
{
    ssh_key raw = nullptr;
    if (ssh_get_server_publickey(s, &raw) != SSH_OK)
        return sshError(s, destination, "reading the server's host key");
    KeyPtr key(raw);
    unsigned char *hash = nullptr;
    size_t hashBytes = 0;
    if (ssh_get_publickey_hash(key.get(), SSH_PUBLICKEY_HASH_SHA256, &hash, &hashBytes) != 0)
        return sshError(s, destination, "hashing the server's host key");
    char *text = ssh_get_fingerprint_hash(SSH_PUBLICKEY_HASH_SHA256, hash, hashBytes);
    ssh_clean_pubkey_hash(&hash);
    char *base64 = nullptr;
    if (text == nullptr || ssh_pki_export_pubkey_base64(key.get(), &base64) != SSH_OK) {
        ssh_string_free_char(text);
        return sshError(s, destination, "hashing the server's host key");
    }
    ServerKey server;
    server.info.fingerprint = text;
    server.base64 = base64;
    ssh_string_free_char(text);
    ssh_string_free_char(base64);
    const char *type = ssh_key_type_to_char(ssh_key_type(key.get()));
    server.info.keyType = type ? type : "unknown";
    return server;
}

// Where the session connects, as set in its options.
struct HostAndPort
{
    std::string host;
    int port = 22;
};

HostAndPort hostAndPort(ssh_session s)
{
    unsigned int port = 22;
    ssh_options_get_port(s, &port);
    char *host = nullptr;
    ssh_options_get(s, SSH_OPTIONS_HOST, &host);
    HostAndPort where{host ? host : "HOST", int(port)};
    ssh_string_free_char(host);
    return where;
}

std::string userFile(const HostKeyTrust &trust)
{
    return trust.knownHostsFile.empty() ? expandHome("~/.ssh/known_hosts") : trust.knownHostsFile;
}

// The file as messages name it.
std::string userFileName(const HostKeyTrust &trust)
{
    return trust.knownHostsFile.empty() ? std::string("~/.ssh/known_hosts") : trust.knownHostsFile;
}

// A line of one of the files, and which file.
struct RecordedLine
{
    std::string file;
    KnownHostsLine line;
};

// The lines of the user's and the global file that name `name`.
Result<std::vector<RecordedLine>> recordedLines(const HostKeyTrust &trust, const std::string &name)
{
    std::vector<RecordedLine> lines;
    for (const std::string &file : {userFile(trust), trust.globalKnownHostsFile}) {
        if (file.empty())
            continue;
        Result<std::string> text = readKnownHostsFile(file);
        if (!text)
            return text.error();
        for (KnownHostsLine &line : knownHostsLinesFor(*text, name))
            lines.push_back({file, std::move(line)});
    }
    return lines;
}

std::string where(const RecordedLine &recorded)
{
    return recorded.file + " line " + std::to_string(recorded.line.lineNumber);
}

// ssh(1) asks a host first for the key types it has recorded for it, so that a host with
// several keys offers the recorded one. The algorithms libssh 0.10 offers by default.
constexpr std::string_view kDefaultHostKeyAlgorithms
    = "ssh-ed25519,ecdsa-sha2-nistp521,ecdsa-sha2-nistp384,ecdsa-sha2-nistp256,rsa-sha2-512,"
      "rsa-sha2-256";

std::string hostKeyAlgorithms(const std::vector<RecordedLine> &lines)
{
    std::vector<std::string> order;
    const auto add = [&order](std::string_view list) {
        std::size_t pos = 0;
        while (pos < list.size()) {
            std::size_t end = std::min(list.find(',', pos), list.size());
            std::string algorithm(list.substr(pos, end - pos));
            if (std::find(order.begin(), order.end(), algorithm) == order.end())
                order.push_back(std::move(algorithm));
            pos = end + 1;
        }
    };
    for (const RecordedLine &recorded : lines) {
        const KnownHostsLine &line = recorded.line;
        if (line.marker != KnownHostsMarker::None || !line.problem.empty())
            continue;
        if (line.keyType == "ssh-rsa" || line.keyType.rfind("rsa-sha2-", 0) == 0)
            add("rsa-sha2-512,rsa-sha2-256");
        else if (kDefaultHostKeyAlgorithms.find(line.keyType) != std::string_view::npos)
            add(line.keyType);
    }
    add(kDefaultHostKeyAlgorithms);
    std::string joined;
    for (const std::string &algorithm : order)
        joined += (joined.empty() ? "" : ",") + algorithm;
    return joined;
}

// How a person removes a recorded key that is wrong (after checking with the host's owner).
std::string removeAdvice(const std::string &name, const HostKeyTrust &trust)
{
    return "ssh-keygen -R " + shellQuote(name) + " -f " + shellQuote(userFileName(trust));
}

Status recordKey(const HostKeyTrust &trust, const std::string &name, const ServerKey &key)
{
    const std::string file = userFile(trust);
    // As ssh(1): the default file's folder ~/.ssh is created when missing, private.
    if (trust.knownHostsFile.empty()) {
        const std::string folder = file.substr(0, file.rfind('/'));
        if (::mkdir(folder.c_str(), 0700) != 0 && errno != EEXIST)
            return badInput("cannot create " + folder + " for the known-hosts file");
    }
    return appendKnownHostsLine(file, name + " " + key.info.keyType + " " + key.base64);
}

} // namespace

Status prepareHostKeyCheck(ssh_session_struct *session, const std::string &destination,
                           const HostKeyTrust &trust)
{
    const HostAndPort target = hostAndPort(session);
    Result<std::vector<RecordedLine>> lines
        = recordedLines(trust, knownHostsName(target.host, target.port));
    if (!lines)
        return Error{lines.error().kind, destination + ": " + lines.error().message};
    const std::string algorithms = hostKeyAlgorithms(*lines);
    const char *none = "/dev/null";
    if (ssh_options_set(session, SSH_OPTIONS_HOSTKEYS, algorithms.c_str()) != SSH_OK
        || ssh_options_set(session, SSH_OPTIONS_KNOWNHOSTS, none) != SSH_OK
        || ssh_options_set(session, SSH_OPTIONS_GLOBAL_KNOWNHOSTS, none) != SSH_OK)
        return sshError(session, destination, "setting the host key algorithms");
    return okStatus();
}

Status checkHostKey(ssh_session_struct *session, const std::string &destination,
                    const HostKeyTrust &trust, HostKeyInfo *info)
{
    Result<ServerKey> key = serverKey(session, destination);
    if (!key)
        return key.error();
    if (info != nullptr)
        *info = key->info;
    const auto decided = [info](HostKeyState state) {
        if (info != nullptr)
            info->state = state;
    };
    const HostAndPort target = hostAndPort(session);
    const std::string name = knownHostsName(target.host, target.port);
    Result<std::vector<RecordedLine>> found = recordedLines(trust, name);
    // ssh(1) also trusts a key recorded for the host without its port (and so do we); a
    // revocation recorded there counts too (ssh(1) only warns).
    Result<std::vector<RecordedLine>> portless
        = target.port == 22 ? std::vector<RecordedLine>()
                            : recordedLines(trust, knownHostsName(target.host, 22));
    if (!found || !portless) {
        decided(HostKeyState::Invalid);
        const Error &e = found ? portless.error() : found.error();
        return Error{e.kind, destination + ": " + e.message};
    }
    const std::string offered = key->info.keyType + " key " + key->info.fingerprint;
    const auto holdsKey = [&key](const RecordedLine &r) {
        return r.line.problem.empty() && r.line.keyBase64 == key->base64;
    };
    for (const std::vector<RecordedLine> *lines : {&*found, &*portless})
        for (const RecordedLine &recorded : *lines)
            if (recorded.line.marker == KnownHostsMarker::Revoked && holdsKey(recorded)) {
                decided(HostKeyState::Revoked);
                return badInput(destination + ": WARNING: REVOKED HOST KEY. The host offers the "
                                + offered + ", which " + where(recorded)
                                + " marks as revoked: it may be a stolen key used to "
                                  "impersonate the host. Not connecting; ask the host's "
                                  "administrator.");
            }
    const RecordedLine *other = nullptr;
    const RecordedLine *broken = nullptr;
    bool sameType = false;
    for (const RecordedLine &recorded : *found) {
        if (!recorded.line.problem.empty()) {
            broken = broken ? broken : &recorded;
            continue;
        }
        if (recorded.line.marker != KnownHostsMarker::None)
            continue;
        if (holdsKey(recorded)) {
            decided(HostKeyState::Known);
            return okStatus();
        }
        other = other ? other : &recorded;
        sameType = sameType || recorded.line.keyType == key->info.keyType;
    }
    if (other != nullptr) {
        decided(sameType ? HostKeyState::Changed : HostKeyState::OtherType);
        return badInput(destination + ": WARNING: THE HOST KEY HAS CHANGED. The host offers the "
                        + offered + ", which is not the key recorded for it in " + where(*other)
                        + ". Someone could be intercepting the connection (a man-in-the-middle "
                          "attack), or the host was reinstalled. Not connecting. Ask the "
                          "host's administrator for its real key; only if this change is "
                          "expected, remove the old entry with `"
                        + removeAdvice(name, trust) + "` and connect again.");
    }
    if (broken != nullptr) {
        decided(HostKeyState::Invalid);
        return badInput(destination + ": " + where(*broken) + " is about this host (" + name
                        + ") but cannot be read: " + broken->line.problem
                        + ". Not connecting, and not recording the offered " + offered
                        + " beside it: correct or delete that line (check the key with the "
                          "host's administrator) and connect again.");
    }
    if (std::any_of(portless->begin(), portless->end(), [&](const RecordedLine &r) {
            return r.line.marker == KnownHostsMarker::None && holdsKey(r);
        })) {
        decided(HostKeyState::Known);
        return okStatus();
    }
    decided(HostKeyState::Unknown);
    const bool confirmed
        = trust.acceptAnyNewKey || trust.confirmedFingerprint == key->info.fingerprint;
    if (!confirmed)
        return badInput(destination + ": the host's " + offered + " is not in "
                        + userFileName(trust)
                        + ". Check the fingerprint with the host's administrator (on the host: "
                          "ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub) and confirm it to accept "
                          "the key (hetplan-cli: --accept-new-host-keys).");
    if (Status recorded = recordKey(trust, name, *key); !recorded)
        return Error{recorded.error().kind, destination + ": " + recorded.error().message};
    return okStatus();
}

} // namespace hetplan
