// nccl-tests' text output (docs/import.md, "nccl-tests logs"). Only what the header names is
// trusted: the size, and per placement the last time and algbw before each busbw column.
#include "core/import/nccl_tests.h"

#include "core/import/text_lines.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <optional>
#include <set>
#include <unordered_map>

namespace hetplan {
namespace {

constexpr std::size_t kMaxLogBytes = 16u << 20;
constexpr std::size_t kMaxRows = 100000;
constexpr int kMaxRanks = 65536;
// Sizes, times and bandwidths beyond this are no measurement.
constexpr double kMaxRowFigure = 1e15;

struct CollectiveName
{
    std::string_view name;
    NcclCollective collective;
};

// Longest first, so that "reduce_scatter" is not read as "reduce" or "scatter".
constexpr CollectiveName kCollectives[] = {
    {"reduce_scatter", NcclCollective::ReduceScatter},
    {"all_reduce", NcclCollective::AllReduce},
    {"all_gather", NcclCollective::AllGather},
    {"broadcast", NcclCollective::Broadcast},
    {"sendrecv", NcclCollective::SendRecv},
    {"alltoall", NcclCollective::AllToAll},
    {"reduce", NcclCollective::Reduce},
    {"gather", NcclCollective::Gather},
    {"scatter", NcclCollective::Scatter},
};
constexpr std::string_view kValidCollectives
    = "all_reduce, all_gather, reduce_scatter, broadcast, reduce, alltoall, sendrecv, gather, "
      "scatter";

const CollectiveName *collectiveIn(std::string_view text)
{
    for (const CollectiveName &c : kCollectives)
        if (text.find(c.name) != std::string_view::npos)
            return &c;
    return nullptr;
}

std::string baseName(std::string_view path)
{
    const std::size_t slash = path.find_last_of('/');
    return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

bool allDigits(std::string_view word)
{
    return !word.empty() && std::ranges::all_of(word, [](char c) { return c >= '0' && c <= '9'; });
}

// Where one placement's figures are in a row.
struct Group
{
    std::size_t time = 0;
    std::size_t algBw = 0;
    std::size_t busBw = 0;
};

struct Columns
{
    std::size_t size = 0;
    std::vector<Group> groups; // out-of-place, then in-place
    std::size_t needed = 0;    // words a row must have
    int line = 0;
};

std::optional<std::size_t> lastBefore(const std::vector<std::string> &words, std::size_t end,
                                      std::initializer_list<std::string_view> names)
{
    for (std::size_t i = end; i-- > 0;)
        if (std::ranges::find(names, words[i]) != names.end())
            return i;
    return std::nullopt;
}

bool isColumnHeader(const std::vector<std::string> &words)
{
    return std::ranges::find(words, "size") != words.end()
           && std::ranges::find(words, "busbw") != words.end();
}

std::optional<Columns> columnsOf(const std::vector<std::string> &words, int line)
{
    Columns c;
    c.line = line;
    c.size = std::size_t(std::ranges::find(words, "size") - words.begin());
    for (std::size_t i = 0; i < words.size() && c.groups.size() < 2; ++i) {
        if (words[i] != "busbw")
            continue;
        const auto alg = lastBefore(words, i, {"algbw"});
        const auto time = alg ? lastBefore(words, *alg, {"time", "cputime"}) : std::nullopt;
        if (!time || *time <= c.size || (!c.groups.empty() && *time <= c.groups.back().busBw))
            return std::nullopt;
        c.groups.push_back({*time, *alg, i});
        c.needed = i + 1;
    }
    return c;
}

// "Rank  0 Group  0 Pid  28307 on gpu59 device  0 [0000:16:00] NVIDIA …" (the words after '#');
// old logs lack "Group" and print the bus id as [0x16].
std::optional<NcclRank> rankOf(const std::vector<std::string> &words, int line)
{
    NcclRank r;
    r.line = line;
    const auto after = [&](std::string_view key) -> const std::string * {
        const auto it = std::ranges::find(words, key);
        return it == words.end() || it + 1 == words.end() ? nullptr : &*(it + 1);
    };
    const std::string *rank = after("Rank");
    const std::string *host = after("on");
    const std::string *device = after("device");
    if (!rank || !host || !device || !allDigits(*rank) || !allDigits(*device) || rank->size() > 6
        || device->size() > 6)
        return std::nullopt;
    r.rank = std::stoi(*rank);
    r.host = *host;
    r.device = std::stoi(*device);
    auto rest = std::ranges::find(words, "device") + 2;
    if (rest != words.end() && rest->starts_with("["))
        ++rest;
    for (; rest != words.end(); ++rest)
        r.deviceName += (r.deviceName.empty() ? "" : " ") + *rest;
    return r;
}

class Reader
{
public:
    explicit Reader(std::string_view source)
        : m_source(source)
    {}

    Error at(int line, const std::string &what) const
    {
        return badInput(m_source + ": line " + std::to_string(line) + ": " + what);
    }
    Error whole(const std::string &what) const { return badInput(m_source + ": " + what); }

    std::optional<Error> rank(const std::vector<std::string> &words, int line)
    {
        const auto r = rankOf(words, line);
        if (!r)
            return at(line, "a rank line must read \"#  Rank R [Group G] Pid P on HOST device D "
                            "[BUS] NAME\"");
        if (r->rank >= kMaxRanks)
            return at(line, "rank " + std::to_string(r->rank) + "; valid: 0.."
                                + std::to_string(kMaxRanks - 1));
        if (hasControlCharacter(r->host) || hasControlCharacter(r->deviceName))
            return at(line, "host " + quotedForMessage(r->host) + " device "
                                + quotedForMessage(r->deviceName)
                                + " holds a control character; valid: printable text");
        if (const auto seen = m_rankIndex.find(r->rank); seen != m_rankIndex.end()) {
            const NcclRank &other = m_log.ranks[seen->second];
            // A multi-process run of a non-MPI build prints the same devices once per process.
            if (other.host == r->host && other.device == r->device)
                return std::nullopt;
            return at(line, "rank " + std::to_string(r->rank) + " is " + r->host + " device "
                                + std::to_string(r->device) + " here but " + other.host + " device "
                                + std::to_string(other.device) + " on line "
                                + std::to_string(other.line) + "; one log is one run");
        }
        m_rankIndex.emplace(r->rank, m_log.ranks.size());
        m_log.ranks.push_back(*r);
        return std::nullopt;
    }

    std::optional<Error> row(const std::vector<std::string> &words, int line)
    {
        if (!m_columns)
            return at(line, "a data row before the column header (\"#  size  count  type  …  "
                            "time  algbw  busbw …\"); the log must be nccl-tests' whole output");
        const Columns &c = *m_columns;
        if (words.size() < c.needed)
            return at(line, std::to_string(words.size()) + " columns; the header on line "
                                + std::to_string(c.line) + " names at least "
                                + std::to_string(c.needed));
        if (m_log.rows.size() >= kMaxRows)
            return at(line, "more than " + std::to_string(kMaxRows) + " rows");
        NcclRow r;
        r.line = line;
        std::optional<Error> error;
        const auto number = [&](std::size_t column, std::string_view name, bool positive) {
            const auto value = parseWordNumber(words[column]);
            const std::string valid = std::string("valid: a number ") + (positive ? "> 0" : ">= 0")
                                      + " and <= " + figureText(kMaxRowFigure);
            if (!value && !error)
                error = at(line, std::string(name) + " " + quotedForMessage(words[column])
                                     + " is not a number; " + valid);
            else if (value && (*value < 0 || (positive && *value <= 0) || *value > kMaxRowFigure)
                     && !error)
                error = at(line,
                           std::string(name) + " " + words[column] + " is out of range; " + valid);
            return value.value_or(0);
        };
        r.bytes = number(c.size, "size", true);
        r.timeUs = number(c.groups[0].time, "time", true);
        r.algBwGBps = number(c.groups[0].algBw, "algbw", false);
        r.busBwGBps = number(c.groups[0].busBw, "busbw", false);
        if (error)
            return error;
        if (c.groups.size() > 1) {
            const auto time = parseWordNumber(words[c.groups[1].time]);
            const auto busBw = parseWordNumber(words[c.groups[1].busBw]);
            r.hasInPlace = time && busBw && *time > 0 && *busBw >= 0;
            r.inPlaceTimeUs = r.hasInPlace ? *time : 0;
            r.inPlaceBusBwGBps = r.hasInPlace ? *busBw : 0;
        }
        m_log.rows.push_back(r);
        return std::nullopt;
    }

    std::optional<Error> comment(const std::string &line, int number)
    {
        const std::vector<std::string> words = splitWords(std::string_view(line).substr(1));
        if (line.find("Collective test starting") != std::string::npos) {
            m_named = collectiveIn(line);
            return std::nullopt;
        }
        if (!words.empty() && words.front() == "Rank")
            return rank(words, number);
        if (!isColumnHeader(words))
            return std::nullopt;
        auto columns = columnsOf(words, number);
        if (!columns || columns->groups.empty())
            return at(number, "the column header must name size, then time, algbw and busbw "
                              "for each placement");
        m_columns = std::move(columns);
        return std::nullopt;
    }

    Result<NcclTestsLog> finish(std::string_view path)
    {
        const CollectiveName *named = m_named ? m_named : collectiveIn(baseName(path));
        if (!named)
            return whole("cannot tell which collective this log measured: it has no \"# "
                         "Collective test starting\" line and its file name names none; name "
                         "the file after the test, e.g. all_reduce_perf.log; valid: "
                         + std::string(kValidCollectives));
        m_log.collective = named->collective;
        m_log.collectiveName = std::string(named->name);
        if (!m_columns)
            return whole("no column header (\"#  size  count  type  …  time  algbw  busbw\"); "
                         "expected nccl-tests' output");
        if (m_log.rows.empty())
            return whole("no data rows after the column header on line "
                         + std::to_string(m_columns->line));
        if (m_log.ranks.empty())
            return whole("no \"#  Rank R … on HOST device D\" lines, so its ranks cannot be "
                         "placed on machines; keep nccl-tests' whole output");
        std::ranges::sort(m_log.ranks, {}, &NcclRank::rank);
        if (auto error = checkBusBw())
            return *error;
        return std::move(m_log);
    }

private:
    // busbw must be algbw × the collective's factor for the ranks listed; otherwise the rank
    // lines do not describe the run that printed the rows.
    std::optional<Error> checkBusBw() const
    {
        const int n = int(m_log.ranks.size());
        const double factor = busBwFactor(m_log.collective, n);
        for (const NcclRow &r : m_log.rows) {
            const double expected = r.algBwGBps * factor;
            // Two printed decimals on each figure, and a little for %e rounding.
            if (std::abs(r.busBwGBps - expected) <= 0.02 + 0.01 * std::max(r.busBwGBps, expected))
                continue;
            return at(r.line, "busbw " + figureText(r.busBwGBps) + " is not algbw "
                                  + figureText(r.algBwGBps) + " × " + figureText(factor)
                                  + ", the factor of " + m_log.collectiveName + " over the "
                                  + std::to_string(n)
                                  + " ranks the log lists; the rank lines and the rows must "
                                    "come from one run");
        }
        return std::nullopt;
    }

    std::string m_source;
    NcclTestsLog m_log;
    std::unordered_map<int, std::size_t> m_rankIndex; // rank → its index in m_log.ranks
    std::optional<Columns> m_columns;
    const CollectiveName *m_named = nullptr;
};

} // namespace

bool looksLikeNcclTests(std::string_view text)
{
    LineCursor cursor(text.substr(0, std::min<std::size_t>(text.size(), 1 << 16)));
    for (std::string_view line; cursor.next(line);) {
        if (!line.starts_with("#"))
            continue;
        const auto words = splitWords(line.substr(1));
        if (isColumnHeader(words) || line.find("nccl-tests") != std::string::npos
            || (!words.empty() && words.front() == "Rank" && rankOf(words, 0)))
            return true;
    }
    return false;
}

Result<NcclTestsLog> parseNcclTests(std::string_view text, std::string_view source)
{
    Reader reader(source);
    if (text.size() > kMaxLogBytes)
        return reader.whole(std::to_string(text.size()) + " bytes; an nccl-tests log is at most "
                            + std::to_string(kMaxLogBytes >> 20) + " MiB");
    LineCursor cursor(text);
    for (std::string_view raw; cursor.next(raw);) {
        const int number = cursor.number();
        const std::string line = trimmed(raw);
        std::optional<Error> error;
        if (line.starts_with("#"))
            error = reader.comment(line, number);
        else if (const auto words = splitWords(line); !words.empty() && allDigits(words.front()))
            error = reader.row(words, number);
        // Anything else (NCCL INFO and warning lines, a shell prompt) carries no figures.
        if (error)
            return *error;
    }
    return reader.finish(source);
}

double busBwFactor(NcclCollective collective, int ranks)
{
    const double n = std::max(ranks, 1);
    switch (collective) {
    case NcclCollective::AllReduce:
        return 2 * (n - 1) / n;
    case NcclCollective::AllGather:
    case NcclCollective::ReduceScatter:
    case NcclCollective::AllToAll:
    case NcclCollective::Gather:
    case NcclCollective::Scatter:
        return (n - 1) / n;
    case NcclCollective::Broadcast:
    case NcclCollective::Reduce:
    case NcclCollective::SendRecv:
        return 1;
    }
    return 1;
}

int latencySteps(NcclCollective collective, int ranks)
{
    const int n = std::max(ranks, 1);
    switch (collective) {
    case NcclCollective::AllReduce:
        return std::max(2 * (n - 1), 1);
    case NcclCollective::AllGather:
    case NcclCollective::ReduceScatter:
    case NcclCollective::Broadcast:
    case NcclCollective::Reduce:
        return std::max(n - 1, 1);
    case NcclCollective::AllToAll:
    case NcclCollective::SendRecv:
    case NcclCollective::Gather:
    case NcclCollective::Scatter:
        return 1;
    }
    return 1;
}

} // namespace hetplan
