// Evidence → Cluster (docs/import.md, "Which figure wins" and "Links between machines"): each
// field takes its highest-priority figures, and records where they came from in `origin`.
#include "core/import/import_evidence.h"
#include "core/import/text_lines.h"
#include "core/io/catalog_json.h"
#include "core/io/cluster_check.h"
#include "core/model/topology.h"

#include <algorithm>
#include <cmath>

namespace hetplan::importing {
namespace {

// A measured pair whose figure is this far from what its links give becomes a pair override.
constexpr double kNotableRatio = 0.25;
constexpr double kNotableLatencyUs = 1;

// Which tool a chosen figure's priority stands for, as the cluster's origin records it.
MeasuredBy measuredBy(Priority priority)
{
    switch (priority) {
    case Priority::ProbeCopy:
    case Priority::ProbePair:
        return MeasuredBy::Probe;
    case Priority::NcclTests:
        return MeasuredBy::NcclTests;
    case Priority::TopoEstimate:
    case Priority::Nvbandwidth:
        break;
    }
    return MeasuredBy::Unspecified;
}

NicKind nicOf(LinkKind network)
{
    if (network == LinkKind::InfiniBand)
        return NicKind::InfiniBand;
    return network == LinkKind::Roce ? NicKind::Roce : NicKind::Ethernet;
}

double median(std::vector<double> values)
{
    std::ranges::sort(values);
    const std::size_t n = values.size();
    return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

bool notablyDifferent(double measured, double modelled, double floor = 0)
{
    return std::abs(measured - modelled) > std::max(kNotableRatio * modelled, floor);
}

class Builder
{
public:
    explicit Builder(Evidence evidence)
        : m_evidence(std::move(evidence))
    {}

    Result<ImportResult> build()
    {
        Cluster &c = m_result.cluster;
        c.name = m_evidence.options.clusterName;
        c.description = "imported from " + std::to_string(m_evidence.sources.size())
                        + " measurement file(s) by hetplan-cli import";
        c.origin.sources = m_evidence.sources;
        if (m_evidence.machines.empty())
            return badInput("no machine: the inputs name no host (give a probe file or an "
                            "nccl-tests log)");
        for (const TypeDraft &t : m_evidence.types)
            if (auto status = type(t); !status)
                return status.error();
        for (const MachineDraft &m : m_evidence.machines)
            machine(m);
        network();
        // Overrides compare measured pairs with the links; without such pairs (logs of three or
        // more machines alone) there is nothing to compare, and no topology to build for it.
        if (!m_evidence.gpuPairs.empty() || !m_evidence.machinePairs.empty()) {
            auto topology = Topology::build(c, builtinGpuCatalog());
            if (!topology)
                return badInput("the cluster imported from " + sourcesText()
                                + " is not valid: " + topology.error().message);
            overrides(*topology);
        }
        // What is written must read back unchanged (names and texts within the format's limits).
        if (Status valid = checkCluster(c, "the cluster imported from " + sourcesText()); !valid)
            return withOrigin(valid.error());
        m_result.notes.insert(m_result.notes.begin(), m_evidence.notes.begin(),
                              m_evidence.notes.end());
        return std::move(m_result);
    }

private:
    void record(const std::string &field, const std::string &value, const Candidate &from)
    {
        MeasuredFigure f{field, from.source, from.how, measuredBy(from.priority)};
        m_result.cluster.origin.figures.push_back(f);
        m_result.figures.push_back({f, value});
        m_filePaths.push_back(filePathOf(field));
    }

    void record(const std::string &field, double value, const Candidate &from)
    {
        record(field, figureText(value, 6), from);
    }

    // Where `field` ("/links/A/B/bandwidth_GBps") is in the written file ("links[3].
    // bandwidth_GBps"), as the cluster check names it: a type and a machine are added after
    // their figures are recorded, a link and an override before.
    std::string filePathOf(const std::string &field) const
    {
        const Cluster &c = m_result.cluster;
        const std::string leaf = field.substr(field.find_last_of('/') + 1);
        const auto at = [&](const char *array, std::size_t index, const char *inner = "") {
            return std::string(array) + "[" + std::to_string(index) + "]." + inner + leaf;
        };
        if (field.starts_with("/gpu_types/"))
            return at("gpu_types", c.gpuTypes.size());
        if (field.starts_with("/machines/"))
            return at("machines", c.machines.size(), "intra.");
        if (field.starts_with("/links/"))
            return at("links", c.links.size() - 1);
        return at("pair_overrides", c.pairOverrides.size() - 1);
    }

    // The cluster check's error with the input the refused figure came from in front:
    // "all_reduce_perf.log:38: /links/A/B/bandwidth_GBps = 2e+07 (how): the cluster imported
    // from …: links[0].bandwidth_GBps: … is out of range …".
    Error withOrigin(const Error &error) const
    {
        for (std::size_t i = 0; i < m_filePaths.size(); ++i) {
            if (error.message.find(": " + m_filePaths[i] + ":") == std::string::npos)
                continue;
            const ImportedFigure &f = m_result.figures[i];
            std::string message = f.figure.source;
            message += ": ";
            message += f.figure.field + " = " + f.value + " (" + f.figure.how + ") is refused: ";
            message += error.message;
            return badInput(message);
        }
        return error;
    }

    Status type(const TypeDraft &draft)
    {
        GpuType t = draft.type;
        const std::string path = "/gpu_types/" + t.name + "/";
        const auto tflops = draft.tflops.chosen();
        const auto memory = draft.memoryGiB.chosen();
        const auto bandwidth = draft.memoryBandwidthGBps.chosen();
        if (draft.custom) {
            if (!tflops)
                return badInput(t.name
                                + ": no GEMM throughput was measured, and it is no "
                                  "catalog type; re-run the probe without --no-gemm flags "
                                  "or import a probe file that measured it");
            t.tflops = tflops->value;
            record(path + "tflops", t.tflops, *tflops);
            if (memory)
                t.memoryGiB = memory->value;
            if (bandwidth)
                t.memoryBandwidthGBps = bandwidth->value;
            if (t.memoryGiB <= 0 || t.memoryBandwidthGBps <= 0)
                return badInput(t.name + ": its memory " + (t.memoryGiB <= 0 ? "size" : "bandwidth")
                                + " was not measured, and it is no catalog type; import a probe "
                                  "file that measured it");
        } else if (!tflops && !memory && !bandwidth && draft.layers.empty()) {
            return okStatus(); // the catalog's entry as it is
        } else if (tflops) {
            t.achievedFraction = std::clamp(tflops->value / t.tflops, 1e-6, 1.0);
            Candidate how = *tflops;
            how.how = "measured " + figureText(tflops->value) + " TFLOPS / catalog peak "
                      + figureText(t.tflops) + " TFLOPS; " + tflops->how;
            record(path + "achieved_fraction", t.achievedFraction, how);
            t.source = "catalog entry with figures measured by hetplan-probe";
        }
        if (memory) {
            t.memoryGiB = memory->value;
            record(path + "memory_GiB", t.memoryGiB, *memory);
        }
        if (bandwidth) {
            t.memoryBandwidthGBps = bandwidth->value;
            record(path + "membw_GBps", t.memoryBandwidthGBps, *bandwidth);
        }
        addLayers(t, draft, path);
        m_result.cluster.gpuTypes.push_back(std::move(t));
        return okStatus();
    }

    // One table per model shape, sequence length and TP degree: of the hosts that measured it,
    // the one in the middle by its total time (docs/import.md, "Probe files").
    void addLayers(GpuType &t, const TypeDraft &draft, const std::string &path)
    {
        using Key = std::tuple<std::string, int, int>;
        std::map<Key, std::vector<const std::pair<MeasuredLayerTable, Candidate> *>> byKey;
        for (const auto &layer : draft.layers)
            byKey[{layer.first.modelShape, layer.first.seqLen, layer.first.tp}].push_back(&layer);
        const auto totalS = [](const MeasuredLayerTable &table) {
            double s = 0;
            for (const LayerTimes &p : table.points)
                s += p.forwardS + p.backwardS;
            return s;
        };
        for (auto &[key, hosts] : byKey) {
            std::ranges::sort(hosts, {}, [&](const auto *layer) { return totalS(layer->first); });
            const auto &[table, from] = *hosts[(hosts.size() - 1) / 2];
            MeasuredLayerTable kept = table;
            kept.achievedFraction = t.achievedFraction;
            Candidate how = from;
            if (hosts.size() > 1)
                how.how += "; the middle of " + std::to_string(hosts.size()) + " hosts";
            record(path + "measured_layers/" + std::to_string(t.measuredLayers.size()),
                   totalS(kept), how);
            t.measuredLayers.push_back(std::move(kept));
        }
    }

    const GpuType &typeOf(const std::string &name) const
    {
        for (const GpuType &t : m_result.cluster.gpuTypes)
            if (t.name == name)
                return t;
        return *builtinGpuCatalog().find(name);
    }

    // The machine's GPU pairs as one figure: the median of the pairs' chosen figures at the
    // highest priority any pair has.
    std::optional<Candidate> fromPairs(const MachineDraft &m, Figures PairDraft::*field) const
    {
        std::vector<Candidate> chosen;
        const std::string prefix = m.name + ":";
        for (auto it = m_evidence.gpuPairs.lower_bound({prefix, {}});
             it != m_evidence.gpuPairs.end() && it->first.first.starts_with(prefix); ++it)
            if (auto c = (it->second.*field).chosen())
                chosen.push_back(*c);
        if (chosen.empty())
            return std::nullopt;
        const Priority best = std::ranges::max(chosen, {}, &Candidate::priority).priority;
        std::vector<double> values;
        for (const Candidate &c : chosen)
            if (c.priority == best)
                values.push_back(c.value);
        // A few measured pairs (the NVLink pairs of a mostly-PCIe box) describe themselves, not
        // the machine: they become overrides.
        if (2 * values.size() < std::size_t(m.count) * std::size_t(m.count - 1) / 2)
            return std::nullopt;
        Candidate out = *std::ranges::find(chosen, best, &Candidate::priority);
        out.value = median(values);
        out.how = "median over " + std::to_string(values.size()) + " pairs of its devices, each "
                  + out.how;
        return out;
    }

    void machine(const MachineDraft &draft)
    {
        Machine m;
        m.name = draft.name;
        m.host = draft.host;
        m.gpu = draft.gpu;
        m.count = std::max(draft.count, 1);
        m.nic = nicOf(m_evidence.options.network);
        m.intra = typeOf(m.gpu).typicalIntra;
        const std::string path = "/machines/" + m.name + "/intra/";
        if (draft.intraKind) {
            if (m.intra.kind != draft.intraKind->first)
                m.intra = IntraLink{draft.intraKind->first, IntraLink{}.bandwidthGBps,
                                    IntraLink{}.latencyUs};
            m.intra.kind = draft.intraKind->first;
            record(path + "kind", std::string(nameOf<LinkKind>(kLinkKindNames, m.intra.kind)),
                   draft.intraKind->second);
        } else if (draft.cudaDevices.empty() && m.count > 1) {
            m.intra.kind = LinkKind::Ethernet;
            record(path + "kind", "ethernet",
                   {0, Priority::ProbePair, draft.definedBy,
                    "CPU ranks of one host talk over loopback TCP (gloo-tcp)"});
        }
        Figures bandwidth = draft.intraBandwidthGBps;
        Figures latency = draft.intraLatencyUs;
        if (auto pairs = fromPairs(draft, &PairDraft::bandwidthGBps))
            bandwidth.add(*pairs);
        if (auto pairs = fromPairs(draft, &PairDraft::latencyUs))
            latency.add(*pairs);
        if (auto b = bandwidth.chosen(); b && m.count > 1) {
            m.intra.bandwidthGBps = b->value;
            record(path + "bandwidth_GBps", b->value, *b);
        } else if (m.count > 1) {
            m_result.notes.push_back(m.name + ": intra bandwidth "
                                     + figureText(m.intra.bandwidthGBps) + " GB/s is " + m.gpu
                                     + "'s typical link, not measured");
        }
        if (auto l = latency.chosen(); l && m.count > 1) {
            m.intra.latencyUs = l->value;
            record(path + "latency_us", l->value, *l);
        }
        m_result.cluster.machines.push_back(std::move(m));
    }

    void addLink(const std::string &a, const std::string &b, double bandwidthGBps, double latencyUs)
    {
        m_result.cluster.links.push_back(
            {a, b, m_evidence.options.network, bandwidthGBps, latencyUs});
    }

    // A pair's own figures and those of every run that holds both machines.
    PairDraft withRuns(const NamePair &names, const PairDraft &pair) const
    {
        PairDraft all = pair;
        if (m_evidence.runs.empty())
            return all;
        const MachineDraft *a = m_evidence.machine(names.first);
        const MachineDraft *b = m_evidence.machine(names.second);
        for (const RunDraft &run : m_evidence.runs)
            if (run.holds(m_evidence.indexOf(*a)) && run.holds(m_evidence.indexOf(*b)))
                for (Figures PairDraft::*field : {&PairDraft::bandwidthGBps, &PairDraft::latencyUs})
                    for (const Candidate &c : (run.figures.*field).candidates)
                        (all.*field).add(c);
        return all;
    }

    // Two machines: one link of their measured pair. More: a switch with one link per machine
    // (docs/import.md, "Links between machines").
    void network()
    {
        const std::vector<MachineDraft> &ms = m_evidence.machines;
        if (ms.size() < 2)
            return;
        if (ms.size() == 2) {
            const auto it = m_evidence.machinePairs.find(sortedPair(ms[0].name, ms[1].name));
            const auto b = it == m_evidence.machinePairs.end() ? std::nullopt
                                                               : it->second.bandwidthGBps.chosen();
            if (!b) {
                m_result.notes.push_back("nothing measured between " + ms[0].name + " and "
                                         + ms[1].name + ": no link drawn");
                return;
            }
            const auto l = it->second.latencyUs.chosen();
            addLink(ms[0].name, ms[1].name, b->value, l ? l->value : Link{}.latencyUs);
            const std::string path = "/links/" + ms[0].name + "/" + ms[1].name + "/";
            record(path + "bandwidth_GBps", b->value, *b);
            if (l)
                record(path + "latency_us", l->value, *l);
            return;
        }
        // Each machine's measured figures in one pass over the pairs and the runs.
        struct Measured
        {
            std::optional<Candidate> fastest;
            std::optional<Candidate> quickest;
            std::size_t pairs = 0;

            void add(const PairDraft &pair, std::size_t count)
            {
                const auto b = pair.bandwidthGBps.chosen();
                const auto l = pair.latencyUs.chosen();
                pairs += b ? count : 0;
                if (b && (!fastest || b->value > fastest->value))
                    fastest = b;
                if (l && (!quickest || l->value < quickest->value))
                    quickest = l;
            }
        };
        std::vector<Measured> measured(ms.size());
        for (const auto &[names, pair] : m_evidence.machinePairs) {
            const PairDraft all = withRuns(names, pair);
            measured[m_evidence.indexOf(*m_evidence.machine(names.first))].add(all, 1);
            measured[m_evidence.indexOf(*m_evidence.machine(names.second))].add(all, 1);
        }
        for (const RunDraft &run : m_evidence.runs)
            for (std::size_t i : run.machines)
                measured[i].add(run.figures, run.machines.size() - 1);
        std::string hub = "switch";
        while (m_evidence.machine(hub))
            hub += "-net";
        m_result.cluster.switches.push_back({hub, {}});
        for (std::size_t i = 0; i < ms.size(); ++i) {
            const MachineDraft &m = ms[i];
            auto &[fastest, quickest, pairs] = measured[i];
            if (!fastest) {
                m_result.notes.push_back("nothing measured between " + m.name
                                         + " and another machine: no link drawn");
                continue;
            }
            // A pair gets at most the narrower of its two links and at least the sum of their
            // latencies, so each link is as fast as its fastest pair and has half the lowest
            // latency; slower pairs (a congested path) become overrides.
            const double latency = quickest ? quickest->value / 2 : Link{}.latencyUs;
            addLink(m.name, hub, fastest->value, latency);
            const std::string path = "/links/" + m.name + "/" + hub + "/";
            const std::string of = " of the " + std::to_string(pairs) + " measured pairs of "
                                   + m.name + " (through a switch a pair crosses two links), ";
            fastest->how = "the fastest" + of + fastest->how;
            record(path + "bandwidth_GBps", fastest->value, *fastest);
            if (quickest) {
                quickest->how = "half the lowest latency" + of + quickest->how;
                record(path + "latency_us", latency, *quickest);
            }
        }
    }

    void override(const Topology &topology, const std::string &a, const std::string &b,
                  const PairDraft &pair)
    {
        const auto ia = topology.findGpu(a);
        const auto ib = topology.findGpu(b);
        const auto bw = pair.bandwidthGBps.chosen();
        if (!ia || !ib || !bw)
            return;
        const auto lat = pair.latencyUs.chosen();
        const double modelledBw = topology.bandwidthGBps(*ia, *ib);
        const double modelledLat = topology.latencyUs(*ia, *ib);
        if (modelledBw > 0 && !notablyDifferent(bw->value, modelledBw)
            && (!lat || !notablyDifferent(lat->value, modelledLat, kNotableLatencyUs)))
            return;
        const double latency = lat ? lat->value : modelledLat;
        m_result.cluster.pairOverrides.push_back({a, b, bw->value, latency});
        const std::string path = "/pair_overrides/" + a + "/" + b + "/";
        record(path + "bandwidth_GBps", bw->value, *bw);
        if (lat)
            record(path + "latency_us", lat->value, *lat);
    }

    void overrides(const Topology &topology)
    {
        for (const auto &[names, pair] : m_evidence.gpuPairs)
            override(topology, names.first, names.second, pair);
        // Pairs measured by themselves; a run's figure is a floor for each of its pairs, which
        // the links already give (docs/import.md, "Links between machines").
        for (const auto &[names, pair] : m_evidence.machinePairs) {
            const MachineDraft *a = m_evidence.machine(names.first);
            const MachineDraft *b = m_evidence.machine(names.second);
            const PairDraft all = withRuns(names, pair);
            for (int i = 0; i < a->count; ++i)
                for (int j = 0; j < b->count; ++j)
                    override(topology, a->gpuName(i), b->gpuName(j), all);
        }
    }

    std::string sourcesText() const
    {
        constexpr std::size_t kShown = 3;
        const std::vector<std::string> &all = m_evidence.sources;
        std::string text;
        for (std::size_t i = 0; i < all.size() && i < kShown; ++i)
            text += (i == 0 ? "" : ", ") + all[i];
        if (all.size() > kShown)
            text += " and " + std::to_string(all.size() - kShown) + " more";
        return text;
    }

    Evidence m_evidence;
    ImportResult m_result;
    std::vector<std::string> m_filePaths; // per figure: its path in the written file
};

} // namespace

Result<ImportResult> buildCluster(Evidence evidence)
{
    nameMachines(evidence);
    return Builder(std::move(evidence)).build();
}

} // namespace hetplan::importing
