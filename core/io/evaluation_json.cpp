#include "core/io/evaluation_json.h"

#include "core/cost/phase_key.h"
#include "core/cost/prediction_interval.h"
#include "core/model/topology.h"

#include <nlohmann/json.hpp>

namespace hetplan {
namespace {

nlohmann::json breakdownToJson(const Breakdown &b)
{
    nlohmann::json out;
    for (const Phase phase : kBreakdownPhases)
        out[std::string(phaseName(phase))] = b.*phaseField(phase);
    return out;
}

nlohmann::json stageToJson(const StageTiming &s)
{
    return {{"forward_s", s.forwardS}, {"backward_s", s.backwardS}, {"compute_s", s.computeS},
            {"tp_comm_s", s.tpCommS},  {"hop_s", s.hopS},           {"dp_comm_s", s.dpCommS}};
}

nlohmann::json intervalToJson(const TimeInterval &interval)
{
    return {{"lo", interval.loS}, {"hi", interval.hiS}};
}

nlohmann::json predictionIntervalToJson(const PredictionInterval &interval)
{
    nlohmann::json phases;
    for (const Phase phase : kBreakdownPhases)
        phases[std::string(phaseName(phase))] = intervalToJson(phaseInterval(interval, phase));
    nlohmann::json out{{"confidence", interval.confidence},
                       {"iteration_s", intervalToJson(interval.iteration)},
                       {"breakdown_s", std::move(phases)},
                       {"extrapolates",
                        {{"gpu_types", interval.extrapolatedGpuTypes},
                         {"link_kinds", interval.extrapolatedLinks}}}};
    if (!interval.replicaLatency.empty()) {
        nlohmann::json replicas = nlohmann::json::array();
        for (const TimeInterval &r : interval.replicaLatency)
            replicas.push_back(intervalToJson(r));
        out["replica_latency_s"] = std::move(replicas);
    }
    return out;
}

} // namespace

nlohmann::json evaluationToJson(const Evaluation &evaluation, const Topology &topology)
{
    nlohmann::json out;
    out["valid"] = evaluation.valid;
    out["errors"] = evaluation.errors;
    out["iteration_s"] = evaluation.iterationS;
    out["mfu"] = evaluation.mfu;
    out["tokens_per_s"] = evaluation.tokensPerS;
    out["breakdown_s"] = breakdownToJson(evaluation.breakdown);

    nlohmann::json memory = nlohmann::json::array();
    for (const GpuMemory &m : evaluation.memory) {
        const bool known = m.gpu >= 0 && m.gpu < topology.gpuCount();
        memory.push_back({{"gpu", known ? topology.gpu(m.gpu).name : std::string("?")},
                          {"used_GiB", m.usedGiB},
                          {"capacity_GiB", m.capacityGiB},
                          {"fits", m.fits()}});
    }
    out["memory"] = std::move(memory);

    if (evaluation.costPerIterationUsd)
        out["cost_per_iteration_usd"] = *evaluation.costPerIterationUsd;
    if (evaluation.costPerMillionTokensUsd)
        out["cost_per_million_tokens_usd"] = *evaluation.costPerMillionTokensUsd;
    if (evaluation.interval)
        out["interval"] = predictionIntervalToJson(*evaluation.interval);
    if (!evaluation.replicaLatencyS.empty())
        out["replica_latency_s"] = evaluation.replicaLatencyS;
    if (const std::optional<ServingFigures> &s = evaluation.serving) {
        out["serving"] = {{"request_rate", s->requestRatePerS},
                          {"slo_s", s->sloS},
                          {"reference_latency_s", s->referenceLatencyS},
                          {"attainment", s->attainment},
                          {"p50_s", s->p50S},
                          {"p99_s", s->p99S},
                          {"target_attainment", s->targetAttainment},
                          {"max_rate", s->maxRatePerS}};
    }

    nlohmann::json pipelines = nlohmann::json::array();
    for (const PipelineTiming &p : evaluation.pipelines) {
        nlohmann::json stages = nlohmann::json::array();
        for (const StageTiming &s : p.stages)
            stages.push_back(stageToJson(s));
        pipelines.push_back({{"time_s", p.timeS},
                             {"breakdown_s", breakdownToJson(p.breakdown)},
                             {"stages", std::move(stages)}});
    }
    out["pipelines"] = std::move(pipelines);
    return out;
}

} // namespace hetplan
