#include "runtime/serve/request_stream.h"

#include "runtime/model/counter_hash.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

namespace hetplan::runtime {

namespace {

// The stream of the arrival uniforms (apart from the tensors' name hashes and the sampler's).
constexpr std::uint64_t kArrivalStream = 0x6172726976616c73ULL; // "arrivals"

int scaled(int tokens, int scale)
{
    return std::max(1, tokens / scale);
}

Result<std::vector<ServingRequest>> traceRequests(const RequestStreamOptions &options)
{
    std::ifstream in(options.trace);
    if (!in)
        return badInput("--trace " + options.trace + ": cannot read the file");
    std::vector<ServingRequest> requests;
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
        const auto start = line.find_first_not_of(" \t\r");
        if (start == std::string::npos || line[start] == '#')
            continue;
        std::istringstream fields(line);
        ServingRequest r;
        if (!(fields >> r.arrivalS >> r.promptTokens >> r.outputTokens) || r.arrivalS < 0
            || r.promptTokens < 1 || r.outputTokens < 1)
            return badInput(options.trace + ":" + std::to_string(number)
                            + ": expected ARRIVAL_S PROMPT_TOKENS OUTPUT_TOKENS (arrival ≥ 0, "
                              "lengths ≥ 1)");
        r.promptTokens = scaled(r.promptTokens, options.scale);
        r.outputTokens = scaled(r.outputTokens, options.scale);
        requests.push_back(r);
        if (options.requests > 0 && int(requests.size()) == options.requests)
            break;
    }
    std::stable_sort(
        requests.begin(), requests.end(),
        [](const ServingRequest &a, const ServingRequest &b) { return a.arrivalS < b.arrivalS; });
    return requests;
}

} // namespace

Result<std::vector<ServingRequest>> makeRequests(const Plan &plan,
                                                 const RequestStreamOptions &options)
{
    if (plan.pipelines.empty())
        return badInput("the plan has no replica to serve requests");
    std::vector<ServingRequest> requests;
    if (!options.trace.empty()) {
        auto read = traceRequests(options);
        if (!read)
            return read.error();
        requests = std::move(read).value();
    } else {
        const InferWorkload &w = plan.workload.infer;
        const double rate = options.rate.value_or(w.requestRatePerS);
        if (!(rate > 0))
            return badInput("the request rate must be positive (--rate or the workload's "
                            "request_rate)");
        if (options.requests <= 0 && !(options.durationS > 0))
            return badInput("a serving run needs --requests N or --duration S");
        double t = 0;
        for (int i = 0;; ++i) {
            // Exponential gaps of mean 1/rate: a Poisson process (inverse CDF of a uniform in
            // (0, 1]).
            const double u = 1.0
                             - counter_hash::uniform(
                                 counter_hash::key(options.seed, kArrivalStream, std::uint64_t(i)));
            t += -std::log(u) / rate;
            if (options.requests > 0 ? i >= options.requests : t > options.durationS)
                break;
            requests.push_back(
                {0, t, scaled(w.promptLen, options.scale), scaled(w.outputLen, options.scale), 0});
        }
    }
    const int replicas = int(plan.pipelines.size());
    for (std::size_t i = 0; i < requests.size(); ++i) {
        requests[i].id = int(i);
        requests[i].replica = int(i) % replicas;
    }
    return requests;
}

} // namespace hetplan::runtime
