#include "core/serving/serving_comparison.h"

#include "core/cost/measured_plan.h"
#include "core/model/topology.h"
#include "core/plan/plan.h"
#include "core/plan/plan_digest.h"
#include "core/serving/request_sim.h"

#include <algorithm>
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

namespace {

// The same requests simulated as the run served them: its warm-up, and every replica serving.
struct ServingSimulation
{
    std::vector<ServedRequest> requests;
    ServingSummary summary;
    std::vector<ServedReplica> replicas;
};

ServingSimulation simulateRun(const ServingMeasurement &measured, const ServingPhases &phases)
{
    ServingSimulation s;
    s.requests = simulateRequests(requestsOf(measured), phases, measured.run.warmupRequests);
    ServingRun window = measured.run;
    setMeasuredWindow(window, s.requests);
    s.summary
        = summarizeServed(s.requests, measured.run.sloS, window.windowEndS - window.windowBeginS);
    s.replicas = servedReplicas(s.requests, int(measured.replicas.size()));
    return s;
}

// A figure of the simulation at its mean and both ends, beside the measured one. The ends are
// sorted: a higher attainment comes with the faster end.
SimulatedBeside beside(double simulated, double low, double high, double measured)
{
    return {simulated, measured, std::min(low, high), std::max(low, high)};
}

} // namespace

ServingComparison compareServing(const ServingMeasurement &measured, const ServingPhases &phases)
{
    // The run served on these replicas: whether the cluster file's GPUs would hold them does
    // not change what the same requests take (a CPU run of a scaled model never fits them).
    ServingPhases asRun = phases;
    for (ReplicaPhases &replica : asRun.replicas)
        replica.fits = true;
    const ServingSimulation mid = simulateRun(measured, asRun);
    const ServingSimulation low = simulateRun(measured, phasesAt(asRun, IntervalEnd::Low));
    const ServingSimulation high = simulateRun(measured, phasesAt(asRun, IntervalEnd::High));
    ServingComparison c;
    for (std::size_t i = 0; i < measured.replicas.size(); ++i) {
        const ServedReplica &m = measured.replicas[i];
        const ServedReplica &s = mid.replicas[i];
        const ServedReplica &lo = low.replicas[i];
        const ServedReplica &hi = high.replicas[i];
        c.replicas.push_back(
            {m.replica, m.requests,
             beside(s.meanPrefillS, lo.meanPrefillS, hi.meanPrefillS, m.meanPrefillS),
             beside(s.meanTpotS, lo.meanTpotS, hi.meanTpotS, m.meanTpotS),
             beside(s.meanQueueS, lo.meanQueueS, hi.meanQueueS, m.meanQueueS)});
    }
    const ServingSummary &m = measured.summary;
    const auto stat = [&](LatencyStats ServingSummary::*figure, double LatencyStats::*at) {
        return beside(mid.summary.*figure.*at, low.summary.*figure.*at, high.summary.*figure.*at,
                      m.*figure.*at);
    };
    c.ttftP50S = stat(&ServingSummary::ttft, &LatencyStats::p50S);
    c.ttftP90S = stat(&ServingSummary::ttft, &LatencyStats::p90S);
    c.ttftP99S = stat(&ServingSummary::ttft, &LatencyStats::p99S);
    c.tpotP50S = stat(&ServingSummary::tpot, &LatencyStats::p50S);
    c.tpotP90S = stat(&ServingSummary::tpot, &LatencyStats::p90S);
    c.tpotP99S = stat(&ServingSummary::tpot, &LatencyStats::p99S);
    c.latencyP50S = stat(&ServingSummary::latency, &LatencyStats::p50S);
    c.latencyP90S = stat(&ServingSummary::latency, &LatencyStats::p90S);
    c.latencyP99S = stat(&ServingSummary::latency, &LatencyStats::p99S);
    c.attainment = beside(mid.summary.attainment, low.summary.attainment, high.summary.attainment,
                          m.attainment);
    c.simulated = mid.summary;
    c.simulatedRequests = mid.requests;
    c.simulatedLowRequests = low.requests;
    c.simulatedHighRequests = high.requests;
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
