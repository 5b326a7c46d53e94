#pragma once

// The executor's view of the model (runtime/model): one rank's shard behind plain types, so
// that the executor sees the program's sample ranges and this file the model's, never both.

#include "core/base/result.h"
#include "core/model/model_spec.h"
#include "runtime/model/tp_comm.h"
#include "runtime/worker/scaled_model.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace hetplan::runtime {

// OpenBLAS threads per process; ranks sharing a machine's cores take one each.
void setRankBlasThreads(int threads);

// The part of the model one rank holds.
struct ShardPlacement
{
    int layerBegin = 0;
    int layerEnd = 0;
    int tpIndex = 0;
    int tpDegree = 1;
    bool embedding = false;
    bool head = false;
};

// One parameter slice, as gradient sync and the weight dump address it.
struct ParamView
{
    std::string name;       // "layer.7.attn.q"
    int layer = -1;         // -1: embedding, final norm, head
    bool tpSplit = false;   // cut by TP (else replicated inside the TP group)
    bool embedding = false; // the token embedding
    bool head = false;      // final norm or output head
    std::int64_t fullElements = 0;
    std::int64_t sliceBegin = 0; // the elements of the flattened full tensor held here
    std::int64_t sliceEnd = 0;
    float *value = nullptr;
    float *grad = nullptr;
};

class StageModel
{
public:
    static Result<std::unique_ptr<StageModel>> create(const ModelSpec &spec, int workloadSeqLen,
                                                      int scale, const ShardPlacement &placement,
                                                      std::uint64_t seed, int globalBatch);
    ~StageModel();

    const ScaledModel &scaled() const { return m_scaled; }
    // Floats of `rows` samples' activations between stages.
    std::size_t activationFloats(int rows) const;

    // Forward of rows [firstRow, firstRow + rowCount) of micro-batch `microBatch`; `input` is
    // empty on the embedding shard. Fills `output` (empty on the head shard) and returns the
    // micro-batch's loss contribution (head shard; see model_shard.h).
    Result<double> forward(int microBatch, int firstRow, int rowCount, std::span<const float> input,
                           TpComm &tp, std::vector<float> &output);
    // Backward; `outputGrad` is empty on the head shard. Returns the input gradient (empty on
    // the embedding shard).
    Result<std::vector<float>> backward(int microBatch, std::span<const float> outputGrad,
                                        TpComm &tp);
    void optimizerStep();
    std::vector<ParamView> parameters();
    std::size_t bytesHeld() const;

private:
    struct Impl;
    StageModel(ScaledModel scaled, std::unique_ptr<Impl> impl);
    ScaledModel m_scaled;
    std::unique_ptr<Impl> m_impl;
};

} // namespace hetplan::runtime
