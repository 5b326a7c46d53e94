// Reading known-hosts files as OpenSSH 9 does (sshd(8), "SSH_KNOWN_HOSTS FILE FORMAT"; the
// outcomes for each kind of line are in docs/launcher.md#host-keys).
#include "runtime/launcher/known_hosts.h"

#include "core/io/files.h"

#include <array>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fcntl.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <optional>
#include <sys/stat.h>
#include <unistd.h>

namespace hetplan {

namespace {

constexpr std::string_view kBase64Alphabet
    = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

bool isBlank(char c)
{
    return c == ' ' || c == '\t';
}

std::size_t skipBlanks(std::string_view text, std::size_t pos)
{
    while (pos < text.size() && isBlank(text[pos]))
        ++pos;
    return pos;
}

std::size_t tokenEnd(std::string_view text, std::size_t pos)
{
    while (pos < text.size() && !isBlank(text[pos]))
        ++pos;
    return pos;
}

// A word of the file as a message quotes it: control characters (a stray "\r", a terminal
// escape) as '?', and at most 40 characters.
std::string quoted(std::string_view word)
{
    constexpr std::size_t kMaxChars = 40;
    std::string text = "\"";
    for (const char c : word.substr(0, kMaxChars))
        text += std::iscntrl(static_cast<unsigned char>(c)) ? '?' : c;
    text += word.size() > kMaxChars ? "…\"" : "\"";
    return text;
}

std::string lowerCase(std::string_view text)
{
    std::string lower(text);
    for (char &c : lower)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    return lower;
}

// Base64 as ssh(1) decodes it: white space anywhere is skipped; padding is required where the
// last group is short, and nothing but white space may follow it.
std::optional<std::string> decodeBase64(std::string_view text)
{
    std::string bytes;
    std::uint32_t bits = 0;
    int group = 0; // characters of the current group of four
    std::size_t i = 0;
    for (; i < text.size(); ++i) {
        const char c = text[i];
        if (std::isspace(static_cast<unsigned char>(c)))
            continue;
        if (c == '=')
            break;
        const std::size_t value = kBase64Alphabet.find(c);
        if (value == std::string_view::npos)
            return std::nullopt;
        bits = (bits << 6) | std::uint32_t(value);
        if (++group == 4) {
            bytes += char((bits >> 16) & 0xff);
            bytes += char((bits >> 8) & 0xff);
            bytes += char(bits & 0xff);
            bits = 0;
            group = 0;
        }
    }
    if (i == text.size())
        return group == 0 ? std::optional<std::string>(bytes) : std::nullopt;
    // Padding: "xx==" or "xxx=", and the bits left over must be zero.
    int pads = group == 2 ? 2 : group == 3 ? 1 : 0;
    if (pads == 0)
        return std::nullopt;
    for (; i < text.size(); ++i) {
        const char c = text[i];
        if (std::isspace(static_cast<unsigned char>(c)))
            continue;
        if (c != '=' || pads == 0)
            return std::nullopt;
        --pads;
    }
    if (pads != 0)
        return std::nullopt;
    if (group == 2) {
        if ((bits & 0xf) != 0)
            return std::nullopt;
        bytes += char((bits >> 4) & 0xff);
    } else {
        if ((bits & 0x3) != 0)
            return std::nullopt;
        bytes += char((bits >> 10) & 0xff);
        bytes += char((bits >> 2) & 0xff);
    }
    return bytes;
}

std::string encodeBase64(std::string_view bytes)
{
    std::string text(4 * ((bytes.size() + 2) / 3) + 1, '\0');
    const int length
        = EVP_EncodeBlock(reinterpret_cast<unsigned char *>(text.data()),
                          reinterpret_cast<const unsigned char *>(bytes.data()), int(bytes.size()));
    text.resize(std::size_t(length));
    return text;
}

// A hashed host field, "|1|<base64 salt>|<base64 HMAC-SHA1(salt, name)>" (ssh-keygen(1) -H).
// nullopt: the field is not a well-formed hash, so nobody can tell which host it names.
std::optional<bool> hashedFieldNames(std::string_view field, std::string_view name)
{
    constexpr std::string_view kMagic = "|1|";
    constexpr std::size_t kSha1Bytes = 20;
    if (field.substr(0, kMagic.size()) != kMagic)
        return std::nullopt;
    const std::string_view rest = field.substr(kMagic.size());
    const std::size_t end = rest.find('|');
    if (end == std::string_view::npos || end == 0 || end > 1024)
        return std::nullopt;
    const std::optional<std::string> salt = decodeBase64(rest.substr(0, end));
    if (!salt || salt->size() != kSha1Bytes)
        return std::nullopt;
    std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
    unsigned int digestBytes = 0;
    if (HMAC(EVP_sha1(), salt->data(), int(salt->size()),
             reinterpret_cast<const unsigned char *>(name.data()), name.size(), digest.data(),
             &digestBytes)
        == nullptr)
        return std::nullopt;
    std::string expected(kMagic);
    expected += encodeBase64(*salt);
    expected += '|';
    expected += encodeBase64(
        std::string_view(reinterpret_cast<const char *>(digest.data()), digestBytes));
    return field == expected;
}

// `*` any run of characters, `?` one character, anything else itself.
bool globMatches(std::string_view text, std::string_view pattern)
{
    std::size_t t = 0;
    std::size_t p = 0;
    std::size_t starP = std::string_view::npos;
    std::size_t starT = 0;
    while (t < text.size()) {
        if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
            ++t;
            ++p;
        } else if (p < pattern.size() && pattern[p] == '*') {
            starP = p++;
            starT = t;
        } else if (starP != std::string_view::npos) {
            p = starP + 1;
            t = ++starT;
        } else {
            return false;
        }
    }
    while (p < pattern.size() && pattern[p] == '*')
        ++p;
    return p == pattern.size();
}

// A comma-separated pattern list names `name` (lower case) when a pattern matches it and no
// negated one (`!pattern`) does. A pattern of 1023 characters or more matches nothing, as in
// ssh(1).
bool patternsName(std::string_view patterns, std::string_view name)
{
    bool positive = false;
    std::size_t pos = 0;
    while (pos < patterns.size()) {
        const bool negated = patterns[pos] == '!';
        if (negated)
            ++pos;
        std::size_t end = patterns.find(',', pos);
        if (end == std::string_view::npos)
            end = patterns.size();
        if (end - pos >= 1023)
            return false;
        if (globMatches(name, lowerCase(patterns.substr(pos, end - pos)))) {
            if (negated)
                return false;
            positive = true;
        }
        pos = end + 1;
    }
    return positive;
}

// The key type a line may name, and the type the key itself then starts with.
struct KeyTypeName
{
    std::string_view written;
    std::string_view inKey;
};

constexpr std::array kKeyTypes{
    KeyTypeName{"ssh-ed25519", "ssh-ed25519"},
    KeyTypeName{"sk-ssh-ed25519@openssh.com", "sk-ssh-ed25519@openssh.com"},
    KeyTypeName{"ecdsa-sha2-nistp256", "ecdsa-sha2-nistp256"},
    KeyTypeName{"ecdsa-sha2-nistp384", "ecdsa-sha2-nistp384"},
    KeyTypeName{"ecdsa-sha2-nistp521", "ecdsa-sha2-nistp521"},
    KeyTypeName{"sk-ecdsa-sha2-nistp256@openssh.com", "sk-ecdsa-sha2-nistp256@openssh.com"},
    KeyTypeName{"webauthn-sk-ecdsa-sha2-nistp256@openssh.com",
                "sk-ecdsa-sha2-nistp256@openssh.com"},
    KeyTypeName{"ssh-rsa", "ssh-rsa"},
    KeyTypeName{"rsa-sha2-256", "ssh-rsa"},
    KeyTypeName{"rsa-sha2-512", "ssh-rsa"},
    KeyTypeName{"ssh-dss", "ssh-dss"},
    KeyTypeName{"ssh-ed25519-cert-v01@openssh.com", "ssh-ed25519-cert-v01@openssh.com"},
    KeyTypeName{"sk-ssh-ed25519-cert-v01@openssh.com", "sk-ssh-ed25519-cert-v01@openssh.com"},
    KeyTypeName{"ecdsa-sha2-nistp256-cert-v01@openssh.com",
                "ecdsa-sha2-nistp256-cert-v01@openssh.com"},
    KeyTypeName{"ecdsa-sha2-nistp384-cert-v01@openssh.com",
                "ecdsa-sha2-nistp384-cert-v01@openssh.com"},
    KeyTypeName{"ecdsa-sha2-nistp521-cert-v01@openssh.com",
                "ecdsa-sha2-nistp521-cert-v01@openssh.com"},
    KeyTypeName{"sk-ecdsa-sha2-nistp256-cert-v01@openssh.com",
                "sk-ecdsa-sha2-nistp256-cert-v01@openssh.com"},
    KeyTypeName{"ssh-rsa-cert-v01@openssh.com", "ssh-rsa-cert-v01@openssh.com"},
    KeyTypeName{"rsa-sha2-256-cert-v01@openssh.com", "ssh-rsa-cert-v01@openssh.com"},
    KeyTypeName{"rsa-sha2-512-cert-v01@openssh.com", "ssh-rsa-cert-v01@openssh.com"},
    KeyTypeName{"ssh-dss-cert-v01@openssh.com", "ssh-dss-cert-v01@openssh.com"},
};

const KeyTypeName *findKeyType(std::string_view written)
{
    for (const KeyTypeName &type : kKeyTypes)
        if (type.written == written)
            return &type;
    return nullptr;
}

// Reads the SSH wire format (RFC 4251 section 5): strings and mpints, length first.
class WireReader
{
public:
    explicit WireReader(std::string_view bytes)
        : m_rest(bytes)
    {}
    std::optional<std::string_view> string()
    {
        if (m_rest.size() < 4)
            return std::nullopt;
        const auto byte = [this](std::size_t i) { return std::uint32_t(std::uint8_t(m_rest[i])); };
        const std::uint32_t length = byte(0) << 24 | byte(1) << 16 | byte(2) << 8 | byte(3);
        if (length > m_rest.size() - 4)
            return std::nullopt;
        const std::string_view value = m_rest.substr(4, length);
        m_rest.remove_prefix(4 + std::size_t(length));
        return value;
    }
    // A non-negative mpint's size in bits; nullopt when missing or negative.
    std::optional<std::size_t> mpintBits()
    {
        std::optional<std::string_view> value = string();
        if (!value || (!value->empty() && (std::uint8_t(value->front()) & 0x80) != 0))
            return std::nullopt;
        while (!value->empty() && value->front() == '\0')
            value->remove_prefix(1);
        if (value->empty())
            return 0;
        std::size_t bits = 8 * (value->size() - 1);
        for (unsigned first = std::uint8_t(value->front()); first != 0; first >>= 1)
            ++bits;
        return bits;
    }
    bool atEnd() const { return m_rest.empty(); }

private:
    std::string_view m_rest;
};

// What is wrong with a key of type `inKey` (after its type name), as ssh(1) would reject it;
// empty when nothing is. Certificates are not taken apart: a host offers plain keys here.
std::string keyStructureProblem(std::string_view inKey, WireReader &key)
{
    std::string cut = "the " + std::string(inKey) + " key is cut short or malformed";
    if (inKey.find("-cert-v01@") != std::string_view::npos)
        return {};
    if (inKey == "ssh-ed25519" || inKey == "sk-ssh-ed25519@openssh.com") {
        const auto point = key.string();
        if (!point || point->size() != 32)
            return cut;
    } else if (inKey.substr(0, 11) == "ecdsa-sha2-" || inKey.substr(0, 14) == "sk-ecdsa-sha2-") {
        const std::size_t at = inKey.find("nistp");
        const std::string_view curve = inKey.substr(at, inKey.find('@') - at);
        const auto named = key.string();
        const auto point = key.string();
        if (!named || *named != curve || !point || point->empty())
            return cut;
    } else if (inKey == "ssh-rsa") {
        const auto exponent = key.mpintBits();
        const auto modulus = key.mpintBits();
        if (!exponent || !modulus)
            return cut;
        // ssh(1) refuses RSA keys under 1024 bits (SSH_RSA_MINIMUM_MODULUS_SIZE).
        if (*modulus < 1024 || *modulus > 16384)
            return "the RSA key has " + std::to_string(*modulus)
                   + " bits; ssh accepts 1024 to 16384";
    } else if (inKey == "ssh-dss") {
        for (int part = 0; part < 4; ++part)
            if (!key.mpintBits())
                return cut;
    }
    if (inKey.substr(0, 3) == "sk-" && !key.string())
        return cut;
    if (!key.atEnd())
        return "the " + std::string(inKey) + " key has extra bytes after its end";
    return {};
}

// The key part of a line (after the host field): fills type, base64 and problem.
void readKey(std::string_view rest, KnownHostsLine &line)
{
    std::size_t pos = skipBlanks(rest, 0);
    if (pos == rest.size() || rest[pos] == '#') {
        line.problem = "there is no key after the host names";
        return;
    }
    const std::size_t typeEnd = tokenEnd(rest, pos);
    line.keyType = std::string(rest.substr(pos, typeEnd - pos));
    const KeyTypeName *type = findKeyType(line.keyType);
    if (type == nullptr) {
        line.problem = quoted(line.keyType) + " is not a key type ssh knows";
        return;
    }
    pos = skipBlanks(rest, typeEnd);
    if (pos == rest.size()) {
        line.problem = "the key is missing after its type";
        return;
    }
    const std::string_view written = rest.substr(pos, tokenEnd(rest, pos) - pos);
    const std::optional<std::string> blob = decodeBase64(written);
    if (!blob) {
        line.problem = "the key is not valid base64 (cut short or damaged?)";
        return;
    }
    WireReader key(*blob);
    const std::optional<std::string_view> inKey = key.string();
    if (!inKey) {
        line.problem = "the key is cut short or malformed";
        return;
    }
    if (*inKey != type->inKey) {
        line.problem = "the key is a " + quoted(*inKey) + " key, not " + quoted(line.keyType)
                       + " as the line says";
        return;
    }
    line.problem = keyStructureProblem(*inKey, key);
    if (line.problem.empty())
        line.keyBase64 = encodeBase64(*blob);
}

// One line (without its "\n"); nullopt unless its host field names `name`.
std::optional<KnownHostsLine> readLine(std::string_view text, std::string_view name, int number)
{
    // ssh(1) reads lines as C strings: a NUL byte ends the line.
    text = text.substr(0, text.find('\0'));
    std::size_t pos = skipBlanks(text, 0);
    if (pos == text.size() || text[pos] == '#')
        return std::nullopt;
    KnownHostsLine line;
    line.lineNumber = number;
    std::string markerProblem;
    while (pos < text.size() && text[pos] == '@') {
        const std::size_t end = tokenEnd(text, pos);
        const std::string_view marker = text.substr(pos, end - pos);
        if (line.marker != KnownHostsMarker::None)
            markerProblem = "a line may carry one marker only";
        else if (marker == "@cert-authority")
            line.marker = KnownHostsMarker::CertAuthority;
        else if (marker == "@revoked")
            line.marker = KnownHostsMarker::Revoked;
        else
            markerProblem
                = quoted(marker) + " is not a marker ssh knows (@revoked, @cert-authority)";
        pos = skipBlanks(text, end);
        if (!markerProblem.empty())
            break;
    }
    const std::size_t hostsEnd = tokenEnd(text, pos);
    const std::string_view hosts = text.substr(pos, hostsEnd - pos);
    if (!hosts.empty() && hosts.front() == '|') {
        if (hashedFieldNames(hosts, name) != std::optional<bool>(true))
            return std::nullopt;
    } else if (!patternsName(hosts, name)) {
        return std::nullopt;
    }
    if (!markerProblem.empty())
        line.problem = markerProblem;
    else
        readKey(text.substr(hostsEnd), line);
    return line;
}

Error knownHostsError(const std::string &path, const std::string &what)
{
    return badInput("the known-hosts file " + path + " " + what);
}

} // namespace

std::string knownHostsName(const std::string &host, int port)
{
    const std::string lower = lowerCase(host);
    return port == 22 ? lower : "[" + lower + "]:" + std::to_string(port);
}

std::vector<KnownHostsLine> knownHostsLinesFor(std::string_view text, std::string_view name)
{
    const std::string lowerName = lowerCase(name);
    std::vector<KnownHostsLine> lines;
    int number = 0;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string_view::npos)
            end = text.size();
        if (auto line = readLine(text.substr(start, end - start), lowerName, ++number))
            lines.push_back(std::move(*line));
        start = end + 1;
    }
    return lines;
}

Result<std::string> readKnownHostsFile(const std::string &path)
{
    struct stat info
    {
    };
    if (::stat(path.c_str(), &info) != 0) {
        if (errno == ENOENT)
            return std::string();
        return knownHostsError(path, std::string("cannot be read: ") + std::strerror(errno));
    }
    if (S_ISDIR(info.st_mode))
        return knownHostsError(path, "is a folder; name a file");
    if (!S_ISREG(info.st_mode))
        return knownHostsError(path, "is not a regular file (a FIFO, socket or device); name a "
                                     "file");
    Result<std::string> text = readTextFile(path);
    if (!text)
        return knownHostsError(path, "cannot be read (" + text.error().message + ")");
    return text;
}

Status appendKnownHostsLine(const std::string &path, const std::string &line)
{
    const int fd = ::open(path.c_str(), O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0600);
    if (fd < 0)
        return knownHostsError(path, std::string("cannot be written: ") + std::strerror(errno));
    std::string text;
    struct stat info
    {
    };
    char last = '\n';
    if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)
        || (info.st_size > 0 && ::pread(fd, &last, 1, info.st_size - 1) != 1)) {
        ::close(fd);
        return knownHostsError(path, "is not a regular file that can be read back");
    }
    if (last != '\n')
        text += '\n';
    text += line;
    text += '\n';
    std::string_view rest = text;
    while (!rest.empty()) {
        const ssize_t written = ::write(fd, rest.data(), rest.size());
        if (written < 0 && errno == EINTR)
            continue;
        if (written <= 0) {
            const int error = errno;
            ::close(fd);
            return knownHostsError(path, std::string("cannot be written: ") + std::strerror(error));
        }
        rest.remove_prefix(std::size_t(written));
    }
    if (::close(fd) != 0)
        return knownHostsError(path, std::string("cannot be written: ") + std::strerror(errno));
    return okStatus();
}

} // namespace hetplan
