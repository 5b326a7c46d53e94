#pragma once

// hetplan.probe/1 (docs/formats.md, "Probe"): what `hetplan-probe` measured on a set of
// hosts. Every figure is a series of repetitions summarised by its median and spread (min,
// max); every measurement names its method. Figures that are not plausible stay in the file
// and are listed in `flags`, never dropped.

#include "core/base/result.h"
#include "core/model/backend_kind.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hetplan {

inline constexpr std::string_view kProbeFormat = "hetplan.probe/1";

// A figure measured `repetitions` times.
struct Spread
{
    int repetitions = 0;
    double median = 0;
    double min = 0;
    double max = 0;

    bool operator==(const Spread &) const = default;
};

// Median, min and max of `samples` (at least one).
Spread spreadOf(std::vector<double> samples);

// One GEMM shape of a model layer: C[m×n] = A[m×k]·B[k×n].
struct GemmFigure
{
    std::string label; // "qkv", "attn_out", "mlp_up", "mlp_down"
    int m = 0;
    int n = 0;
    int k = 0;
    std::string dtype;  // "fp32" (CPU BLAS) or "bf16" (cuBLAS, fp32 accumulate)
    std::string method; // "openblas-sgemm", "cublas-gemmex"
    Spread tflops;      // 1e12 FLOP/s, 2·m·n·k FLOP per GEMM

    bool operator==(const GemmFigure &) const = default;
};

struct MemoryFigure
{
    std::string method;   // "cpu-triad", "cuda-triad"
    double bufferMiB = 0; // each of the three arrays, 2^20 bytes
    Spread bandwidthGBps; // bytes read + written per second, 1e9

    bool operator==(const MemoryFigure &) const = default;
};

// One layer's times at one micro-batch size, seconds per call.
struct LayerPoint
{
    int microBatch = 1;
    Spread forwardS;
    Spread backwardS;

    bool operator==(const LayerPoint &) const = default;
};

// One transformer layer of the runtime's own code on one TP shard (docs/probe.md, "The layer"),
// and the optimizer, embedding and head around it.
struct LayerFigure
{
    std::string method;     // "runtime-cpu-layer" (a CPU rank), "runtime-cuda-layer" (a GPU)
    std::string model;      // the model's name
    std::string modelShape; // modelShapeKey of the model as it ran (core/model/measured_layer.h)
    int scale = 1;          // the --scale it was shrunk by
    int seqLen = 1;         // tokens per sequence as it ran (after --scale)
    int tp = 1;
    std::vector<LayerPoint> points; // ascending micro-batch
    Spread optimizerSPerParam;      // one optimizer step per parameter element
    Spread embeddingForwardSPerToken;
    Spread embeddingBackwardSPerToken;
    Spread headForwardSPerToken; // final norm, output head and loss
    Spread headBackwardSPerToken;

    bool operator==(const LayerFigure &) const = default;
};

struct ProbedGpu
{
    int index = 0;
    std::string name;    // as the driver reports it, "NVIDIA H100 80GB HBM3"
    std::string catalog; // the catalog type it was matched to, "H100-80G"; empty: none
    double memoryGiB = 0;
    int smCount = 0;
    std::vector<GemmFigure> gemm;
    std::optional<MemoryFigure> memory;
    std::optional<LayerFigure> layer; // absent: not measured (an older probe, or it failed)

    bool operator==(const ProbedGpu &) const = default;
};

// One cell of `nvidia-smi topo -m` between two GPUs or a GPU and a NIC.
struct TopoLink
{
    std::string a;    // "GPU0"
    std::string b;    // "GPU1" or a NIC's device name ("mlx5_0")
    std::string link; // as printed: "NV18", "PIX", "PXB", "PHB", "NODE", "SYS"

    bool operator==(const TopoLink &) const = default;
};

struct ProbedHost
{
    std::string name;
    int rank = 0;
    BackendKind backend = BackendKind::Gloo; // Cuda when its GPUs were measured
    std::string cpuModel;
    int cpuCores = 0;
    int blasThreads = 0;
    std::vector<GemmFigure> cpuGemm;
    std::optional<MemoryFigure> cpuMemory;
    std::optional<LayerFigure> cpuLayer; // absent: not measured (a GPU host, or an older probe)
    std::vector<ProbedGpu> gpus;
    std::string noGpuReason;        // why `gpus` is empty ("built without CUDA"); empty: probed
    std::vector<TopoLink> topology; // empty: nvidia-smi absent or not a GPU host

    bool operator==(const ProbedHost &) const = default;
};

// One end of a measured pair: a host's CPU rank (gpu < 0) or one of its GPUs.
struct Endpoint
{
    std::string host;
    int gpu = -1;

    bool operator==(const Endpoint &) const = default;
};

// An end as a person reads it: "node-a", "node-a GPU 1".
std::string endpointText(const Endpoint &e);

struct SizePoint
{
    double bytes = 0;
    Spread timeUs;        // one-way time of one message
    Spread bandwidthGBps; // bytes / time, 1e9 bytes/s

    bool operator==(const SizePoint &) const = default;
};

struct ProbedPair
{
    Endpoint a;
    Endpoint b;
    std::string method;           // "gloo-tcp", "cuda-peer-copy", "nccl-sendrecv"
    std::vector<SizePoint> sizes; // ascending bytes
    double bandwidthGBps = 0;     // median at the largest size
    double latencyUs = 0;         // median one-way time at the smallest size
    // How many sweeps measured it: more than 1 when a sweep failed a plausibility check and
    // was measured again (docs/probe.md, "Pairs measured again"); `sizes` is the last sweep.
    int sweeps = 1;

    bool operator==(const ProbedPair &) const = default;
};

// A figure that is not plausible, named by its JSON path in the file.
struct PlausibilityFlag
{
    std::string path;  // "pairs[2].sizes[3].time_us"
    std::string check; // "non-positive", "not-monotone", "above-peak"
    std::string message;

    bool operator==(const PlausibilityFlag &) const = default;
};

inline constexpr std::string_view kPlausibilityChecks[]
    = {"non-positive", "not-monotone", "above-peak"};

struct ProbeSettings
{
    std::string model;
    int microBatch = 1;
    int seqLen = 1;
    int tp = 1;
    int repetitions = 1;
    bool quick = false;

    bool operator==(const ProbeSettings &) const = default;
};

struct Probe
{
    ProbeSettings settings;
    std::vector<ProbedHost> hosts;
    std::vector<ProbedPair> pairs;
    std::vector<PlausibilityFlag> flags;

    bool operator==(const Probe &) const = default;
};

// A pair's summary from its sweep: the median bandwidth at the largest size and the median
// one-way time at the smallest.
void summarizePair(ProbedPair &pair);

// Strict like the other readers (core/io/formats.h): errors name `source`, the JSON path and
// what would be valid. Implausible figures the file does not flag yet are flagged on reading.
Result<Probe> parseProbe(std::string_view text, std::string_view source);
std::string writeProbe(const Probe &probe);

// The plausibility flags of docs/formats.md ("Probe"): non-positive figures; one-way time
// falling with message size beyond the spread; GEMM TFLOPS or memory bandwidth above 1.1× the
// catalog's figure for a GPU matched to the catalog.
std::vector<PlausibilityFlag> plausibilityFlags(const Probe &probe);
// The flags of one pair's sweep, its figures' paths below `path` ("pairs[2]").
std::vector<PlausibilityFlag> plausibilityFlags(const ProbedPair &pair, const std::string &path);
// Adds the flags of plausibilityFlags that `probe.flags` lacks.
void addPlausibilityFlags(Probe &probe);

// The catalog type for a GPU the driver names `deviceName` with `memoryGiB` of memory ("NVIDIA
// A100-SXM4-80GB", 79.2 → "A100-80G"); empty when none fits.
std::string catalogGpuFor(std::string_view deviceName, double memoryGiB);

} // namespace hetplan
