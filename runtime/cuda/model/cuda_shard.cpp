#include "runtime/cuda/model/cuda_shard.h"

#include "runtime/cuda/cuda_status.h"
#include "runtime/cuda/model/cuda_shard_state.h"
#include "runtime/cuda/model/init_kernels.h"
#include "runtime/cuda/model/kernels.h"
#include "runtime/model/model_init.h"

#include <string>

namespace hetplan::runtime::cuda {

CudaShardState::~CudaShardState()
{
    for (cudaEvent_t e : gradientsDone)
        (void)cudaCall(cudaEventDestroy(e), "destroying a gradient event");
}

CudaShard::CudaShard(ModelConfig config, ShardSpec shard, TrainingSetup setup, StreamHandle stream)
    : m_config(std::move(config))
    , m_shard(shard)
    , m_setup(setup)
    , m_stream(stream)
    , m_state(std::make_unique<CudaShardState>())
{}

CudaShard::CudaShard(CudaShard &&) noexcept = default;
CudaShard &CudaShard::operator=(CudaShard &&) noexcept = default;
CudaShard::~CudaShard() = default;

Result<CudaShard> CudaShard::create(const ModelConfig &config, const ShardSpec &shard,
                                    const TrainingSetup &setup, StreamHandle stream)
{
    if (Status s = validateShard(config, shard); !s)
        return s.error();
    if (setup.globalBatch <= 0)
        return badInput("global batch " + std::to_string(setup.globalBatch)
                        + " must be a positive number of samples");
    CudaShard result(config, shard, setup, stream);
    CudaShardState &st = *result.m_state;
    st.dims = ShardDims::of(config, shard.tpDegree);
    auto blas = makeBlas(stream);
    if (!blas)
        return blas.error();
    st.blas = std::move(blas).value();

    std::vector<TensorLayout> tensors = shardTensors(config, shard);
    result.m_params.resize(tensors.size());
    BufferPlan plan;
    std::vector<std::size_t> offsets(tensors.size() * 5);
    for (std::size_t kind = 0; kind < 5; ++kind) {
        if (kind == 1)
            st.gradientsBegin = plan.bytes();
        if (kind == 2)
            st.gradientsEnd = plan.bytes();
        if (kind == 4)
            st.momentsEnd = plan.bytes();
        for (std::size_t i = 0; i < tensors.size(); ++i) {
            const ElementRange slice = tpSlice(tensors[i], shard.tpIndex, shard.tpDegree);
            offsets[kind * tensors.size() + i]
                = plan.add(std::size_t(slice.size()), kind == 4 ? sizeof(Bf16) : sizeof(float));
        }
    }
    if (Status s = st.parameters.reserve(plan.bytes()); !s)
        return s.error();
    if (Status s = zeroDevice(st.parameters.as<std::byte>() + st.gradientsBegin,
                              st.momentsEnd - st.gradientsBegin, stream);
        !s)
        return s.error();
    auto *base = st.parameters.as<std::byte>();
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        DeviceParameter &p = result.m_params[i];
        p.slice = tpSlice(tensors[i], shard.tpIndex, shard.tpDegree);
        p.count = std::size_t(p.slice.size());
        const auto at = [&](std::size_t kind) { return base + offsets[kind * tensors.size() + i]; };
        p.value = reinterpret_cast<float *>(at(0));
        p.grad = reinterpret_cast<float *>(at(1));
        p.adamM = reinterpret_cast<float *>(at(2));
        p.adamV = reinterpret_cast<float *>(at(3));
        p.valueBf16 = reinterpret_cast<Bf16 *>(at(4));
        // Made on the device: a 7B stage's weights take seconds there, minutes on one host thread.
        kernels::initialWeights(weightInit(tensors[i], config.layers, setup.seed), p.slice.begin,
                                p.count, p.value, p.valueBf16, stream);
        p.tensor = std::move(tensors[i]);
    }
    if (Status s = kernels::lastLaunchError("making the initial weights"); !s)
        return s.error();

    const std::vector<float> table = rotaryCosSin(config.seqLen, config.headDim());
    if (Status s = st.rotary.reserve(table.size() * sizeof(float)); !s)
        return s.error();
    if (Status s = uploadNow(st.rotary.as<void>(), table); !s)
        return s.error();
    if (Status s = waitForDevice(); !s)
        return s.error();

    // The pointers stay valid: m_params never grows again, and moving a vector keeps its elements.
    static_cast<ShardWeights &>(st) = shardWeights(result.m_params, shard.layerBegin);
    st.gradientsDone.resize(st.layers.size() + 2);
    for (cudaEvent_t &e : st.gradientsDone)
        if (Status s = cudaCall(cudaEventCreateWithFlags(&e, cudaEventDisableTiming),
                                "creating a gradient event");
            !s)
            return s.error();
    for (DeviceParameter &p : result.m_params) {
        if (p.tensor.layer >= 0)
            p.gradientsReady
                = st.layerGradientsDone(std::size_t(p.tensor.layer - shard.layerBegin));
        else
            p.gradientsReady = p.tensor.kind == ParamKind::Embedding ? st.embeddingGradientsDone()
                                                                     : st.headGradientsDone();
    }
    return result;
}

const DeviceParameter *CudaShard::findParameter(std::string_view name) const
{
    for (const DeviceParameter &p : m_params) {
        if (p.tensor.name == name)
            return &p;
    }
    return nullptr;
}

DeviceMemoryTable CudaShard::memoryTable() const
{
    // `parameters` holds all values, then all gradients, all moments, all bf16 copies.
    const CudaShardState &st = *m_state;
    DeviceMemoryTable table;
    table.weightBytes = st.gradientsBegin + (st.parameters.bytes() - st.momentsEnd);
    table.gradientBytes = st.gradientsEnd - st.gradientsBegin;
    table.optimizerBytes = st.momentsEnd - st.gradientsEnd;
    for (const auto &[id, stash] : st.inFlight)
        table.activationBytes += stash.buffer.bytes();
    for (const MicroBatchStash &stash : st.spare)
        table.activationBytes += stash.buffer.bytes();
    table.workingBytes = st.scratch.bytes() + st.rotary.bytes();
    return table;
}

int CudaShard::microBatchesInFlight() const
{
    return int(m_state->inFlight.size());
}

Result<std::vector<float>> copyToHost(const float *device, std::size_t count, StreamHandle stream)
{
    std::vector<float> host(count);
    if (Status s = downloadAfter(host.data(), device, count * sizeof(float), stream); !s)
        return s.error();
    return host;
}

Result<std::vector<float>> copyToHost(std::span<const Bf16> device, StreamHandle stream)
{
    std::vector<Bf16> raw(device.size());
    if (Status s = downloadAfter(raw.data(), device.data(), device.size_bytes(), stream); !s)
        return s.error();
    std::vector<float> host(raw.size());
    for (std::size_t i = 0; i < raw.size(); ++i)
        host[i] = fromBf16(raw[i]);
    return host;
}

} // namespace hetplan::runtime::cuda
