#pragma once

// The transformer of runtime/model (docs/runtime-model.md) on one GPU: the same shard, the same
// initial weights and data, the same gradients' meaning, with bf16 weights and activations and
// fp32 arithmetic. Mirrors ModelShard (runtime/model/model_shard.h); what differs is where the
// numbers live (device memory) and when work happens (enqueued on the caller's stream).
//
// Precision: every GEMM multiplies bf16 operands with fp32 accumulation (cublasGemmEx). What is
// kept for backward or fed to another GEMM is bf16; what is summed is fp32: the residual stream
// and its gradient inside a shard, the TP partial sums, the loss, weight gradients, master
// weights and Adam moments. Activations and input gradients between stages are bf16.

#include "core/base/result.h"
#include "runtime/cuda/model/bf16.h"
#include "runtime/model/model_config.h"
#include "runtime/model/model_tensors.h"

#include <cstddef>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

struct CUstream_st; // cudaStream_t is CUstream_st *; this header stays free of CUDA's headers
struct CUevent_st;  // cudaEvent_t

namespace hetplan::runtime::cuda {

using StreamHandle = CUstream_st *;
using EventHandle = CUevent_st *;

// The tensor-parallel all-reduce of a GPU shard, on device memory (Megatron-LM's four per layer,
// as runtime/model/tp_comm.h describes them). The worker implements it with its TP group's NCCL
// communicator.
class DeviceTpComm
{
public:
    virtual ~DeviceTpComm() = default;
    // Enqueues on `stream` the in-place sum over the group of `data[0 … count)` (fp32, device
    // memory): work enqueued on `stream` afterwards sees the sum, the same bits on every rank.
    // Every rank calls it the same number of times with the same counts. A failure (a dead
    // peer, a timeout) comes back as an Error, which the shard returns unchanged.
    virtual Status allReduceSum(float *data, std::size_t count, StreamHandle stream) = 0;
    // Waits on the host, with the communication's own deadline, for the sums enqueued so far:
    // the shard calls it before it blocks on its stream (the head's loss), so that a dead peer
    // fails the call instead of hanging it.
    virtual Status awaitQueued() { return okStatus(); }
};

// TP degree 1: nothing to reduce.
class SoloDeviceTpComm final : public DeviceTpComm
{
public:
    Status allReduceSum(float *, std::size_t, StreamHandle) override { return okStatus(); }
};

// One parameter slice on the device: fp32 master value, gradient and Adam moments, and the bf16
// copy the GEMMs read (rewritten by every optimizerStep). All `count` elements long.
struct DeviceParameter
{
    TensorLayout tensor; // the full tensor (name, layout, TP cut)
    ElementRange slice;  // which elements of the flattened full tensor this shard holds
    std::size_t count = 0;
    float *value = nullptr;
    float *grad = nullptr; // accumulated over the iteration's micro-batches
    float *adamM = nullptr;
    float *adamV = nullptr;
    Bf16 *valueBf16 = nullptr;
    // Recorded on the shard's stream by every backward after the work that last adds into
    // `grad` (the head's and final norm's first, then each layer's, the embedding's last), so a
    // gradient reduction can start there while the backward of earlier layers runs on.
    EventHandle gradientsReady = nullptr;
};

// What a forward returns. `activations` ([rows × seqLen × hidden] bf16 on the device, sample,
// position, feature) is empty on the shard that holds the head, and stays valid until this
// micro-batch's backward returns.
struct DeviceForwardOutput
{
    std::span<const Bf16> activations;
    // Head shard only, as ModelShard's: Σ over this micro-batch's tokens of the cross-entropy /
    // (globalBatch · seqLen). Every TP rank of the head stage computes the same value.
    double lossContribution = 0;
};

class CudaShardState; // device buffers, cuBLAS handle, stashes of the micro-batches in flight

// The device bytes a shard holds, by what holds them: the categories of the `hetplan` memory
// model's breakdown (docs/cost-models.md "Memory of a training stage"), so the two are compared.
struct DeviceMemoryTable
{
    std::size_t weightBytes = 0;     // fp32 master values and the bf16 copies the GEMMs read
    std::size_t gradientBytes = 0;   // fp32
    std::size_t optimizerBytes = 0;  // Adam's two fp32 moments
    std::size_t activationBytes = 0; // stashes of the micro-batches in flight, and spare ones
    std::size_t workingBytes = 0;    // one call's scratch, and the rotary table
    std::size_t totalBytes() const
    {
        return weightBytes + gradientBytes + optimizerBytes + activationBytes + workingBytes;
    }
};

// The layers [b, e) of TP index t of T, plus the embedding / final norm + head if it holds them,
// on the current CUDA device. Gradients mean what ModelShard's do (this shard's additive share
// of the full-batch gradient of the global mean loss).
//
// Everything runs on the stream given to create(): forward and backward enqueue their work and
// return without waiting for the GPU, except that the head shard's forward waits for its loss.
// Buffers passed in are read in stream order (the caller may reuse them for work enqueued on the
// same stream later). Not thread-safe; one host thread per shard.
class CudaShard
{
public:
    // Makes the initial weights of runtime/model's model_init on the device (same seed → same
    // weights as ModelShard, rounded to bf16 for the GEMMs). `stream` is not owned and must outlive
    // the shard.
    static Result<CudaShard> create(const ModelConfig &config, const ShardSpec &shard,
                                    const TrainingSetup &setup, StreamHandle stream);
    CudaShard(CudaShard &&) noexcept;
    CudaShard &operator=(CudaShard &&) noexcept;
    ~CudaShard();

    const ModelConfig &config() const { return m_config; }
    const ShardSpec &spec() const { return m_shard; }
    const TrainingSetup &setup() const { return m_setup; }
    StreamHandle stream() const { return m_stream; }

    // As ModelShard::forward: the embedding shard makes its input from the token data of `rows`
    // and takes an empty `input`; any other shard takes the previous stage's activations
    // ([rows.count × seqLen × hidden] bf16, device memory).
    Result<DeviceForwardOutput> forward(int microBatch, SampleSpan rows,
                                        std::span<const Bf16> input, DeviceTpComm &tp);
    // As ModelShard::backward: `outputGrad` is the next stage's input gradient (bf16, device),
    // empty on the head shard. Adds into every `grad`. Returns the gradient of this shard's
    // input (bf16, device; empty on the embedding shard), valid until the next forward or
    // backward: enqueue its use on the shard's stream before calling either, or make the
    // shard's stream wait (an event) for the stream that uses it.
    Result<std::span<const Bf16>> backward(int microBatch, std::span<const Bf16> outputGrad,
                                           DeviceTpComm &tp);

    // Adam (or SGD) on every slice with ModelShard's arithmetic, then zero the gradients.
    Status optimizerStep();
    Status zeroGradients();
    int stepsTaken() const { return m_steps; }

    // Device pointers and sizes, for the gradient sync.
    std::span<DeviceParameter> parameters() { return m_params; }
    std::span<const DeviceParameter> parameters() const { return m_params; }
    const DeviceParameter *findParameter(std::string_view name) const;

    // Device bytes this shard allocated: parameters (value, gradient, moments, bf16 copy), the
    // stashes of the micro-batches in flight and those kept for reuse, and the scratch buffers.
    DeviceMemoryTable memoryTable() const;
    std::size_t bytesHeld() const { return memoryTable().totalBytes(); }
    int microBatchesInFlight() const;

private:
    CudaShard(ModelConfig config, ShardSpec shard, TrainingSetup setup, StreamHandle stream);

    ModelConfig m_config;
    ShardSpec m_shard;
    TrainingSetup m_setup;
    StreamHandle m_stream = nullptr;
    std::vector<DeviceParameter> m_params;
    std::unique_ptr<CudaShardState> m_state;
    int m_steps = 0;
};

// Waits for `stream`, then copies `count` floats from device memory: for checks and tests.
Result<std::vector<float>> copyToHost(const float *device, std::size_t count, StreamHandle stream);
Result<std::vector<float>> copyToHost(std::span<const Bf16> device, StreamHandle stream);

} // namespace hetplan::runtime::cuda
