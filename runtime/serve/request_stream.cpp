#include "runtime/serve/request_stream.h"

#include "core/cost/cost_model.h"
#include "core/serving/serving_phases.h"

#include <algorithm>

namespace hetplan::runtime {

namespace {

int scaled(int tokens, int scale)
{
    return std::max(1, tokens / scale);
}

} // namespace

Result<std::vector<ServingRequest>> makeRequests(const Problem &problem, const Plan &plan,
                                                 const RequestStreamOptions &options)
{
    if (plan.pipelines.empty())
        return badInput("the plan has no replica to serve requests");
    const InferWorkload &w = problem.workload.infer;
    PoissonStream stream;
    stream.seed = options.seed;
    stream.ratePerS = options.rate.value_or(w.requestRatePerS);
    stream.requests = options.requests;
    stream.durationS = options.durationS;
    stream.promptTokens = scaled(w.promptLen, options.scale);
    stream.outputTokens = scaled(w.outputLen, options.scale);
    if (options.trace.empty()) {
        if (!(stream.ratePerS > 0))
            return badInput("the request rate must be positive (--rate or the workload's "
                            "request_rate)");
        if (options.requests <= 0 && !(options.durationS > 0))
            return badInput("a serving run needs --requests N or --duration S");
    }
    auto costModel = plan.costModel.empty() ? Result<CostModelKind>(CostModelKind::HetPlan)
                                            : costModelKindFromName(plan.costModel);
    if (!costModel)
        return badInput("the plan's cost_model: " + costModel.error().message);
    auto made = servingRequests(problem, *makeCostModel(*costModel), plan, stream, options.trace);
    if (!made)
        return made.error();
    std::vector<ServingRequest> requests = std::move(made).value();
    if (!options.trace.empty()) {
        if (options.requests > 0 && int(requests.size()) > options.requests)
            requests.resize(std::size_t(options.requests));
        for (ServingRequest &r : requests) {
            r.promptTokens = scaled(r.promptTokens, options.scale);
            r.outputTokens = scaled(r.outputTokens, options.scale);
        }
    }
    if (std::any_of(requests.begin(), requests.end(),
                    [](const ServingRequest &r) { return r.replica < 0; }))
        return badInput("no replica of the plan fits in memory: the traffic split sends no "
                        "request anywhere");
    return requests;
}

} // namespace hetplan::runtime
