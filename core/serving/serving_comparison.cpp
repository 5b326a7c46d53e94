#include "core/serving/serving_comparison.h"

#include "core/cost/measured_plan.h"
#include "core/model/topology.h"
#include "core/plan/plan.h"
#include "core/plan/plan_digest.h"
#include "core/serving/request_sim.h"

#include <limits>
#include <string>

namespace hetplan {

double SimulatedBeside::relativeError() const
{
    if (simulated == 0)
        return std::numeric_limits<double>::quiet_NaN();
    return (measured - simulated) / simulated;
}

std::vector<ServingRequest> requestsOf(const ServingMeasurement &measured)
{
    std::vector<ServingRequest> requests;
    requests.reserve(measured.requests.size());
    for (const ServedRequest &served : measured.requests) {
        ServingRequest r;
        r.id = served.id;
        r.arrivalS = served.arrivalS;
        r.promptTokens = served.promptTokens;
        r.outputTokens = served.completed ? served.outputTokens : measured.run.outputTokens;
        r.replica = served.replica;
        requests.push_back(r);
    }
    return requests;
}

ServingComparison compareServing(const ServingMeasurement &measured, const ServingPhases &phases)
{
    // The run served on these replicas: whether the cluster file's GPUs would hold them does
    // not change what the same requests take (a CPU run of a scaled model never fits them).
    ServingPhases asRun = phases;
    for (ReplicaPhases &replica : asRun.replicas)
        replica.fits = true;
    ServingComparison c;
    c.simulatedRequests
        = simulateRequests(requestsOf(measured), asRun, measured.run.warmupRequests);
    ServingRun window = measured.run;
    setMeasuredWindow(window, c.simulatedRequests);
    c.simulated = summarizeServed(c.simulatedRequests, measured.run.sloS,
                                  window.windowEndS - window.windowBeginS);
    const std::vector<ServedReplica> simulated
        = servedReplicas(c.simulatedRequests, int(measured.replicas.size()));
    for (std::size_t i = 0; i < measured.replicas.size(); ++i) {
        const ServedReplica &m = measured.replicas[i];
        const ServedReplica &s = simulated[i];
        c.replicas.push_back({m.replica,
                              m.requests,
                              {s.meanPrefillS, m.meanPrefillS},
                              {s.meanTpotS, m.meanTpotS},
                              {s.meanQueueS, m.meanQueueS}});
    }
    const ServingSummary &m = measured.summary;
    c.ttftP50S = {c.simulated.ttft.p50S, m.ttft.p50S};
    c.tpotP50S = {c.simulated.tpot.p50S, m.tpot.p50S};
    c.latencyP50S = {c.simulated.latency.p50S, m.latency.p50S};
    c.latencyP90S = {c.simulated.latency.p90S, m.latency.p90S};
    c.latencyP99S = {c.simulated.latency.p99S, m.latency.p99S};
    c.attainment = {c.simulated.attainment, m.attainment};
    return c;
}

namespace {

// The GPU names of a replica in rank order (stage by stage, as the plan lists them).
std::vector<std::string> gpusOf(const Pipeline &pipeline, const Topology &topology)
{
    std::vector<std::string> names;
    for (const Stage &stage : pipeline.stages)
        for (int gpu : stage.gpus)
            names.push_back(topology.gpu(gpu).name);
    return names;
}

std::string servedDifference(const ServingMeasurement &measured, const Plan &plan,
                             const Topology &topology)
{
    std::string text;
    if (measured.replicas.size() != plan.pipelines.size()) {
        text = "the measurement has ";
        text += std::to_string(measured.replicas.size());
        text += " replicas, this plan ";
        text += std::to_string(plan.pipelines.size());
        return text;
    }
    for (std::size_t r = 0; r < plan.pipelines.size(); ++r)
        if (measured.replicas[r].gpus != gpusOf(plan.pipelines[r], topology)) {
            text = "replica ";
            text += std::to_string(r);
            text += " ran on other GPUs";
            return text;
        }
    return "the same GPUs per replica; the stages, layers or TP degrees differ";
}

} // namespace

Status checkServedPlan(const ServingMeasurement &measured, const std::string &measurementSource,
                       const Plan &plan, const Topology &topology, const std::string &planSource)
{
    const std::string digest = planDigest(plan, topology);
    if (measured.run.planDigest == digest)
        return okStatus();
    return otherPlanError(measurementSource, measured.run.planDigest, planSource, digest,
                          servedDifference(measured, plan, topology));
}

} // namespace hetplan
