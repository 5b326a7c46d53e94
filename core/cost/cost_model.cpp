// The cost model: the kinds by name, the terms each kind chooses, and the one evaluation that
// turns a mode's per-stage terms into an Evaluation (docs/cost-models.md).
#include "core/cost/cost_model.h"

#include "core/base/text.h"
#include "core/cost/cost_helpers.h"
#include "core/cost/flops.h"
#include "core/cost/hetplan_terms.h"
#include "core/cost/hexgen_paper.h"
#include "core/cost/hexiscale_paper.h"
#include "core/cost/prediction_interval.h"
#include "core/cost/stage_terms.h"
#include "core/plan/plan.h"
#include "core/plan/transport.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>

namespace hetplan {

std::string_view costModelName(CostModelKind kind)
{
    switch (kind) {
    case CostModelKind::HetPlan:
        return "hetplan";
    case CostModelKind::HexiScalePaper:
        return "hexiscale-paper";
    case CostModelKind::HexGenPaper:
        return "hexgen-paper";
    }
    return "unknown";
}

std::vector<CostModelKind> allCostModels()
{
    return {CostModelKind::HetPlan, CostModelKind::HexiScalePaper, CostModelKind::HexGenPaper};
}

Result<CostModelKind> costModelKindFromName(std::string_view name)
{
    std::string lower(name);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    std::string valid;
    for (CostModelKind kind : allCostModels()) {
        if (lower == costModelName(kind))
            return kind;
        valid += (valid.empty() ? "" : ", ") + std::string(costModelName(kind));
    }
    return badInput("unknown cost model '" + std::string(name) + "'; valid: " + valid);
}

CostModel::CostModel(CostModelKind kind, const HetPlanParameters &parameters)
    : m_kind(kind)
    , m_parameters(parameters)
{
    if (kind == CostModelKind::HetPlan) {
        m_training = makeHetPlanTrainingTerms(parameters);
        m_inference = makeHetPlanInferenceTerms(parameters);
    } else {
        // The papers' own models, as printed: training by HexiScale Appendix A, inference by
        // HexGen Appendix B. Neither paper models the other mode, so `hexiscale-paper` and
        // `hexgen-paper` are the same formulas under two names; each is the name its paper's
        // results are reproduced under.
        m_training = hexiScaleTrainingTerms();
        m_inference = hexGenInferenceTerms();
    }
}

std::unique_ptr<CostModel> makeCostModel(CostModelKind kind)
{
    return std::make_unique<CostModel>(kind);
}

const StageTerms &CostModel::termsFor(const Problem &problem) const
{
    return problem.workload.mode == Mode::Train ? *m_training : *m_inference;
}

std::string CostModel::tpGroupProblem(const Problem &problem, std::span<const int> gpus) const
{
    // Neither paper restricts TP groups: TP across machines merely costs what the formula says
    // (HexGen keeps TP on one machine by search heuristic, §4.2, not as a cost rule).
    if (m_kind != CostModelKind::HetPlan || gpus.empty())
        return {};
    // `hetplan`: TP stays inside one machine and divides the attention and key-value heads
    // (Megatron splits heads across TP ranks; its all-reduces per layer need NVLink/PCIe
    // bandwidth).
    const Topology &topology = problem.topology;
    for (int gpu : gpus)
        if (topology.gpu(gpu).machine != topology.gpu(gpus.front()).machine)
            return "GPUs " + topology.gpu(gpus.front()).name + " and " + topology.gpu(gpu).name
                   + " are in different machines; tensor parallelism needs one machine";
    const int tp = int(gpus.size());
    if (tp > 1 && problem.model.heads % tp != 0)
        return "tp = " + std::to_string(tp) + " does not divide "
               + std::to_string(problem.model.heads) + " attention heads";
    if (tp > 1 && problem.model.kvHeads % tp != 0)
        return "tp = " + std::to_string(tp) + " does not divide "
               + std::to_string(problem.model.kvHeads) + " key-value heads";
    return {};
}

Evaluation CostModel::evaluate(const Problem &problem, const Plan &plan) const
{
    Evaluation evaluation;
    if (problem.workload.mode == Mode::Train)
        evaluateTraining(problem, plan, &evaluation);
    else
        evaluateInference(problem, plan, &evaluation);
    evaluation.interval = predictionInterval(problem, plan, evaluation);
    return evaluation;
}

double CostModel::objectiveS(const Problem &problem, const Plan &plan) const
{
    if (problem.workload.mode == Mode::Train)
        return evaluateTraining(problem, plan, nullptr);
    return evaluateInference(problem, plan, nullptr);
}

double CostModel::hopS(const Problem &problem, const StageQuery &from, const StageQuery &to) const
{
    return termsFor(problem).hopS(problem, from, to);
}

namespace {

// Per-thread buffers reused across calls: a search evaluates thousands of plans per second,
// and these would otherwise be allocated for each.
struct Scratch
{
    LayerSegments segments;
    std::vector<StageQuery> queries;
    std::vector<double> perStageDpS;
    std::vector<double> bytes;
};

Scratch &scratch()
{
    thread_local Scratch s;
    return s;
}

std::string memoryError(const Topology &topology, int pipeline, int stage, int gpu, double usedGiB,
                        double capacityGiB)
{
    return "pipeline " + std::to_string(pipeline) + ", stage " + std::to_string(stage) + ", GPU "
           + topology.gpu(gpu).name + ": needs " + gibText(usedGiB) + " GiB of "
           + gibText(capacityGiB) + " GiB";
}

// Replicas holding every layer of the stage (the fewest, when pipelines cut differently).
int stageReplicas(const LayerSegments &segments, const Plan &plan, const Stage &stage)
{
    const auto [first, last] = segments.segmentsOf(stage.layerBegin, stage.layerEnd);
    int fewest = 0;
    for (int segment = first; segment < last; ++segment) {
        const int replicas = segments.replicas(plan, segment);
        fewest = segment == first ? replicas : std::min(fewest, replicas);
    }
    return std::max(fewest, 1);
}

// Checks every GPU of a stage against its capacity; records it when `out` is given.
bool checkStageMemory(const Problem &problem, const StageQuery &query,
                      std::span<const double> bytes, int pipeline, int stage, Evaluation *out)
{
    bool fits = true;
    for (size_t i = 0; i < query.gpus.size(); ++i) {
        const int gpu = query.gpus[i];
        const double usedGiB = bytes[i] / kBytesPerGiB;
        const double capacityGiB = problem.topology.gpuType(gpu).memoryGiB;
        if (usedGiB > capacityGiB) {
            fits = false;
            if (out)
                out->errors.push_back(
                    memoryError(problem.topology, pipeline, stage, gpu, usedGiB, capacityGiB));
        }
        if (out)
            out->memory.push_back({gpu, usedGiB, capacityGiB});
    }
    return fits;
}

// Why a time came out infinite: the communicating pairs that have no path.
void addConnectivityErrors(const Problem &problem, const Plan &plan, Evaluation &out)
{
    const Topology &topology = problem.topology;
    const size_t before = out.errors.size();
    for (size_t p = 0; p < plan.pipelines.size(); ++p) {
        const Pipeline &pipeline = plan.pipelines[p];
        for (size_t j = 0; j < pipeline.stages.size(); ++j) {
            const Stage &stage = pipeline.stages[j];
            const std::string where
                = "pipeline " + std::to_string(p) + ", stage " + std::to_string(j) + ": ";
            for (size_t r = 0; r + size_t(stage.tp) <= stage.gpus.size(); r += size_t(stage.tp))
                for (size_t x = r; x < r + size_t(stage.tp); ++x)
                    for (size_t y = x + 1; y < r + size_t(stage.tp); ++y)
                        if (!topology.connected(stage.gpus[x], stage.gpus[y]))
                            out.errors.push_back(where + "GPUs " + topology.gpu(stage.gpus[x]).name
                                                 + " and " + topology.gpu(stage.gpus[y]).name
                                                 + " are not connected");
            if (j + 1 == pipeline.stages.size())
                continue;
            bool anyPair = false;
            for (int x : stage.gpus)
                for (int y : pipeline.stages[j + 1].gpus)
                    anyPair = anyPair || topology.connected(x, y);
            if (!anyPair)
                out.errors.push_back(where + "no GPU of it is connected to a GPU of stage "
                                     + std::to_string(j + 1));
        }
    }
    if (out.errors.size() == before)
        out.errors.emplace_back("GPUs that must synchronise gradients are not connected");
}

double pricePerS(const Problem &problem, const Evaluation &evaluation, bool *allPriced)
{
    double usdPerS = 0;
    *allPriced = !evaluation.memory.empty();
    for (const GpuMemory &m : evaluation.memory) {
        const auto &price = problem.topology.gpuType(m.gpu).pricePerHourUsd;
        if (!price) {
            *allPriced = false;
            return 0;
        }
        usdPerS += *price / 3600.0;
    }
    return usdPerS;
}

double peakFlopsPerS(const Problem &problem, const Evaluation &evaluation)
{
    double flops = 0;
    for (const GpuMemory &m : evaluation.memory)
        flops += problem.topology.gpuType(m.gpu).tflops * 1e12;
    return flops;
}

// Cost figures once iterationS and tokensPerS are known.
void fillCosts(const Problem &problem, Evaluation &out)
{
    bool allPriced = false;
    const double usdPerS = pricePerS(problem, out, &allPriced);
    if (!allPriced || !std::isfinite(out.iterationS))
        return;
    out.costPerIterationUsd = usdPerS * out.iterationS;
    if (out.tokensPerS > 0)
        out.costPerMillionTokensUsd = usdPerS / out.tokensPerS * 1e6;
}

// The critical stage's busy time over all micro-batches, the rest of the pipeline as bubble
// (evaluation.h, Breakdown).
Breakdown pipelineBreakdown(const StageTiming &bottleneck, int microBatches, double timeS)
{
    Breakdown b;
    b.computeS = microBatches * bottleneck.computeS;
    b.tpCommS = microBatches * bottleneck.tpCommS;
    b.ppCommS = microBatches * bottleneck.hopS;
    const double bubbleS = timeS - b.computeS - b.tpCommS - b.ppCommS;
    b.bubbleS = std::isfinite(bubbleS) ? std::max(bubbleS, 0.0) : 0.0;
    return b;
}

} // namespace

StageEstimate CostModel::estimateStage(const Problem &problem, const StageQuery &stage) const
{
    const StageTerms &terms = termsFor(problem);
    thread_local std::vector<double> bytes;
    StageEstimate estimate;
    estimate.timing = terms.stageTiming(problem, stage);
    bytes.assign(stage.gpus.size(), 0.0);
    terms.stageMemory(problem, stage, std::max(stage.dp, 1), bytes);
    for (size_t i = 0; i < stage.gpus.size(); ++i) {
        const int gpu = stage.gpus[i];
        const double usedGiB = bytes[i] / kBytesPerGiB;
        if (estimate.peakMemoryGpu < 0 || usedGiB > estimate.peakMemoryGiB) {
            estimate.peakMemoryGiB = usedGiB;
            estimate.peakMemoryGpu = gpu;
        }
        if (usedGiB > problem.topology.gpuType(gpu).memoryGiB)
            estimate.fits = false;
    }
    return estimate;
}

namespace {

double rejectEmptyPlan(Evaluation *out)
{
    if (out) {
        out->valid = false;
        out->errors.emplace_back("the plan has no pipelines");
    }
    return kInfinity;
}

} // namespace

double CostModel::evaluateTraining(const Problem &problem, const Plan &plan, Evaluation *out) const
{
    const StageTerms &terms = *m_training;
    if (plan.pipelines.empty())
        return rejectEmptyPlan(out);
    Scratch &s = scratch();
    s.segments.build(plan);
    size_t stageTotal = 0;
    for (const Pipeline &pipeline : plan.pipelines)
        stageTotal += pipeline.stages.size();
    s.perStageDpS.assign(stageTotal, 0.0);
    const PlanPaths paths(problem.topology, plan);
    const double dpS = terms.dataParallelS(problem, plan, paths, s.segments, s.perStageDpS);

    if (out) {
        out->pipelines.assign(plan.pipelines.size(), PipelineTiming{});
        out->memory.reserve(stageTotal * 4);
    }
    bool fits = true;
    double slowestPipelineS = -1;
    size_t flatStage = 0;
    for (size_t p = 0; p < plan.pipelines.size(); ++p) {
        const Pipeline &pipeline = plan.pipelines[p];
        const int stageCount = int(pipeline.stages.size());
        s.queries.clear();
        for (int j = 0; j < stageCount; ++j)
            s.queries.push_back(stageQueryOf(pipeline, j, pipeline.microBatch, &paths));

        double sumS = 0;
        double bottleneckS = -1;
        StageTiming bottleneck;
        for (int j = 0; j < stageCount; ++j) {
            const StageQuery &query = s.queries[size_t(j)];
            StageTiming timing = terms.stageTiming(problem, query);
            if (j + 1 < stageCount) {
                const HopTiming hop = terms.hopTiming(problem, query, s.queries[size_t(j) + 1]);
                timing.hopS = hop.totalS;
                timing.hopForwardS = hop.forwardS;
                timing.hopForwardOwnS = hop.forwardOwnS;
                timing.hopBackwardOwnS = hop.backwardOwnS;
            }
            timing.dpCommS = s.perStageDpS[flatStage + size_t(j)];
            const double stageS = timing.totalS();
            sumS += stageS;
            if (stageS > bottleneckS || std::isnan(stageS)) {
                bottleneckS = stageS;
                bottleneck = timing;
            }

            s.bytes.assign(query.gpus.size(), 0.0);
            const Stage &stage = pipeline.stages[size_t(j)];
            terms.stageMemory(problem, query, stageReplicas(s.segments, plan, stage), s.bytes);
            fits = checkStageMemory(problem, query, s.bytes, int(p), j, out) && fits;
            if (out)
                out->pipelines[p].stages.push_back(timing);
        }
        const int m = std::max(pipeline.microBatches, 1);
        // HexiScale eq. 9 (max over all stages, see docs/cost-models.md): the first micro-batch
        // passes every stage, the other m − 1 follow at the pace of the slowest.
        const double pipelineS = sumS + (m > 1 ? (m - 1) * bottleneckS : 0.0);
        if (out) {
            out->pipelines[p].timeS = pipelineS;
            out->pipelines[p].breakdown = pipelineBreakdown(bottleneck, m, pipelineS);
        }
        if (pipelineS > slowestPipelineS || std::isnan(pipelineS)) {
            slowestPipelineS = pipelineS;
            if (out)
                out->breakdown = out->pipelines[p].breakdown;
        }
        flatStage += size_t(stageCount);
    }
    // HexiScale eq. 10: the slowest pipeline, then gradient synchronisation (no overlap).
    const double iterationS = slowestPipelineS + dpS;
    if (!out)
        return fits ? iterationS : kInfinity;

    out->iterationS = iterationS;
    out->breakdown.dpCommS = dpS;
    if (!std::isfinite(iterationS)) {
        out->valid = false;
        addConnectivityErrors(problem, plan, *out);
        return kInfinity;
    }
    const TrainWorkload &train = problem.workload.train;
    const double sequences = train.globalBatch;
    out->tokensPerS = iterationS > 0 ? sequences * train.seqLen / iterationS : 0;
    const double peak = peakFlopsPerS(problem, *out);
    if (iterationS > 0 && peak > 0)
        out->mfu = trainingFlopsPerIteration(problem.model, sequences, train.seqLen)
                   / (iterationS * peak);
    fillCosts(problem, *out);
    return fits ? iterationS : kInfinity;
}

double CostModel::evaluateInference(const Problem &problem, const Plan &plan, Evaluation *out) const
{
    const StageTerms &terms = *m_inference;
    if (plan.pipelines.empty())
        return rejectEmptyPlan(out);
    const InferWorkload &infer = problem.workload.infer;
    Scratch &s = scratch();
    if (out) {
        out->pipelines.assign(plan.pipelines.size(), PipelineTiming{});
        out->replicaLatencyS.assign(plan.pipelines.size(), 0.0);
    }
    // Recorded transports and the mixed-RDMA socket fallback apply to serving replicas too.
    const PlanPaths paths(problem.topology, plan);
    bool fits = true;
    double slowestS = -1;
    double tokensPerS = 0;
    double modelFlopsPerS = 0;
    for (size_t p = 0; p < plan.pipelines.size(); ++p) {
        const Pipeline &pipeline = plan.pipelines[p];
        const int stageCount = int(pipeline.stages.size());
        s.queries.clear();
        for (int j = 0; j < stageCount; ++j)
            s.queries.push_back(stageQueryOf(pipeline, j, infer.batch, &paths));

        Breakdown breakdown;
        for (int j = 0; j < stageCount; ++j) {
            const StageQuery &query = s.queries[size_t(j)];
            StageTiming timing = terms.stageTiming(problem, query);
            if (j + 1 < stageCount)
                timing.hopS = terms.hopS(problem, query, s.queries[size_t(j) + 1]);
            breakdown.computeS += timing.computeS;
            breakdown.tpCommS += timing.tpCommS;
            breakdown.ppCommS += timing.hopS;

            s.bytes.assign(query.gpus.size(), 0.0);
            terms.stageMemory(problem, query, query.dp, s.bytes);
            fits = checkStageMemory(problem, query, s.bytes, int(p), j, out) && fits;
            if (out)
                out->pipelines[p].stages.push_back(timing);
        }
        // HexGen §4.2: a replica's latency is the sum over its stages, no overlap.
        const double latencyS = breakdown.totalS();
        if (latencyS > 0) {
            tokensPerS += double(infer.batch) * infer.outputLen / latencyS;
            modelFlopsPerS += 2.0 * problem.model.totalParams() * infer.batch
                              * (infer.promptLen + infer.outputLen) / latencyS;
        }
        if (out) {
            out->pipelines[p].timeS = latencyS;
            out->pipelines[p].breakdown = breakdown;
            out->replicaLatencyS[p] = latencyS;
        }
        if (latencyS > slowestS || std::isnan(latencyS)) {
            slowestS = latencyS;
            if (out)
                out->breakdown = breakdown;
        }
    }
    if (!out)
        return fits ? slowestS : kInfinity;

    out->iterationS = slowestS;
    if (!std::isfinite(slowestS)) {
        out->valid = false;
        addConnectivityErrors(problem, plan, *out);
        return kInfinity;
    }
    out->tokensPerS = tokensPerS;
    // Inference MFU: 2 FLOPs per parameter per token processed (prompt and output), the
    // usual serving figure; attention FLOPs are not counted.
    const double peak = peakFlopsPerS(problem, *out);
    if (peak > 0)
        out->mfu = modelFlopsPerS / peak;
    fillCosts(problem, *out);
    return fits ? slowestS : kInfinity;
}

} // namespace hetplan
