// hetplan.hosts/1 (docs/formats.md, "Hosts").
#include "core/io/hosts_json.h"

#include "core/io/files.h"
#include "core/io/format_objects.h"
#include "core/io/json_util.h"
#include "core/model/cluster.h"

#include <algorithm>
#include <set>

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

Result<HostsFile> parseHosts(std::string_view text, std::string_view source)
{
    return readDocument(text, source, kHostsFormat, [](Object &root) { return readHosts(root); });
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
