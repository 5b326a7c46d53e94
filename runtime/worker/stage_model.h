#pragma once

// The CPU stage (runtime/model): one rank's shard behind plain types, so that the executor sees
// the program's sample ranges and this file the model's, never both.

#include "core/base/result.h"
#include "core/model/model_spec.h"
#include "runtime/worker/scaled_model.h"
#include "runtime/worker/stage_compute.h"
#include "runtime/worker/stage_run.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace hetplan::runtime {

// OpenBLAS threads per process; ranks sharing a machine's cores take one each.
void setRankBlasThreads(int threads);

class StageModel final : public StageCompute
{
public:
    static Result<std::unique_ptr<StageModel>> create(const ModelSpec &spec, const StageRun &run,
                                                      const ShardPlacement &placement);
    ~StageModel() override;

    const ScaledModel &scaled() const { return m_scaled; }
    std::size_t activationFloats(int rows) const override;
    Result<double> forward(int microBatch, int firstRow, int rowCount, std::span<const float> input,
                           TpComm &tp, Floats &output) override;
    Result<Floats> backward(int microBatch, std::span<const float> outputGrad, TpComm &tp) override;
    Status optimizerStep() override;
    std::vector<ParamView> parameters() override;
    std::size_t bytesHeld() const;

private:
    struct Impl;
    StageModel(ScaledModel scaled, std::unique_ptr<Impl> impl);
    ScaledModel m_scaled;
    std::unique_ptr<Impl> m_impl;
};

} // namespace hetplan::runtime
