#pragma once

#include <optional>
#include <vector>

namespace hetplan {

enum class Mode { Train, Infer };
enum class Precision { Bf16, Fp16, Fp32 };
enum class Recompute { None, Selective, Full };
enum class Optimizer { Adam, Sgd };

inline int bytesPerElement(Precision p)
{
    return p == Precision::Fp32 ? 4 : 2;
}

struct TrainWorkload
{
    int globalBatch = 1;                 // sequences per iteration
    std::vector<int> microBatchSizes{1}; // candidates; plans pick one per pipeline
    int seqLen = 2048;
    Precision precision = Precision::Bf16;
    Recompute recompute = Recompute::Full;
    Optimizer optimizer = Optimizer::Adam;
    bool shardOptimizer = false; // ZeRO-1 style sharding of optimizer state across DP

    bool operator==(const TrainWorkload &) const = default;
};

struct InferWorkload
{
    int promptLen = 512;
    int outputLen = 128;
    double requestRatePerS = 1;
    std::optional<double> sloS;     // absolute latency target per request
    std::optional<double> sloScale; // or a multiple of a reference latency (HexGen §5)
    int batch = 1;
    Precision precision = Precision::Fp16;

    bool operator==(const InferWorkload &) const = default;
};

struct Workload
{
    Mode mode = Mode::Train;
    TrainWorkload train;
    InferWorkload infer;

    bool operator==(const Workload &) const = default;
};

} // namespace hetplan
