// A hetplan.probe/1 file as evidence (docs/import.md, "Probe files"): its hosts become
// machines, its GPUs (or CPU ranks) GPU types with measured figures, its pairs link figures.
#include "core/import/import_evidence.h"
#include "core/import/text_lines.h"
#include "core/io/catalog_json.h"

#include <algorithm>
#include <charconv>
#include <map>

namespace hetplan::importing {
namespace {

// Whether a flag's path is `path` or a figure inside it.
bool within(const PlausibilityFlag &flag, const std::string &path)
{
    return flag.path == path || flag.path.starts_with(path + ".")
           || flag.path.starts_with(path + "[");
}

bool flagged(const Probe &probe, const std::string &path)
{
    return std::ranges::any_of(probe.flags,
                               [&](const PlausibilityFlag &f) { return within(f, path); });
}

// Which of a pair's two figures a flag concerns (docs/import.md, "Probe files"): the bandwidth
// is the median at the largest size, the latency the median at the smallest, and a
// not-monotone flag at a size compares it with the size before it. A flag on anything else of
// the pair concerns both.
struct Concerns
{
    bool bandwidth = false;
    bool latency = false;
};

Concerns concerns(const PlausibilityFlag &flag, const std::string &pairPath, std::size_t sizes)
{
    const std::string_view rest = std::string_view(flag.path).substr(pairPath.size());
    if (rest.starts_with(".bandwidth_GBps"))
        return {true, false};
    if (rest.starts_with(".latency_us"))
        return {false, true};
    constexpr std::string_view kSizes = ".sizes[";
    std::size_t index = 0;
    if (!rest.starts_with(kSizes)
        || std::from_chars(rest.data() + kSizes.size(), rest.data() + rest.size(), index).ec
               != std::errc())
        return {true, true};
    const std::size_t earliest = flag.check == "not-monotone" && index > 0 ? index - 1 : index;
    return {index + 1 >= sizes, earliest == 0};
}

// A layer's GEMMs together: total FLOP over total time, so each shape weighs by its work.
std::optional<double> layerTflops(const std::vector<GemmFigure> &gemms)
{
    double flop = 0;
    double seconds = 0;
    for (const GemmFigure &g : gemms) {
        if (g.tflops.median <= 0)
            return std::nullopt;
        const double f = 2.0 * g.m * g.n * g.k;
        flop += f;
        seconds += f / (g.tflops.median * 1e12);
    }
    if (seconds <= 0)
        return std::nullopt;
    return flop / seconds / 1e12;
}

std::string gemmHow(const std::vector<GemmFigure> &gemms, const ProbeSettings &settings)
{
    std::string labels;
    for (const GemmFigure &g : gemms)
        labels += (labels.empty() ? "" : ", ") + g.label;
    return "FLOP-weighted " + gemms.front().method + " throughput of the " + labels + " GEMMs of "
           + settings.model + " (micro-batch " + std::to_string(settings.microBatch) + ", seq-len "
           + std::to_string(settings.seqLen) + ", TP " + std::to_string(settings.tp)
           + "), medians of " + std::to_string(gemms.front().tflops.repetitions);
}

class ProbeReader
{
public:
    ProbeReader(Evidence &evidence, const Probe &probe, const std::string &source)
        : m_evidence(evidence)
        , m_probe(probe)
        , m_source(source)
    {}

    Status read()
    {
        m_evidence.sources.push_back(m_source);
        std::map<int, std::size_t> ranks; // rank → its host entry
        for (std::size_t h = 0; h < m_probe.hosts.size(); ++h) {
            const ProbedHost &entry = m_probe.hosts[h];
            const std::string path = "hosts[" + std::to_string(h) + "]";
            if (const auto [it, added] = ranks.emplace(entry.rank, h); !added)
                return badInput(at(path + ".rank") + ": rank " + std::to_string(entry.rank)
                                + " is also hosts[" + std::to_string(it->second)
                                + "]'s; each rank of a probe run is one host entry");
            if (hasControlCharacter(entry.name))
                return badInput(at(path + ".name") + ": " + quotedForMessage(entry.name)
                                + " holds a control character; valid: printable text");
            if (hostOf(entry.name).empty())
                return badInput(at(path + ".name") + ": " + quotedForMessage(entry.name)
                                + " names no host; valid: a host name, \"node-a\" or "
                                  "\"node-a#2\" for its second CPU rank");
            if (auto status = host(h); !status)
                return status;
        }
        for (std::size_t p = 0; p < m_probe.pairs.size(); ++p)
            if (auto status = pair(p); !status)
                return status;
        return okStatus();
    }

private:
    std::string at(const std::string &path) const { return m_source + ": " + path; }

    TypeDraft &typeFor(const std::string &name, const std::string &catalog)
    {
        if (TypeDraft *t = m_evidence.type(name))
            return *t;
        TypeDraft draft;
        if (const GpuType *known = catalog.empty() ? nullptr : builtinGpuCatalog().find(catalog)) {
            draft.type = *known;
            draft.custom = false;
        } else {
            draft.type.name = name;
            // Measured at the model's layer shapes, the throughput is already what is achieved.
            draft.type.achievedFraction = 1;
            draft.type.source = "measured by hetplan-probe (" + m_source + ")";
        }
        m_evidence.types.push_back(std::move(draft));
        return m_evidence.types.back();
    }

    // `gemmPath` and `memoryPath`: "hosts[0].cpu_gemm" or "hosts[0].gpus[1].gemm", and so on.
    void addCompute(TypeDraft &type, const std::string &gemmPath, const std::string &memoryPath,
                    const std::vector<GemmFigure> &gemms, const std::optional<MemoryFigure> &memory)
    {
        const auto tflops = layerTflops(gemms);
        if (tflops && !flagged(m_probe, gemmPath))
            type.tflops.add(
                {*tflops, Priority::ProbePair, at(gemmPath), gemmHow(gemms, m_probe.settings)});
        if (memory && memory->bandwidthGBps.median > 0 && !flagged(m_probe, memoryPath))
            type.memoryBandwidthGBps.add({memory->bandwidthGBps.median, Priority::ProbePair,
                                          at(memoryPath),
                                          memory->method + " over " + figureText(memory->bufferMiB)
                                              + " MiB arrays, median of "
                                              + std::to_string(memory->bandwidthGBps.repetitions)});
    }

    // The layer as the cluster file keeps it: each figure's median; one that read 0 is left out.
    void addLayer(TypeDraft &type, const std::string &layerPath, const LayerFigure &layer)
    {
        const bool timed = std::ranges::all_of(layer.points, [](const LayerPoint &p) {
            return p.forwardS.median > 0 && p.backwardS.median > 0;
        });
        if (layer.points.empty() || !timed) {
            m_evidence.notes.push_back(at(layerPath)
                                       + ": left out: a layer time of 0 is no measurement");
            return;
        }
        MeasuredLayerTable table;
        table.model = layer.model;
        table.modelShape = layer.modelShape;
        table.seqLen = layer.seqLen;
        table.tp = layer.tp;
        for (const LayerPoint &p : layer.points)
            table.points.push_back({p.microBatch, p.forwardS.median, p.backwardS.median});
        table.optimizerSPerParam = layer.optimizerSPerParam.median;
        table.embeddingForwardSPerToken = layer.embeddingForwardSPerToken.median;
        table.embeddingBackwardSPerToken = layer.embeddingBackwardSPerToken.median;
        table.headForwardSPerToken = layer.headForwardSPerToken.median;
        table.headBackwardSPerToken = layer.headBackwardSPerToken.median;
        table.source = at(layerPath);
        std::string how = layer.method + " of " + layer.model;
        how += " at --scale " + std::to_string(layer.scale);
        how += ", seq-len " + std::to_string(layer.seqLen) + ", TP " + std::to_string(layer.tp);
        how += ", medians of " + std::to_string(layer.points.front().forwardS.repetitions);
        type.layers.emplace_back(std::move(table),
                                 Candidate{0, Priority::ProbePair, at(layerPath), std::move(how)});
    }

    Status claim(const ProbedHost &host, const std::string &path)
    {
        if (MachineDraft *m = m_evidence.machine(hostOf(host.name))) {
            if (m->definedBy != m_source)
                return badInput(at(path) + ": host " + host.name + " is also in " + m->definedBy
                                + "; give each host in one probe file only");
            if (!m->cudaDevices.empty() || host.backend == BackendKind::Cuda)
                return badInput(at(path) + ": host " + host.name
                                + " has a second rank; a GPU host is probed by one rank");
            return okStatus();
        }
        MachineDraft draft;
        draft.host = hostOf(host.name);
        draft.definedBy = m_source;
        if (auto added = m_evidence.addMachine(std::move(draft), at(path)); !added)
            return added.error();
        return okStatus();
    }

    Status host(std::size_t h)
    {
        const ProbedHost &host = m_probe.hosts[h];
        const std::string path = "hosts[" + std::to_string(h) + "]";
        if (auto status = claim(host, path); !status)
            return status;
        MachineDraft &machine = *m_evidence.machine(hostOf(host.name));
        if (hasControlCharacter(host.cpuModel))
            return badInput(at(path + ".cpu_model") + ": " + quotedForMessage(host.cpuModel)
                            + " holds a control character; valid: printable text");
        if (host.gpus.empty()) {
            // A CPU rank is one device of its host's machine.
            // Within the cluster file's 128 characters for a name.
            const std::string typeName = (std::string(kCpuTypePrefix)
                                          + (host.cpuModel.empty() ? machine.host : host.cpuModel))
                                             .substr(0, 128);
            if (!machine.gpu.empty() && machine.gpu != typeName)
                return badInput(at(path) + ": CPU \"" + host.cpuModel + "\" differs from the "
                                + "other ranks of " + machine.host
                                + "'s; a machine holds one device type");
            machine.gpu = typeName;
            machine.devices[{host.name, -1}] = machine.count++;
            TypeDraft &type = typeFor(typeName, {});
            addCompute(type, path + ".cpu_gemm", path + ".cpu_memory", host.cpuGemm,
                       host.cpuMemory);
            if (host.cpuLayer)
                addLayer(type, path + ".cpu_layer", *host.cpuLayer);
            if (type.type.memoryGiB <= 0) {
                type.type.memoryGiB = m_evidence.options.cpuMemoryGiB;
                m_evidence.notes.push_back(
                    typeName + ": memory_GiB " + figureText(type.type.memoryGiB)
                    + " per rank is assumed; the probe does not measure host memory "
                      "(--cpu-memory-gib sets it)");
            }
            return okStatus();
        }
        for (std::size_t g = 0; g < host.gpus.size(); ++g) {
            const ProbedGpu &gpu = host.gpus[g];
            const std::string gpuPath = path + ".gpus[" + std::to_string(g) + "]";
            const std::string typeName = gpu.catalog.empty() ? gpu.name : gpu.catalog;
            if (hasControlCharacter(typeName))
                return badInput(at(gpuPath + ".name") + ": " + quotedForMessage(typeName)
                                + " holds a control character; valid: printable text");
            if (machine.cudaDevices.contains(gpu.index))
                return badInput(at(gpuPath + ".index") + ": device " + std::to_string(gpu.index)
                                + " of " + host.name + " is listed twice");
            if (!machine.gpu.empty() && machine.gpu != typeName)
                return badInput(at(gpuPath) + ": " + typeName + " beside " + machine.gpu
                                + " on host " + host.name
                                + "; a machine holds one GPU type: probe each type separately "
                                  "(CUDA_VISIBLE_DEVICES) under its own --host-name");
            machine.gpu = typeName;
            machine.devices[{host.name, gpu.index}] = machine.count;
            machine.cudaDevices[gpu.index] = machine.count++;
            TypeDraft &type = typeFor(typeName, gpu.catalog);
            addCompute(type, gpuPath + ".gemm", gpuPath + ".memory", gpu.gemm, gpu.memory);
            if (gpu.memoryGiB > 0)
                type.memoryGiB.add({gpu.memoryGiB, Priority::ProbePair, at(gpuPath + ".memory_GiB"),
                                    "as the driver reports it"});
            if (gpu.layer)
                addLayer(type, gpuPath + ".layer", *gpu.layer);
        }
        if (!host.topology.empty())
            addTopoLinks(m_evidence, machine, host.topology, at(path + ".topology"));
        return okStatus();
    }

    struct End
    {
        MachineDraft *machine = nullptr;
        std::optional<int> device; // none: a GPU host as a whole (its rank's TCP endpoint)
    };

    // A pair's end as a host of this file and one of its devices; refused naming the path.
    Result<End> resolve(const Endpoint &e, const std::string &path)
    {
        End end;
        end.machine = m_evidence.machine(hostOf(e.host));
        if (!end.machine || end.machine->definedBy != m_source)
            return badInput(at(path + ".host") + ": host " + quotedForMessage(e.host)
                            + " is not among hosts[]");
        if (const auto it = end.machine->devices.find({e.host, e.gpu});
            it != end.machine->devices.end())
            end.device = it->second;
        else if (e.gpu >= 0 || end.machine->cudaDevices.empty())
            return badInput(
                at(path + ".gpu") + ": " + quotedForMessage(e.host)
                + (e.gpu < 0 ? " has no CPU rank" : " has no GPU " + std::to_string(e.gpu))
                + " among hosts[]; valid: a device its host entry lists");
        return end;
    }

    Status pair(std::size_t p)
    {
        const ProbedPair &pair = m_probe.pairs[p];
        const std::string path = "pairs[" + std::to_string(p) + "]";
        const auto a = resolve(pair.a, path + ".a");
        if (!a)
            return a.error();
        const auto b = resolve(pair.b, path + ".b");
        if (!b)
            return b.error();
        if (a->machine == b->machine && a->device == b->device && pair.a.host == pair.b.host)
            return badInput(at(path) + ": a and b are both " + quotedForMessage(pair.a.host)
                            + (pair.a.gpu < 0 ? "" : " GPU " + std::to_string(pair.a.gpu))
                            + "; a pair measures two different devices");
        if (pair.sizes.empty())
            return okStatus();
        // The first flag that concerns each figure, as "pairs[0].sizes[3].time_us (not-monotone)".
        std::string bandwidthFlag;
        std::string latencyFlag;
        for (const PlausibilityFlag &f : m_probe.flags) {
            if (!within(f, path))
                continue;
            const Concerns c = concerns(f, path, pair.sizes.size());
            const std::string named = f.path + " (" + f.check + ")";
            if (c.bandwidth && bandwidthFlag.empty())
                bandwidthFlag = named;
            if (c.latency && latencyFlag.empty())
                latencyFlag = named;
        }
        if (!bandwidthFlag.empty() && !latencyFlag.empty()) {
            std::string named = bandwidthFlag;
            if (latencyFlag != bandwidthFlag)
                named += " and " + latencyFlag;
            m_evidence.notes.push_back(at(path) + ": left out: the probe flagged " + named
                                       + " as not plausible");
            return okStatus();
        }
        if (!bandwidthFlag.empty())
            m_evidence.notes.push_back(at(path + ".bandwidth_GBps")
                                       + ": left out: the probe flagged " + bandwidthFlag
                                       + " as not plausible; its latency is kept");
        if (!latencyFlag.empty())
            m_evidence.notes.push_back(at(path + ".latency_us") + ": left out: the probe flagged "
                                       + latencyFlag + " as not plausible; its bandwidth is kept");
        const Candidate bandwidth{
            pair.bandwidthGBps,
            pair.method == "cuda-peer-copy" ? Priority::ProbeCopy : Priority::ProbePair,
            at(path + ".bandwidth_GBps"),
            pair.method + ", median at " + figureText(pair.sizes.back().bytes) + " bytes"};
        Candidate latency = bandwidth;
        latency.value = pair.latencyUs;
        latency.source = at(path + ".latency_us");
        latency.how = pair.method + ", median one-way time at "
                      + figureText(pair.sizes.front().bytes) + " bytes";
        PairDraft *draft = nullptr;
        if (a->machine != b->machine)
            draft = &m_evidence.machinePairs[sortedPair(a->machine->name, b->machine->name)];
        else if (a->device && b->device)
            draft = &m_evidence.gpuPairs[sortedPair(a->machine->gpuName(*a->device),
                                                    b->machine->gpuName(*b->device))];
        if (!draft)
            return okStatus();
        if (bandwidthFlag.empty() && bandwidth.value > 0)
            draft->bandwidthGBps.add(bandwidth);
        if (latencyFlag.empty() && latency.value > 0)
            draft->latencyUs.add(latency);
        return okStatus();
    }

    Evidence &m_evidence;
    const Probe &m_probe;
    const std::string &m_source;
};

} // namespace

Status addProbe(Evidence &evidence, const Probe &probe, const std::string &source)
{
    return ProbeReader(evidence, probe, source).read();
}

} // namespace hetplan::importing
