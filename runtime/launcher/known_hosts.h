#pragma once

// The known-hosts file as OpenSSH reads it (sshd(8), "SSH_KNOWN_HOSTS FILE FORMAT"), without
// libssh: which lines name a host, and what key each holds or why it cannot be read
// (docs/launcher.md#host-keys).

#include "core/base/result.h"

#include <string>
#include <string_view>
#include <vector>

namespace hetplan {

// The name a host is recorded under: the host in lower case, "[host]:port" when the port is not
// 22 (ssh(1) "VERIFYING HOST KEYS").
std::string knownHostsName(const std::string &host, int port);

enum class KnownHostsMarker { None, CertAuthority, Revoked };

// One line whose host field names the host looked up.
struct KnownHostsLine
{
    int lineNumber = 0; // from 1
    KnownHostsMarker marker = KnownHostsMarker::None;
    std::string keyType;   // as written: "ssh-ed25519"
    std::string keyBase64; // the key, white space removed; decodes as `keyType`
    std::string problem;   // empty when the line holds a key; else what is wrong, in words
};

// Every line of `text` (a known-hosts file's content) that names `name` (a knownHostsName):
// comma-separated patterns with `*`, `?` and `!` negation, or a hashed `|1|salt|hash` entry,
// matched without regard to case. A line's key is checked as ssh(1) checks it: a known key
// type, base64 that decodes, a key of that type with nothing after it. Lines are split at
// "\n"; a "\r" before it is white space inside the key, as for ssh(1).
std::vector<KnownHostsLine> knownHostsLinesFor(std::string_view text, std::string_view name);

// The content of a known-hosts file; a missing file is empty. A folder, a FIFO or another file
// that is not a regular file, and one that cannot be read, are errors naming the file.
Result<std::string> readKnownHostsFile(const std::string &path);

// Appends `line` (without its newline) to the file, creating it (mode 0600) when missing, and
// starting a new line first when the file does not end with one.
Status appendKnownHostsLine(const std::string &path, const std::string &line);

} // namespace hetplan
