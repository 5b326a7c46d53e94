#include "runtime/worker/measured_run.h"

#include "runtime/model/model_config.h"

namespace hetplan::runtime {

Result<CalibrationRun> measuredRun(const Plan &plan, const ModelSpec &full,
                                   const Measurement &measured, const std::string &source)
{
    const MeasurementRun &run = measured.run;
    if (!run.model.empty() && run.model != full.name)
        return badInput(source + ": run.model is \"" + run.model + "\" but the plan trains \""
                        + full.name + "\"; give the plan the run was made from");
    auto config = scaledModelConfig(full, plan.workload.train.seqLen, run.scale);
    if (!config)
        return badInput(source + ": run.scale: " + config.error().message);
    if (config->seqLen != run.seqLen)
        return badInput(source + ": run.seq_len is " + std::to_string(run.seqLen)
                        + " but the plan's sequence length "
                        + std::to_string(plan.workload.train.seqLen) + " at scale "
                        + std::to_string(run.scale) + " is " + std::to_string(config->seqLen)
                        + "; give the plan the run was made from");
    int planBatch = 0;
    for (const Pipeline &pipeline : plan.pipelines)
        planBatch += pipeline.microBatch * pipeline.microBatches;
    if (run.globalBatch != planBatch)
        return badInput(source + ": run.global_batch is " + std::to_string(run.globalBatch)
                        + " but the plan's pipelines take " + std::to_string(planBatch)
                        + " sequences; give the plan the run was made from");

    CalibrationRun out;
    out.source = source;
    out.plan = plan;
    out.measured = measured;
    out.model = full;
    out.model.hidden = config->hidden;
    out.model.ffnHidden = config->ffnHidden;
    out.model.vocab = config->vocab;
    out.model.maxSeqLen = config->seqLen;
    out.workload = plan.workload;
    out.workload.mode = Mode::Train;
    out.workload.train.seqLen = config->seqLen;
    out.workload.train.globalBatch = run.globalBatch;
    // The CPU backend computes and sends fp32 (docs/runtime-model.md), the GPU backend bf16
    // GEMMs and wire (docs/gpu-model.md); both recompute the attention probabilities in
    // backward, which is selective recomputation (Korthikanti et al., §4.2).
    out.workload.train.precision = wirePrecision(run.backend);
    out.workload.train.recompute = Recompute::Selective;
    out.plan.workload = out.workload;
    return out;
}

} // namespace hetplan::runtime
