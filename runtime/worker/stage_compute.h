#pragma once

// The executor's view of one rank's model shard, whatever computes it: the CPU model
// (stage_model.h) or the GPU one (cuda_stage.h). Activations, gradients and parameters live in
// the memory of the rank's backend (backend.h): host floats for the CPU, device memory for CUDA.

#include "core/base/result.h"
#include "runtime/model/tp_comm.h"
#include "runtime/worker/backend.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace hetplan::runtime {

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
    float *value = nullptr; // fp32, in the backend's memory
    float *grad = nullptr;
    // GPU stage only: the event after the backward work that last adds into `grad` (backend.h
    // FloatPiece); null: everything queued.
    CUevent_st *gradientsReady = nullptr;
};

class StageCompute
{
public:
    virtual ~StageCompute() = default;

    // Floats of `rows` samples' activations between stages.
    virtual std::size_t activationFloats(int rows) const = 0;

    // Forward of rows [firstRow, firstRow + rowCount) of micro-batch `microBatch`; `input` is
    // empty on the embedding shard. Fills `output` (left empty on the head shard) and returns
    // the micro-batch's loss contribution (head shard; see runtime/model/model_shard.h).
    virtual Result<double> forward(int microBatch, int firstRow, int rowCount,
                                   std::span<const float> input, TpComm &tp, Floats &output)
        = 0;
    // Backward; `outputGrad` is empty on the head shard. Returns the input gradient (empty on
    // the embedding shard).
    virtual Result<Floats> backward(int microBatch, std::span<const float> outputGrad, TpComm &tp)
        = 0;
    virtual Status optimizerStep() = 0;
    virtual std::vector<ParamView> parameters() = 0;
};

} // namespace hetplan::runtime
