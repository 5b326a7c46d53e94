// Topology: the flat GPU list and pair bandwidth/latency of a Cluster (docs/formats.md, "Cluster").
#include "core/model/topology.h"

#include "core/base/text.h"

#include <queue>

#include <algorithm>
#include <cassert>
#include <charconv>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace hetplan {

namespace {

std::string indexed(std::string_view array, size_t index)
{
    return std::string(array) + "[" + std::to_string(index) + "]";
}

std::string quoted(std::string_view text)
{
    return "'" + std::string(text) + "'";
}

Status checkLinkValue(double value, const std::string &field)
{
    if (!std::isfinite(value) || value < 0)
        return badInput(field + ": must be a finite number >= 0, got " + std::to_string(value));
    return okStatus();
}

// The network as a graph: machines are nodes [0, machineCount), switches follow.
struct Edge
{
    int to;
    double bandwidthGBps;
    double latencyUs;
    bool measured;
};
using Graph = std::vector<std::vector<Edge>>;

// Widest (max-min bandwidth) path from `source` to every node; 0 where unreachable.
std::vector<double> widestFrom(const Graph &graph, int source)
{
    std::vector<double> width(graph.size(), 0.0);
    width[static_cast<size_t>(source)] = std::numeric_limits<double>::infinity();
    using Entry = std::pair<double, int>; // width, node; widest first
    std::priority_queue<Entry> queue;
    queue.push({width[static_cast<size_t>(source)], source});
    while (!queue.empty()) {
        const auto [w, node] = queue.top();
        queue.pop();
        if (w < width[static_cast<size_t>(node)])
            continue;
        for (const Edge &e : graph[static_cast<size_t>(node)]) {
            const double through = std::min(w, e.bandwidthGBps);
            if (through > width[static_cast<size_t>(e.to)]) {
                width[static_cast<size_t>(e.to)] = through;
                queue.push({through, e.to});
            }
        }
    }
    return width;
}

// Lowest-latency paths from `source` over links at least `minBandwidthGBps` wide: each node's
// latency, and whether every link of its path was measured.
struct LowestLatency
{
    std::vector<double> latencyUs;
    std::vector<char> measured;
};

LowestLatency lowestLatencyFrom(const Graph &graph, int source, double minBandwidthGBps)
{
    const double unreachable = std::numeric_limits<double>::infinity();
    LowestLatency result{std::vector<double>(graph.size(), unreachable),
                         std::vector<char>(graph.size(), 0)};
    std::vector<double> &latency = result.latencyUs;
    latency[static_cast<size_t>(source)] = 0;
    result.measured[static_cast<size_t>(source)] = 1;
    using Entry = std::pair<double, int>; // latency, node; lowest first
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue;
    queue.push({0.0, source});
    while (!queue.empty()) {
        const auto [l, node] = queue.top();
        queue.pop();
        if (l > latency[static_cast<size_t>(node)])
            continue;
        for (const Edge &e : graph[static_cast<size_t>(node)]) {
            if (e.bandwidthGBps < minBandwidthGBps)
                continue;
            const double through = l + e.latencyUs;
            if (through < latency[static_cast<size_t>(e.to)]) {
                latency[static_cast<size_t>(e.to)] = through;
                result.measured[static_cast<size_t>(e.to)]
                    = char(result.measured[static_cast<size_t>(node)] && e.measured);
                queue.push({through, e.to});
            }
        }
    }
    return result;
}

long long pairKey(int a, int b)
{
    return static_cast<long long>(std::min(a, b)) * kMaxGpus + std::max(a, b);
}

} // namespace

struct Topology::KindPaths
{
    std::once_flag once;
    MachinePaths ethernet;
    MachinePaths infiniBand;
    MachinePaths roce;
};

// Machine pairs: the widest path, then among paths that wide the lowest latency. The two
// criteria are computed separately because "widest, then fastest" is not a label Dijkstra
// can settle in one pass (a wide slow prefix may lose to a narrow fast one further on).
Topology::MachinePaths Topology::computePaths(const std::vector<NetworkLink> &links, int nodeCount,
                                              int machineCount, std::optional<LinkKind> only)
{
    Graph graph(static_cast<size_t>(nodeCount));
    for (const NetworkLink &link : links) {
        if (only && link.kind != *only)
            continue;
        graph[static_cast<size_t>(link.a)].push_back(
            {link.b, link.bandwidthGBps, link.latencyUs, link.measured});
        graph[static_cast<size_t>(link.b)].push_back(
            {link.a, link.bandwidthGBps, link.latencyUs, link.measured});
    }
    MachinePaths paths;
    const size_t cells = static_cast<size_t>(machineCount) * static_cast<size_t>(machineCount);
    paths.bandwidthGBps.assign(cells, 0.0);
    paths.latencyUs.assign(cells, 0.0);
    paths.measured.assign(cells, 0);
    // Machines attached to the same nodes by equal links ("twins": the boxes of one rack) have
    // the same paths to every other machine, so one search serves them all: a rack of 32 costs
    // one search instead of 32, which is what keeps kMaxMachines machines fast.
    std::map<std::vector<std::tuple<int, double, double, bool>>, int> twinOf;
    const auto cell
        = [machineCount](int a, int b) { return size_t(a) * size_t(machineCount) + size_t(b); };
    for (int source = 0; source < machineCount; ++source) {
        std::vector<std::tuple<int, double, double, bool>> attachment;
        for (const Edge &e : graph[static_cast<size_t>(source)])
            attachment.emplace_back(e.to, e.bandwidthGBps, e.latencyUs, e.measured);
        std::sort(attachment.begin(), attachment.end());
        const auto [twin, first] = twinOf.try_emplace(std::move(attachment), source);
        if (!first) {
            for (int target = source + 1; target < machineCount; ++target) {
                paths.bandwidthGBps[cell(source, target)]
                    = paths.bandwidthGBps[cell(target, source)]
                    = paths.bandwidthGBps[cell(twin->second, target)];
                paths.latencyUs[cell(source, target)] = paths.latencyUs[cell(target, source)]
                    = paths.latencyUs[cell(twin->second, target)];
                paths.measured[cell(source, target)] = paths.measured[cell(target, source)]
                    = paths.measured[cell(twin->second, target)];
            }
            continue;
        }
        const std::vector<double> width = widestFrom(graph, source);
        std::vector<double> thresholds;
        for (int target = source + 1; target < machineCount; ++target)
            if (width[static_cast<size_t>(target)] > 0)
                thresholds.push_back(width[static_cast<size_t>(target)]);
        std::sort(thresholds.begin(), thresholds.end());
        thresholds.erase(std::unique(thresholds.begin(), thresholds.end()), thresholds.end());
        for (const double threshold : thresholds) {
            const LowestLatency lowest = lowestLatencyFrom(graph, source, threshold);
            for (int target = source + 1; target < machineCount; ++target) {
                if (width[static_cast<size_t>(target)] != threshold)
                    continue;
                const size_t forward = static_cast<size_t>(source * machineCount + target);
                const size_t backward = static_cast<size_t>(target * machineCount + source);
                paths.bandwidthGBps[forward] = paths.bandwidthGBps[backward] = threshold;
                paths.latencyUs[forward] = paths.latencyUs[backward]
                    = lowest.latencyUs[static_cast<size_t>(target)];
                paths.measured[forward] = paths.measured[backward]
                    = lowest.measured[static_cast<size_t>(target)];
            }
        }
    }
    return paths;
}

const Topology::MachinePaths &Topology::restrictedPaths(PathKind path) const
{
    assert(m_kindPaths);
    KindPaths &kinds = *m_kindPaths;
    std::call_once(kinds.once, [&] {
        kinds.ethernet = computePaths(m_links, m_nodeCount, m_machineCount, LinkKind::Ethernet);
        kinds.infiniBand = computePaths(m_links, m_nodeCount, m_machineCount, LinkKind::InfiniBand);
        kinds.roce = computePaths(m_links, m_nodeCount, m_machineCount, LinkKind::Roce);
    });
    switch (path) {
    case PathKind::Ethernet:
        return kinds.ethernet;
    case PathKind::InfiniBand:
        return kinds.infiniBand;
    case PathKind::Roce:
        return kinds.roce;
    case PathKind::Widest:
        break;
    }
    return m_widest;
}

// Machine and switch names share one namespace (links refer to either): the node index of
// each name, and the field that named it, for "duplicate name" messages.
struct Topology::NodeNames
{
    std::unordered_map<std::string, int> index;
    std::unordered_map<std::string, std::string> field;

    Status claim(const std::string &name, const std::string &where, int node)
    {
        if (name.empty())
            return badInput(where + ".name: must not be empty");
        if (name.find(':') != std::string::npos)
            return badInput(where + ".name: " + quoted(name)
                            + " contains ':', which separates machine and GPU index");
        if (const auto it = field.find(name); it != field.end())
            return badInput(where + ".name: duplicate name " + quoted(name) + " (also " + it->second
                            + "); machine and switch names must be unique");
        index.emplace(name, node);
        field.emplace(name, where);
        return okStatus();
    }
};

Result<Topology> Topology::build(const Cluster &cluster, std::span<const GpuType> catalog)
{
    Topology t;
    t.m_cluster = cluster;
    NodeNames names;
    if (Status s = t.checkMachinesAndSwitches(names); !s)
        return s.error();
    if (Status s = t.resolveGpus(catalog); !s)
        return s.error();
    if (Status s = t.addNetworkLinks(names); !s)
        return s.error();
    if (Status s = t.checkPathWork(); !s)
        return s.error();
    t.computeWidestPaths();
    if (Status s = t.addPairOverrides(); !s)
        return s.error();
    t.resolveTransports();
    return t;
}

Status Topology::checkMachinesAndSwitches(NodeNames &names)
{
    const std::vector<Machine> &machines = m_cluster.machines;
    if (machines.size() > static_cast<size_t>(kMaxMachines))
        return badInput("machines: " + std::to_string(machines.size()) + " machines; at most "
                        + std::to_string(kMaxMachines));
    long long gpuTotal = 0;
    for (size_t i = 0; i < machines.size(); ++i) {
        const Machine &m = machines[i];
        const std::string field = indexed("machines", i);
        if (Status s = names.claim(m.name, field, static_cast<int>(i)); !s)
            return s;
        if (m.count < 1 || m.count > kMaxGpusPerMachine)
            return badInput(field + ".count: must be between 1 and "
                            + std::to_string(kMaxGpusPerMachine) + ", got "
                            + std::to_string(m.count));
        gpuTotal += m.count;
        if (Status s = checkLinkValue(m.intra.bandwidthGBps, field + ".intra.bandwidth_GBps"); !s)
            return s;
        if (Status s = checkLinkValue(m.intra.latencyUs, field + ".intra.latency_us"); !s)
            return s;
    }
    if (gpuTotal > kMaxGpus)
        return badInput("machines: " + std::to_string(gpuTotal) + " GPUs in total; at most "
                        + std::to_string(kMaxGpus));
    m_machineCount = static_cast<int>(machines.size());
    for (size_t i = 0; i < m_cluster.switches.size(); ++i)
        if (Status s = names.claim(m_cluster.switches[i].name, indexed("switches", i),
                                   m_machineCount + static_cast<int>(i));
            !s)
            return s;
    m_nodeCount = m_machineCount + static_cast<int>(m_cluster.switches.size());
    return okStatus();
}

// GPU types: the cluster's own shadow the catalog's; one resolved entry per name in use. Then
// the flat GPU list, machine by machine.
Status Topology::resolveGpus(std::span<const GpuType> catalog)
{
    const std::vector<GpuType> &own = m_cluster.gpuTypes;
    for (size_t i = 0; i < own.size(); ++i)
        for (size_t j = 0; j < i; ++j)
            if (equalsIgnoringCase(own[i].name, own[j].name))
                return badInput(indexed("gpu_types", i) + ".name: duplicate GPU type "
                                + quoted(own[i].name) + " (also " + indexed("gpu_types", j) + ")");
    const auto resolve = [&](std::string_view name) -> const GpuType * {
        for (std::span<const GpuType> types : {std::span<const GpuType>(own), catalog})
            for (const GpuType &type : types)
                if (equalsIgnoringCase(type.name, name))
                    return &type;
        return nullptr;
    };
    const auto knownTypes = [&] {
        std::string list;
        for (const GpuType &type : own)
            list += (list.empty() ? "" : ", ") + type.name;
        for (const GpuType &type : catalog) {
            const auto shadows
                = [&](const GpuType &mine) { return equalsIgnoringCase(mine.name, type.name); };
            if (std::none_of(own.begin(), own.end(), shadows))
                list += (list.empty() ? "" : ", ") + type.name;
        }
        return list.empty() ? std::string("(none)") : list;
    };

    std::unordered_map<const GpuType *, int> typeIndexOf;
    const std::vector<Machine> &machines = m_cluster.machines;
    size_t gpuTotal = 0;
    for (const Machine &m : machines)
        gpuTotal += size_t(m.count);
    m_gpus.reserve(gpuTotal);
    for (size_t i = 0; i < machines.size(); ++i) {
        const Machine &m = machines[i];
        const GpuType *type = resolve(m.gpu);
        if (!type)
            return badInput(indexed("machines", i) + ".gpu: unknown GPU type " + quoted(m.gpu)
                            + "; known: " + knownTypes()
                            + " (or define it in the cluster's gpu_types)");
        auto [it, added] = typeIndexOf.emplace(type, static_cast<int>(m_types.size()));
        if (added)
            m_types.push_back(*type);
        m_machineFirstGpu.push_back(static_cast<int>(m_gpus.size()));
        for (int local = 0; local < m.count; ++local)
            m_gpus.push_back(
                {static_cast<int>(i), local, m.name + ":" + std::to_string(local), it->second});
    }
    return okStatus();
}

Status Topology::addNetworkLinks(const NodeNames &names)
{
    // A link whose bandwidth the cluster's origin records as measured ("/links/A/B/
    // bandwidth_GBps", an imported probe or nccl-tests log): its figures are achieved rates.
    constexpr std::string_view kLinkPrefix = "/links/";
    constexpr std::string_view kLinkSuffix = "/bandwidth_GBps";
    std::unordered_set<std::string_view> measuredEnds; // "A/B" of each measured link
    for (const MeasuredFigure &figure : m_cluster.origin.figures) {
        const std::string_view field = figure.field;
        if (field.size() > kLinkPrefix.size() + kLinkSuffix.size() && field.starts_with(kLinkPrefix)
            && field.ends_with(kLinkSuffix))
            measuredEnds.insert(field.substr(kLinkPrefix.size(), field.size() - kLinkPrefix.size()
                                                                     - kLinkSuffix.size()));
    }
    const auto measuredLink = [&](const Link &link) {
        if (measuredEnds.empty())
            return false;
        std::string ends = link.a;
        ends += '/';
        ends += link.b;
        if (measuredEnds.contains(ends))
            return true;
        ends = link.b;
        ends += '/';
        ends += link.a;
        return measuredEnds.contains(ends);
    };
    for (size_t i = 0; i < m_cluster.links.size(); ++i) {
        const Link &link = m_cluster.links[i];
        const std::string field = indexed("links", i);
        const auto a = names.index.find(link.a);
        if (a == names.index.end())
            return badInput(field + ".a: " + quoted(link.a) + " is neither a machine nor a switch");
        const auto b = names.index.find(link.b);
        if (b == names.index.end())
            return badInput(field + ".b: " + quoted(link.b) + " is neither a machine nor a switch");
        if (a->second == b->second)
            return badInput(field + ": links " + quoted(link.a)
                            + " to itself; a link joins two different nodes");
        if (Status s = checkLinkValue(link.bandwidthGBps, field + ".bandwidth_GBps"); !s)
            return s;
        if (Status s = checkLinkValue(link.latencyUs, field + ".latency_us"); !s)
            return s;
        if (link.bandwidthGBps == 0)
            continue; // a cut link carries nothing
        m_links.push_back({a->second, b->second, link.kind, link.bandwidthGBps, link.latencyUs,
                           measuredLink(link)});
        m_anyMeasuredLink = m_anyMeasuredLink || m_links.back().measured;
    }
    return okStatus();
}

// Each source runs one lowest-latency search per distinct width it sees, so the work grows with
// the number of distinct link bandwidths; refuse networks beyond a fixed budget rather than hang
// on them. A kind's paths use a subset of these links and widths, so each costs at most this.
Status Topology::checkPathWork() const
{
    std::vector<double> distinctWidths;
    for (const Link &link : m_cluster.links)
        distinctWidths.push_back(link.bandwidthGBps);
    std::sort(distinctWidths.begin(), distinctWidths.end());
    distinctWidths.erase(std::unique(distinctWidths.begin(), distinctWidths.end()),
                         distinctWidths.end());
    const size_t machines = m_cluster.machines.size();
    const double searchesPerSource = 1.0 + double(std::min(distinctWidths.size(), machines));
    const double pathWork = double(machines) * searchesPerSource
                            * double(size_t(m_nodeCount) + 2 * m_cluster.links.size());
    if (pathWork > kMaxPathWork)
        return badInput("links: " + std::to_string(machines) + " machines joined by "
                        + std::to_string(m_cluster.links.size()) + " links with "
                        + std::to_string(distinctWidths.size())
                        + " distinct bandwidths are more than HetPlan computes paths for; round "
                          "the bandwidths to fewer distinct values or connect machines through "
                          "switches");
    return okStatus();
}

void Topology::computeWidestPaths()
{
    m_widest = computePaths(m_links, m_nodeCount, m_machineCount, std::nullopt);
    m_kindPaths = std::make_shared<KindPaths>();
    const auto hasNic = [&](NicKind nic) {
        return std::any_of(m_cluster.machines.begin(), m_cluster.machines.end(),
                           [nic](const Machine &m) { return m.nic == nic; });
    };
    m_mixesRdmaNics = hasNic(NicKind::InfiniBand) && hasNic(NicKind::Roce);
    m_measuredIntra.assign(m_cluster.machines.size(), false);
    // Only intra figures reach the machine loop, compared without building a string each: an
    // imported cluster has a figure or two per machine.
    constexpr std::string_view kIntraPrefix = "/machines/";
    constexpr std::string_view kIntraSuffix = "/intra/bandwidth_GBps";
    for (const MeasuredFigure &figure : m_cluster.origin.figures) {
        const std::string_view field = figure.field;
        if (field.size() < kIntraPrefix.size() + kIntraSuffix.size()
            || !field.starts_with(kIntraPrefix) || !field.ends_with(kIntraSuffix))
            continue;
        const std::string_view name = field.substr(
            kIntraPrefix.size(), field.size() - kIntraPrefix.size() - kIntraSuffix.size());
        for (size_t m = 0; m < m_cluster.machines.size(); ++m)
            if (m_cluster.machines[m].name == name)
                m_measuredIntra[m] = true;
    }
    if (!m_links.empty() && std::all_of(m_links.begin(), m_links.end(), [&](const NetworkLink &l) {
            return l.kind == m_links.front().kind;
        }))
        m_onlyLinkKind = m_links.front().kind;
}

// Measured pairs (usually from a probe) win over the links for their two GPUs.
Status Topology::addPairOverrides()
{
    std::unordered_map<long long, size_t> overrideField;
    const std::string gpuNamingHint = "; GPUs are named machine:index"
                                      + (m_gpus.empty() ? std::string(" and this cluster has none")
                                                        : ", e.g. " + quoted(m_gpus.front().name));
    for (size_t i = 0; i < m_cluster.pairOverrides.size(); ++i) {
        const PairOverride &o = m_cluster.pairOverrides[i];
        const std::string field = indexed("pair_overrides", i);
        const std::optional<int> a = findGpu(o.a);
        if (!a)
            return badInput(field + ".a: unknown GPU " + quoted(o.a) + gpuNamingHint);
        const std::optional<int> b = findGpu(o.b);
        if (!b)
            return badInput(field + ".b: unknown GPU " + quoted(o.b) + gpuNamingHint);
        if (*a == *b)
            return badInput(field + ": " + quoted(o.a) + " paired with itself");
        if (Status s = checkLinkValue(o.bandwidthGBps, field + ".bandwidth_GBps"); !s)
            return s;
        if (Status s = checkLinkValue(o.latencyUs, field + ".latency_us"); !s)
            return s;
        const long long key = pairKey(*a, *b);
        if (const auto seen = overrideField.find(key); seen != overrideField.end())
            return badInput(field + ": the pair " + o.a + " / " + o.b + " is already measured by "
                            + indexed("pair_overrides", seen->second));
        overrideField.emplace(key, i);
        m_overrides.emplace(key, PairValue{o.bandwidthGBps, o.latencyUs});
    }
    return okStatus();
}

std::optional<int> Topology::findGpu(std::string_view name) const
{
    const size_t colon = name.rfind(':');
    if (colon == std::string_view::npos)
        return std::nullopt;
    const std::string_view machineName = name.substr(0, colon);
    const std::string_view indexText = name.substr(colon + 1);
    int local = -1;
    const auto [end, error]
        = std::from_chars(indexText.data(), indexText.data() + indexText.size(), local);
    if (error != std::errc() || end != indexText.data() + indexText.size() || local < 0)
        return std::nullopt;
    for (size_t m = 0; m < m_cluster.machines.size(); ++m) {
        if (m_cluster.machines[m].name != machineName)
            continue;
        if (local >= m_cluster.machines[m].count)
            return std::nullopt;
        return m_machineFirstGpu[m] + local;
    }
    return std::nullopt;
}

// The pair rules of the class comment, over the given machine-pair table.
inline double Topology::pairValue(int a, int b, const std::vector<double> &machineTable,
                                  double PairValue::*measured, double IntraLink::*intra) const
{
    assert(a != b && a >= 0 && b >= 0 && a < gpuCount() && b < gpuCount());
    if (!m_overrides.empty())
        if (const auto it = m_overrides.find(pairKey(a, b)); it != m_overrides.end())
            return it->second.*measured;
    const int ma = m_gpus[static_cast<size_t>(a)].machine;
    const int mb = m_gpus[static_cast<size_t>(b)].machine;
    if (ma == mb)
        return m_cluster.machines[static_cast<size_t>(ma)].intra.*intra;
    return machineTable[static_cast<size_t>(ma * m_machineCount + mb)];
}

double Topology::bandwidthGBps(int a, int b) const
{
    return pairValue(a, b, m_widest.bandwidthGBps, &PairValue::bandwidthGBps,
                     &IntraLink::bandwidthGBps);
}

double Topology::latencyUs(int a, int b) const
{
    return pairValue(a, b, m_widest.latencyUs, &PairValue::latencyUs, &IntraLink::latencyUs);
}

double Topology::restrictedBandwidthGBps(int a, int b, PathKind path) const
{
    return pairValue(a, b, restrictedPaths(path).bandwidthGBps, &PairValue::bandwidthGBps,
                     &IntraLink::bandwidthGBps);
}

double Topology::restrictedLatencyUs(int a, int b, PathKind path) const
{
    return pairValue(a, b, restrictedPaths(path).latencyUs, &PairValue::latencyUs,
                     &IntraLink::latencyUs);
}

bool Topology::measuredPair(int a, int b, PathKind path) const
{
    if (!m_overrides.empty() && m_overrides.contains(pairKey(a, b)))
        return true;
    const int ma = m_gpus[static_cast<size_t>(a)].machine;
    const int mb = m_gpus[static_cast<size_t>(b)].machine;
    if (ma == mb)
        return m_measuredIntra[static_cast<size_t>(ma)];
    return m_anyMeasuredLink
           && pathsOf(path).measured[static_cast<size_t>(ma * m_machineCount + mb)] != 0;
}

LinkKind Topology::pairKind(int a, int b, PathKind path) const
{
    const int ma = m_gpus[static_cast<size_t>(a)].machine;
    const int mb = m_gpus[static_cast<size_t>(b)].machine;
    if (ma == mb)
        return m_cluster.machines[static_cast<size_t>(ma)].intra.kind;
    switch (path) {
    case PathKind::Ethernet:
        return LinkKind::Ethernet;
    case PathKind::InfiniBand:
        return LinkKind::InfiniBand;
    case PathKind::Roce:
        return LinkKind::Roce;
    case PathKind::Widest:
        break;
    }
    if (m_onlyLinkKind)
        return *m_onlyLinkKind;
    // The widest path is of one kind when that kind's own paths reach as wide.
    const double widest = machineBandwidthGBps(ma, mb);
    for (const auto &[kind, link] : {std::pair{PathKind::InfiniBand, LinkKind::InfiniBand},
                                     std::pair{PathKind::Roce, LinkKind::Roce}})
        if (widest > 0 && machineBandwidthGBps(ma, mb, kind) >= widest)
            return link;
    return LinkKind::Ethernet;
}

double Topology::machineBandwidthGBps(int ma, int mb) const
{
    return machineBandwidthGBps(ma, mb, PathKind::Widest);
}

double Topology::machineLatencyUs(int ma, int mb) const
{
    return machineLatencyUs(ma, mb, PathKind::Widest);
}

double Topology::machineBandwidthGBps(int ma, int mb, PathKind path) const
{
    assert(ma >= 0 && mb >= 0 && ma < m_machineCount && mb < m_machineCount);
    return pathsOf(path).bandwidthGBps[static_cast<size_t>(ma * m_machineCount + mb)];
}

double Topology::machineLatencyUs(int ma, int mb, PathKind path) const
{
    assert(ma >= 0 && mb >= 0 && ma < m_machineCount && mb < m_machineCount);
    return pathsOf(path).latencyUs[static_cast<size_t>(ma * m_machineCount + mb)];
}

// Once per Topology: every evaluation of it reads these (docs/cost-models.md, "Transports and
// ring scale").
void Topology::resolveTransports()
{
    for (const TransportFigures &t : defaultTransports()) {
        const TransportFigures &used = transportFigures(m_cluster, t.kind);
        const bool own = std::any_of(m_cluster.transports.begin(), m_cluster.transports.end(),
                                     [&](const TransportFigures &c) { return c.kind == t.kind; });
        m_transports[static_cast<size_t>(t.kind)]
            = {used.efficiency,      used.latencyUs * 1e-6,  used.latencyFactor,
               used.lossPerDoubling, used.ceilingGBps * 1e9, own};
    }
}

double Topology::effectiveBandwidthBytesPerS(int a, int b, PathKind path) const
{
    const double nominal = bandwidthBytesPerS(a, b, path);
    const EffectiveTransport &t = transportOf(a, b, path);
    if (!t.appliesToMeasured && measuredPair(a, b, path))
        return nominal;
    const double achieved = nominal * t.efficiency;
    if (t.ceilingBytesPerS <= 0 || achieved <= 0)
        return achieved;
    return 1 / (1 / achieved + 1 / t.ceilingBytesPerS);
}

double Topology::effectiveLatencyS(int a, int b, PathKind path) const
{
    const double wire = latencyS(a, b, path);
    const EffectiveTransport &t = transportOf(a, b, path);
    if (!t.appliesToMeasured && measuredPair(a, b, path))
        return wire;
    return (wire + t.latencyS) * t.latencyFactor;
}

double Topology::ringScaleFactor(LinkKind kind, int machines) const
{
    if (machines <= 2)
        return 1;
    const double loss = m_transports[static_cast<size_t>(kind)].lossPerDoubling;
    return std::pow(1.0 - loss, std::log2(double(machines)) - 1.0);
}

} // namespace hetplan
