#include "runtime/worker/cuda_stage.h"

#include "runtime/cuda/cuda_status.h"
#include "runtime/cuda/float_ops.h"
#include "runtime/cuda/model/cuda_shard.h"
#include "runtime/worker/device_tp.h"
#include "runtime/worker/stage_config.h"

#include <cuda_runtime_api.h>

namespace hetplan::runtime {
namespace {

using cuda::Bf16;
using cuda::cudaCall;

const std::uint16_t *bits(const Bf16 *values)
{
    return reinterpret_cast<const std::uint16_t *>(values);
}

class CudaStage final : public StageCompute
{
public:
    CudaStage(cuda::CudaShard shard, Backend &backend)
        : m_shard(std::move(shard))
        , m_backend(backend)
    {}

    std::size_t activationFloats(int rows) const override
    {
        const ModelConfig &c = m_shard.config();
        return std::size_t(rows) * std::size_t(c.seqLen) * std::size_t(c.hidden);
    }

    Result<double> forward(int microBatch, int firstRow, int rowCount, std::span<const float> input,
                           TpComm &tp, Floats &output) override
    {
        auto in = toBf16(input, m_input);
        if (!in)
            return in.error();
        DeviceTp deviceTp(tp, m_backend);
        auto out = m_shard.forward(microBatch, SampleSpan{firstRow, rowCount}, *in, deviceTp);
        if (!out)
            return out.error();
        if (!out->activations.empty()) {
            auto floats = toFloats(out->activations);
            if (!floats)
                return floats.error();
            output = std::move(floats).value();
        }
        return out->lossContribution;
    }

    Result<Floats> backward(int microBatch, std::span<const float> outputGrad, TpComm &tp) override
    {
        auto in = toBf16(outputGrad, m_outputGrad);
        if (!in)
            return in.error();
        DeviceTp deviceTp(tp, m_backend);
        auto inputGrad = m_shard.backward(microBatch, *in, deviceTp);
        if (!inputGrad)
            return inputGrad.error();
        if (inputGrad->empty())
            return Floats{};
        return toFloats(*inputGrad);
    }

    Status optimizerStep() override { return m_shard.optimizerStep(); }

    std::vector<ParamView> parameters() override
    {
        std::vector<ParamView> views;
        for (cuda::DeviceParameter &p : m_shard.parameters()) {
            views.push_back(paramView(p.tensor, p.slice, p.value, p.grad));
            views.back().gradientsReady = p.gradientsReady;
        }
        return views;
    }

private:
    // fp32 from the executor → bf16 in `scratch` (kept and grown: the shard reads it in stream
    // order, so the next call may overwrite it).
    Result<std::span<const Bf16>> toBf16(std::span<const float> values, Floats &scratch)
    {
        if (values.empty())
            return std::span<const Bf16>{};
        const std::size_t floatsNeeded = (values.size() + 1) / 2; // two bf16 per float
        if (scratch.count < floatsNeeded) {
            auto made = m_backend.allocate(floatsNeeded);
            if (!made)
                return made.error();
            scratch = std::move(made).value();
        }
        auto *out = reinterpret_cast<std::uint16_t *>(scratch.data);
        if (Status s
            = cudaCall(cuda::floatToBf16(values.data(), values.size(), out, m_shard.stream()),
                       "converting a stage's input to bf16");
            !s)
            return s.error();
        return std::span<const Bf16>(reinterpret_cast<const Bf16 *>(out), values.size());
    }

    Result<Floats> toFloats(std::span<const Bf16> values)
    {
        auto floats = m_backend.allocate(values.size());
        if (!floats)
            return floats.error();
        if (Status s = cudaCall(cuda::bf16ToFloat(bits(values.data()), values.size(), floats->data,
                                                  m_shard.stream()),
                                "converting a stage's output to fp32");
            !s)
            return s.error();
        return floats;
    }

    cuda::CudaShard m_shard;
    Backend &m_backend;
    Floats m_input;
    Floats m_outputGrad;
};

} // namespace

Result<std::unique_ptr<StageCompute>> createCudaStage(const ModelSpec &spec, const StageRun &run,
                                                      const ShardPlacement &placement,
                                                      Backend &backend, CUstream_st *compute)
{
    auto stage = stageConfig(spec, run, placement);
    if (!stage)
        return stage.error();
    auto shard = cuda::CudaShard::create(stage->model, stage->shard, stage->setup, compute);
    if (!shard)
        return shard.error();
    return std::unique_ptr<StageCompute>(new CudaStage(std::move(shard).value(), backend));
}

} // namespace hetplan::runtime
