#include "runtime/probe/host_probe.h"

#include "core/import/nvidia_topo.h"
#include "runtime/probe/cpu_probe.h"
#include "runtime/probe/layer_probe.h"
#include "runtime/probe/probe_timing.h"

#include <cstdio>
#include <iostream>

#ifdef HETPLAN_PROBE_CUDA
#include "runtime/cuda/device.h"
#include "runtime/probe/gpu_layer_probe.h"
#include "runtime/probe/gpu_probe.h"
#endif

namespace hetplan::runtime::probe {

std::vector<TopoLink> nvidiaTopology()
{
    FILE *pipe = ::popen("nvidia-smi topo -m 2>/dev/null", "r");
    if (!pipe)
        return {};
    std::string text;
    char chunk[4096];
    for (std::size_t n; (n = std::fread(chunk, 1, sizeof chunk, pipe)) > 0;)
        text.append(chunk, n);
    if (::pclose(pipe) != 0 || text.empty())
        return {};
    auto topology = parseNvidiaTopo(text, "nvidia-smi topo -m");
    if (!topology) {
        std::cerr << "hetplan-probe: warning: " << topology.error().message
                  << "; the GPU links are left out of the probe file\n";
        return {};
    }
    return topoLinks(*topology);
}

std::string whyNoGpu(const ProbeArgs &args)
{
    if (args.cpuOnly)
        return "--no-gpu";
#ifdef HETPLAN_PROBE_CUDA
    return cuda::deviceCount().whyNone;
#else
    return "built without CUDA";
#endif
}

Result<ProbedHost> measureHost(const ProbeArgs &args, const ModelSpec &model,
                               const std::string &name, const std::vector<GemmShape> &shapes,
                               std::vector<ProbedPair> &pairs)
{
    ProbedHost host;
    host.name = name;
    host.rank = args.rank;
    host.backend = BackendKind::Gloo;
    host.cpuModel = cpuModel();
    host.cpuCores = cpuCores();
    host.blasThreads = args.blasThreads;
    host.noGpuReason = whyNoGpu(args);
    // A GPU host's devices are its GPUs (hetplan import reads only their figures), and its CPU
    // GEMMs at full layer shapes would take longer than everything else the probe does.
    if (!host.noGpuReason.empty()) {
        // The layer first: every rank of a probe starts it at about the same time, so the ranks
        // of a host time their layers beside each other, as they train beside each other.
        auto layer = cpuLayer(model, args);
        if (!layer)
            return layer.error();
        host.cpuLayer = std::move(*layer);
        if (!host.cpuLayer)
            std::cerr << "hetplan-probe: note: the layer of " << model.name
                      << " is not timed at these shapes: a pass is above " << kMaxLayerPassGflop
                      << " GFLOP (docs/probe.md, \"The layer\"); "
                      << "--scale K times it as `run --scale K` trains it\n";
        host.cpuGemm = cpuGemm(shapes, args.repetitions, args.blasThreads,
                               args.quick ? kQuickRepetitionS : kRepetitionS);
    }
    host.cpuMemory = cpuMemory(args.repetitions, args.quick, args.triadMiB);
#ifdef HETPLAN_PROBE_CUDA
    if (host.noGpuReason.empty()) {
        host.backend = BackendKind::Cuda;
        auto gpus = probeGpus(shapes, args.repetitions, args.quick);
        if (!gpus)
            return gpus.error();
        host.gpus = std::move(*gpus);
        for (ProbedGpu &gpu : host.gpus) {
            auto layer = gpuLayer(gpu.index, model, args);
            if (layer)
                gpu.layer = std::move(*layer);
            else
                std::cerr << "hetplan-probe: warning: GPU " << gpu.index << ": the layer of "
                          << model.name << " is not timed (" << layer.error().message
                          << "); its type's compute stays the GEMM model\n";
        }
        std::vector<double> sizes = messageSizesBytes(args.quick);
        sizes.push_back(double(256 << 20)); // a copy engine reaches full speed only here
        auto gpuPairs = probeGpuPairs(name, sizes, args.repetitions);
        if (!gpuPairs)
            return gpuPairs.error();
        pairs.insert(pairs.end(), gpuPairs->begin(), gpuPairs->end());
        host.topology = nvidiaTopology();
    }
#else
    (void)pairs;
#endif
    return host;
}

} // namespace hetplan::runtime::probe
