#pragma once

#include "runtime/model/model_config.h"
#include "runtime/model/model_tensors.h"
#include "runtime/model/tp_comm.h"

#include <cstddef>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

namespace hetplan::runtime {

// One parameter slice a shard holds, with its gradient and Adam moments (all fp32, same size).
struct Parameter
{
    TensorLayout tensor; // the full tensor (name, layout, TP cut)
    ElementRange slice;  // which elements of the flattened full tensor this shard holds
    std::vector<float> value;
    std::vector<float> grad; // accumulated over the iteration's micro-batches
    std::vector<float> adamM;
    std::vector<float> adamV;
};

// What a forward returns. Activations between stages are [rows × seqLen × hidden] floats, row-major
// (sample, position, feature), samples in the order of the SampleSpan.
struct ForwardOutput
{
    std::vector<float> activations; // empty on the shard that holds the head
    // Head shard only: Σ over this micro-batch's tokens of the cross-entropy / (globalBatch ·
    // seqLen), so that the contributions of all micro-batches of all pipelines (and DP replicas)
    // add up to the global mean loss. Every TP rank of the head stage computes the same value:
    // count TP index 0 only.
    double lossContribution = 0;
};

class ShardState; // forward stash and scratch, per shard

// The layers [b, e) of TP index t of T, plus the embedding / final norm + head if it holds them.
// Gradients: after the backwards of every micro-batch of an iteration, a parameter's `grad` is
// this shard's additive share of the full-batch gradient of the global mean loss (the loss
// gradient is scaled by 1/(globalBatch · seqLen) at the head, not by the micro-batch size). So:
// summing `grad` over the DP replicas that hold a slice gives the full gradient — no further
// weighting; a replicated tensor (norms, embedding, head) has the same grad on every TP rank of a
// stage replica, so a sum over a group that contains all T of them must divide by T.
// Activations and input gradients are the same bits on every TP rank of a stage replica provided
// TpComm hands every rank the same sum, so one rank may send them for the group (HexiScale §3.2).
//
// Not thread-safe; one thread per shard. GEMMs run through OpenBLAS (see setBlasThreads).
class ModelShard
{
public:
    static Result<ModelShard> create(const ModelConfig &config, const ShardSpec &shard,
                                     const TrainingSetup &setup);
    ModelShard(ModelShard &&) noexcept;
    ModelShard &operator=(ModelShard &&) noexcept;
    ~ModelShard();

    const ModelConfig &config() const { return m_config; }
    const ShardSpec &spec() const { return m_shard; }
    const TrainingSetup &setup() const { return m_setup; }

    // Forward of one micro-batch. `microBatch` is the caller's id for it (unique among those in
    // flight); what backward needs is kept under that id until its backward. The embedding shard
    // makes its input from the token data of `rows` and takes an empty `input`; any other shard
    // takes the previous stage's activations ([rows.count × seqLen × hidden]).
    Result<ForwardOutput> forward(int microBatch, SampleSpan rows, std::span<const float> input,
                                  TpComm &tp);
    // Backward of a micro-batch forwarded before: `outputGrad` is the next stage's input gradient
    // ([rows × seqLen × hidden]), empty on the head shard. Adds into every `grad`. Returns the
    // gradient of this shard's input, for the previous stage (empty on the embedding shard).
    Result<std::vector<float>> backward(int microBatch, std::span<const float> outputGrad,
                                        TpComm &tp);

    // Adam (or SGD, TrainingSetup::optimizer) on every slice, then zero the gradients. Call once
    // per iteration after the gradient sync; the step count (for bias correction) is this shard's
    // own.
    void optimizerStep();
    void zeroGradients();
    int stepsTaken() const { return m_steps; }

    std::span<Parameter> parameters() { return m_params; }
    std::span<const Parameter> parameters() const { return m_params; }
    Parameter *findParameter(std::string_view name);
    const Parameter *findParameter(std::string_view name) const;

    // Bytes held now: parameters, gradients, moments, and the activations kept for backward
    // (of the micro-batches in flight, and the buffers kept for reuse, at most as many as were
    // ever in flight at once), for the measurement's peak memory.
    std::size_t bytesHeld() const;
    int microBatchesInFlight() const;

private:
    ModelShard(ModelConfig config, ShardSpec shard, TrainingSetup setup);

    ModelConfig m_config;
    ShardSpec m_shard;
    TrainingSetup m_setup;
    std::vector<Parameter> m_params;
    std::unique_ptr<ShardState> m_state;
    int m_steps = 0;
};

// Threads each OpenBLAS call may use in this process. Default (never called): whatever OpenBLAS
// chose; the worker and the tests call setBlasThreads(1) since many ranks share the cores.
void setBlasThreads(int threads);

} // namespace hetplan::runtime
