// hetplan.hosts/1 (docs/formats.md, "Hosts").
#include "core/io/hosts_json.h"

#include "core/io/files.h"
#include "core/io/format_objects.h"
#include "core/io/json_util.h"
#include "core/model/cluster.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <tuple>

namespace hetplan {

using namespace jsonio;

namespace {

constexpr IntRange kPort{1, 65535};
constexpr std::size_t kMaxPathChars = 1024;

// These strings end up in remote shell commands and in ssh's own arguments: a control
// character would split a command, and a leading '-' would read as an option.
bool safeText(std::string_view text)
{
    return std::none_of(text.begin(), text.end(),
                        [](unsigned char c) { return c < 0x20 || c == 0x7f; });
}

std::string readText(Object &o, std::string_view key, bool required, std::size_t maxChars,
                     std::string fallback = {})
{
    const Value value = required ? o.required(key) : o.optional(key);
    std::string text = value.string(maxChars, false, std::move(fallback));
    if (value.present() && !safeText(text))
        value.fail("contains a control character (a newline, a tab); valid: printable text");
    return text;
}

HostEntry readEntry(const Value &value)
{
    HostEntry e;
    Object o = value.object();
    e.machine = readText(o, "machine", true, kMaxNameChars);
    e.host = readText(o, "host", true, kMaxNameChars * 2);
    if (o.present() && !e.host.empty()
        && (e.host.front() == '-' || e.host.find(' ') != std::string::npos))
        o.failField("host", "\"" + e.host
                                + "\" is not a host name or address; valid: a name or address "
                                  "without spaces that does not start with '-'");
    e.port = o.optional("port").integer(kPort, kDefaultSshPort);
    e.user = readText(o, "user", false, kMaxNameChars);
    if (o.present() && !e.user.empty() && e.user.front() == '-')
        o.failField("user", "must not start with '-'");
    e.identity = readText(o, "identity", false, kMaxPathChars);
    e.workdir = readText(o, "workdir", true, kMaxPathChars);
    e.worker = readText(o, "worker", false, kMaxPathChars, std::string(kDefaultWorker));
    o.finish();
    return e;
}

HostsFile readHosts(Object &root)
{
    HostsFile file;
    const Array hosts = root.required("hosts").array(std::size_t(kMaxMachines), 1);
    std::set<std::string, std::less<>> machines;
    for (std::size_t i = 0; i < hosts.size(); ++i) {
        file.hosts.push_back(readEntry(hosts.at(i)));
        const std::string &machine = file.hosts.back().machine;
        if (!root.context().failed() && !machines.insert(machine).second)
            hosts.at(i).object().failField("machine",
                                           "\"" + machine
                                               + "\" is mapped twice; valid: one entry per "
                                                 "machine (several machines may share a host)");
    }
    return file;
}

} // namespace

const HostEntry *HostsFile::find(std::string_view machine) const
{
    for (const HostEntry &e : hosts)
        if (e.machine == machine)
            return &e;
    return nullptr;
}

std::string sshDestination(std::string_view user, std::string_view host, int port)
{
    std::string text;
    if (!user.empty()) {
        text += user;
        text += '@';
    }
    text += host;
    text += ':';
    text += std::to_string(port);
    return text;
}

namespace {

// The "machine" of row `row` of a hosts document, where it has one.
std::optional<std::string> machineOfRow(std::string_view text, std::string_view source,
                                        std::size_t row)
{
    auto doc = parseDocument(text, source);
    if (!doc || !doc->is_object() || !doc->contains("hosts"))
        return std::nullopt;
    const Json &rows = doc->at("hosts");
    if (!rows.is_array() || row >= rows.size() || !rows[row].is_object()
        || !rows[row].contains("machine") || !rows[row].at("machine").is_string())
        return std::nullopt;
    return rows[row].at("machine").get<std::string>();
}

// A reader's error about a row's field, "h.json: hosts[2].port: …", names the row's machine too
// where the row has one: "h.json: hosts[2].port (machine C): …", as checkHostRows does.
Error withMachine(Error error, std::string_view text, std::string_view source)
{
    const std::string prefix = std::string(source) + ": hosts[";
    std::string &message = error.message;
    if (!message.starts_with(prefix))
        return error;
    const std::size_t indexEnd = message.find(']', prefix.size());
    const std::size_t fieldEnd = message.find(": ", prefix.size());
    if (indexEnd == std::string::npos || fieldEnd == std::string::npos || indexEnd > fieldEnd
        || indexEnd == prefix.size() || indexEnd - prefix.size() > 6)
        return error;
    std::size_t row = 0;
    for (std::size_t i = prefix.size(); i < indexEnd; ++i) {
        if (message[i] < '0' || message[i] > '9')
            return error;
        row = row * 10 + std::size_t(message[i] - '0');
    }
    if (const auto machine = machineOfRow(text, source, row))
        message.insert(fieldEnd, " (machine " + *machine + ")");
    return error;
}

} // namespace

Result<HostsFile> parseHosts(std::string_view text, std::string_view source)
{
    auto hosts
        = readDocument(text, source, kHostsFormat, [](Object &root) { return readHosts(root); });
    if (!hosts)
        return withMachine(hosts.error(), text, source);
    if (Status rows = checkHostRows(*hosts, source); !rows)
        return rows.error();
    return hosts;
}

Result<HostsFile> loadHosts(const std::string &path)
{
    auto text = readTextFile(path);
    if (!text)
        return text.error();
    return parseHosts(*text, path);
}

namespace {

// "hosts.json: hosts[2].workdir (machine C): ", as the reader names a field.
std::string rowField(std::string_view source, std::size_t row, const HostEntry &entry,
                     std::string_view field)
{
    std::string text(source);
    text += ": hosts[" + std::to_string(row) + "].";
    text += field;
    text += " (machine " + entry.machine + "): ";
    return text;
}

// The remote shell gets the workdir quoted, so only "~/" (which the launcher reads as the
// remote home, docs/launcher.md) can name a home.
std::string workdirProblem(const std::string &workdir)
{
    if (workdir.starts_with('~') && workdir != "~" && !workdir.starts_with("~/"))
        return "\"" + workdir
               + "\": another user's home (~user) is not expanded; valid: an absolute path, or "
                 "one relative to the remote home (\"hetplan\" or \"~/hetplan\")";
    return {};
}

// The worker starts from the job folder (so a relative path would not be the one preflight
// checked from the home) through `env` (which reads a word with '=' as a variable), quoted
// (so '~' stays a '~').
std::string workerProblem(const std::string &worker)
{
    const char *valid = "; valid: an absolute path, or a name found on the host's PATH";
    if (worker.empty())
        return std::string("must not be empty") + valid;
    if (worker.front() == '-')
        return std::string("must not start with '-'") + valid;
    if (worker.find('=') != std::string::npos)
        return "\"" + worker + "\" contains '=', which the remote command would read as a "
               + "variable" + valid;
    if (worker.front() == '~')
        return "\"" + worker + "\": '~' is not expanded on the host" + valid;
    if (worker.front() != '/' && worker.find('/') != std::string::npos)
        return "\"" + worker + "\" is relative, but ranks start in the job folder" + valid;
    return {};
}

} // namespace

Status checkHostRows(const HostsFile &hosts, std::string_view source)
{
    std::map<std::string, std::size_t> firstRow; // destination → its first row
    for (std::size_t row = 0; row < hosts.hosts.size(); ++row) {
        const HostEntry &e = hosts.hosts[row];
        for (const auto &[field, why] : {std::pair{"workdir", workdirProblem(e.workdir)},
                                         std::pair{"worker", workerProblem(e.worker)}})
            if (!why.empty())
                return badInput(rowField(source, row, e, field) + why);
        const std::string destination = sshDestination(e.user, e.host, e.port);
        const auto [it, added] = firstRow.try_emplace(destination, row);
        if (added)
            continue;
        const HostEntry &first = hosts.hosts[it->second];
        for (const auto &[field, mine, theirs] :
             {std::tuple{"identity", &e.identity, &first.identity},
              {"workdir", &e.workdir, &first.workdir},
              {"worker", &e.worker, &first.worker}})
            if (*mine != *theirs)
                return badInput(rowField(source, row, e, field) + "\"" + *mine
                                + "\" differs from \"" + *theirs + "\" of machine " + first.machine
                                + " (hosts[" + std::to_string(it->second)
                                + "]), which has the "
                                  "same destination "
                                + destination
                                + "; valid: rows with the same user, host and port are one login "
                                  "and agree on identity, workdir and worker");
    }
    return okStatus();
}

Status checkIdentityFiles(const HostsFile &hosts, std::string_view source)
{
    for (std::size_t row = 0; row < hosts.hosts.size(); ++row) {
        const HostEntry &e = hosts.hosts[row];
        if (e.identity.empty())
            continue;
        if (Status readable = checkReadableFile(expandHome(e.identity)); !readable)
            return badInput(rowField(source, row, e, "identity") + readable.error().message
                            + "; valid: a private key file this user can read, or no "
                              "\"identity\" for the SSH agent");
    }
    return okStatus();
}

OrderedJson jsonio::hostsDocument(const HostsFile &hosts)
{
    OrderedJson j;
    j["format"] = kHostsFormat;
    OrderedJson &list = j["hosts"] = OrderedJson::array();
    for (const HostEntry &e : hosts.hosts) {
        OrderedJson o;
        o["machine"] = e.machine;
        o["host"] = e.host;
        o["port"] = e.port;
        if (!e.user.empty())
            o["user"] = e.user;
        if (!e.identity.empty())
            o["identity"] = e.identity;
        o["workdir"] = e.workdir;
        o["worker"] = e.worker;
        list.push_back(std::move(o));
    }
    return j;
}

std::string writeHosts(const HostsFile &hosts)
{
    return dumpPretty(jsonio::hostsDocument(hosts));
}

Status saveHosts(const std::string &path, const HostsFile &hosts)
{
    return writeFileAtomic(path, writeHosts(hosts));
}

} // namespace hetplan
