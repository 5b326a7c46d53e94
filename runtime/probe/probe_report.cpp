#include "runtime/probe/probe_report.h"

#include "core/io/catalog_json.h"

#include <cstdio>

namespace hetplan::runtime::probe {
namespace {

std::string format(const char *pattern, double a, double b = 0, double c = 0, double d = 0)
{
    char text[160];
    std::snprintf(text, sizeof text, pattern, a, b, c, d);
    return text;
}

std::string spreadText(const Spread &s, double scale)
{
    return format("%.4g (min %.4g, max %.4g, %g reps)", s.median * scale, s.min * scale,
                  s.max * scale, double(s.repetitions));
}

void gemmLines(std::ostream &out, const std::vector<GemmFigure> &list, const char *indent,
               double peakTflops)
{
    for (const GemmFigure &g : list) {
        const bool cpu = g.dtype == "fp32";
        out << indent << g.dtype << " GEMM " << g.label << " " << g.m << "x" << g.n << "x" << g.k
            << ": " << spreadText(g.tflops, cpu ? 1e3 : 1) << (cpu ? " GFLOPS" : " TFLOPS");
        if (peakTflops > 0)
            out << format(", %.0f%% of the catalog's %.0f", 100 * g.tflops.median / peakTflops,
                          peakTflops);
        out << "\n";
    }
}

void memoryLine(std::ostream &out, const std::optional<MemoryFigure> &m, const char *indent,
                double peakGBps)
{
    if (!m)
        return;
    out << indent << "memory (" << m->method << format(", %.0f MiB arrays): ", m->bufferMiB)
        << spreadText(m->bandwidthGBps, 1) << " GB/s";
    if (peakGBps > 0)
        out << format(", %.0f%% of the catalog's %.0f", 100 * m->bandwidthGBps.median / peakGBps,
                      peakGBps);
    out << "\n";
}

void layerLines(std::ostream &out, const std::optional<LayerFigure> &l, const char *indent)
{
    if (!l)
        return;
    out << indent << "layer of " << l->model << " (" << l->modelShape << ", seq-len " << l->seqLen
        << ", TP " << l->tp << "), ms forward / backward:";
    for (const LayerPoint &p : l->points)
        out << " mb " << p.microBatch
            << format(" %.3g / %.3g;", p.forwardS.median * 1e3, p.backwardS.median * 1e3);
    out << "\n"
        << indent
        << format("  optimizer %.3g ns/param, embedding %.3g us/token, head %.3g us/token\n",
                  l->optimizerSPerParam.median * 1e9,
                  (l->embeddingForwardSPerToken.median + l->embeddingBackwardSPerToken.median)
                      * 1e6,
                  (l->headForwardSPerToken.median + l->headBackwardSPerToken.median) * 1e6);
}

} // namespace

void printReport(std::ostream &out, const Probe &probe)
{
    out << "hetplan-probe: " << probe.settings.model << ", micro-batch "
        << probe.settings.microBatch << ", seq-len " << probe.settings.seqLen << ", TP "
        << probe.settings.tp << ", " << probe.settings.repetitions << " repetitions\n";
    for (const ProbedHost &h : probe.hosts) {
        out << h.name << " (rank " << h.rank << ", "
            << backendName(h.backend, BackendSpelling::Probe) << "; "
            << (h.cpuModel.empty() ? "unknown CPU" : h.cpuModel) << ", " << h.cpuCores << " cores, "
            << h.blasThreads << " BLAS threads)\n";
        gemmLines(out, h.cpuGemm, "  CPU ", 0);
        if (h.cpuGemm.empty() && !h.gpus.empty())
            out << "  CPU GEMMs not measured: the GPUs are this host's devices\n";
        memoryLine(out, h.cpuMemory, "  CPU ", 0);
        layerLines(out, h.cpuLayer, "  CPU ");
        if (!h.noGpuReason.empty())
            out << "  no GPU probed: " << h.noGpuReason << "\n";
        for (const ProbedGpu &g : h.gpus) {
            const GpuType *type = g.catalog.empty() ? nullptr : builtinGpuCatalog().find(g.catalog);
            out << "  GPU " << g.index << ": " << g.name << " ("
                << (g.catalog.empty() ? "not in the catalog" : g.catalog)
                << format(", %.1f GiB, %g SMs)\n", g.memoryGiB, double(g.smCount));
            gemmLines(out, g.gemm, "    ", type ? type->tflops : 0);
            memoryLine(out, g.memory, "    ", type ? type->memoryBandwidthGBps : 0);
            layerLines(out, g.layer, "    ");
        }
        for (const TopoLink &l : h.topology)
            out << "  link " << l.a << " - " << l.b << ": " << l.link << "\n";
    }
    for (const ProbedPair &p : probe.pairs) {
        out << endpointText(p.a) << " - " << endpointText(p.b) << " (" << p.method
            << format("): %.4g GB/s at %.0f bytes, latency %.4g us", p.bandwidthGBps,
                      p.sizes.empty() ? 0.0 : p.sizes.back().bytes, p.latencyUs);
        if (p.sweeps > 1)
            out << ", measured " << p.sweeps << " times: the earlier sweeps were not plausible";
        out << "\n";
    }
    out << probe.flags.size() << " plausibility flag(s)\n";
    for (const PlausibilityFlag &f : probe.flags)
        out << "  " << f.check << " at " << f.path << ": " << f.message << "\n";
}

} // namespace hetplan::runtime::probe
