#include "core/serving/serving_phases.h"

#include "core/cost/cost_model.h"
#include "core/plan/plan.h"
#include "core/serving/plan_serving.h"

#include <algorithm>
#include <cassert>
#include <set>

namespace hetplan {

namespace {

// One request of `batch` sequences of the given lengths through the replica.
double latencyAtS(Problem &problem, const CostModel &costModel, const Pipeline &pipeline, int batch,
                  int promptTokens, int outputTokens)
{
    InferWorkload &infer = problem.workload.infer;
    infer.batch = batch;
    infer.promptLen = promptTokens;
    infer.outputLen = outputTokens;
    Pipeline shaped = pipeline;
    shaped.microBatch = batch;
    return replicaLatencyS(problem, costModel, shaped);
}

} // namespace

double ReplicaPhases::prefillSOf(int promptTokens) const
{
    const auto it = std::lower_bound(prefillS.begin(), prefillS.end(),
                                     std::pair<int, double>(promptTokens, -1.0));
    assert(it != prefillS.end() && it->first == promptTokens && "a length the table holds");
    if (it == prefillS.end())
        return prefillS.empty() ? 0.0 : prefillS.back().second;
    return it->second;
}

ServingPhases servingPhases(const Problem &problem, const CostModel &costModel, const Plan &plan,
                            std::span<const ServingRequest> requests)
{
    const InferWorkload &infer = problem.workload.infer;
    std::set<int> promptLengths;
    for (const ServingRequest &request : requests)
        promptLengths.insert(request.promptTokens);
    const Evaluation evaluation = costModel.evaluate(problem, plan);
    const std::vector<bool> fits = replicasThatFit(evaluation, plan);
    Problem asked = problem;
    ServingPhases phases;
    phases.batch = std::max(1, infer.batch);
    for (std::size_t p = 0; p < plan.pipelines.size(); ++p) {
        const Pipeline &pipeline = plan.pipelines[p];
        ReplicaPhases replica;
        replica.fits = fits[p];
        for (int prompt : promptLengths)
            replica.prefillS.emplace_back(prompt,
                                          latencyAtS(asked, costModel, pipeline, 1, prompt, 0));
        const int out = std::max(1, infer.outputLen);
        for (int n = 1; n <= phases.batch; ++n) {
            const double wholeS = latencyAtS(asked, costModel, pipeline, n, infer.promptLen, out);
            const double prefillS = latencyAtS(asked, costModel, pipeline, n, infer.promptLen, 0);
            replica.decodeSPerToken.push_back(std::max(0.0, wholeS - prefillS) / out);
        }
        const double latencyS
            = p < evaluation.replicaLatencyS.size() ? evaluation.replicaLatencyS[p] : 0.0;
        if (evaluation.interval && p < evaluation.interval->replicaLatency.size() && latencyS > 0) {
            const TimeInterval &interval = evaluation.interval->replicaLatency[p];
            replica.lowFactor = interval.loS / latencyS;
            replica.highFactor = interval.hiS / latencyS;
        }
        phases.replicas.push_back(std::move(replica));
    }
    return phases;
}

ServingPhases phasesAt(const ServingPhases &phases, IntervalEnd end)
{
    ServingPhases at = phases;
    for (ReplicaPhases &replica : at.replicas) {
        const double factor = end == IntervalEnd::Low ? replica.lowFactor : replica.highFactor;
        for (auto &[prompt, seconds] : replica.prefillS)
            seconds *= factor;
        for (double &seconds : replica.decodeSPerToken)
            seconds *= factor;
        replica.lowFactor = 1;
        replica.highFactor = 1;
    }
    return at;
}

ServingPhases servingPhases(const Problem &problem, const CostModel &costModel, const Plan &plan)
{
    ServingRequest request;
    request.promptTokens = problem.workload.infer.promptLen;
    return servingPhases(problem, costModel, plan, std::span(&request, 1));
}

std::vector<double> replicaThroughputPerS(const Problem &problem, const CostModel &costModel,
                                          const Plan &plan)
{
    const Evaluation evaluation = costModel.evaluate(problem, plan);
    const std::vector<bool> fits = replicasThatFit(evaluation, plan);
    const double batch = std::max(1, problem.workload.infer.batch);
    std::vector<double> throughput;
    for (std::size_t p = 0; p < plan.pipelines.size(); ++p) {
        const double latencyS
            = p < evaluation.replicaLatencyS.size() ? evaluation.replicaLatencyS[p] : 0.0;
        throughput.push_back(fits[p] && latencyS > 0 ? batch / latencyS : 0.0);
    }
    return throughput;
}

Result<std::vector<ServingRequest>> servingRequests(const Problem &problem,
                                                    const CostModel &costModel, const Plan &plan,
                                                    const PoissonStream &stream,
                                                    const std::string &traceFile)
{
    std::vector<ServingRequest> requests;
    if (traceFile.empty()) {
        requests = poissonRequests(stream);
    } else {
        auto traced = loadServingTrace(traceFile);
        if (!traced)
            return traced.error();
        requests = std::move(traced).value();
    }
    dispatchRequests(requests, replicaThroughputPerS(problem, costModel, plan));
    return requests;
}

} // namespace hetplan
