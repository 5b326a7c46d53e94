#include "core/serving/request_sim.h"

#include <algorithm>
#include <cassert>

namespace hetplan {

namespace {

struct Active
{
    std::size_t index = 0; // into the result
    int tokensLeft = 0;    // output tokens still to come
    bool prefilled = false;
};

// One replica's queue, from time 0, step by step.
void serveReplica(std::span<const ServingRequest> requests, std::span<const std::size_t> queue,
                  const ReplicaPhases &replica, int batch, std::vector<ServedRequest> &served)
{
    std::vector<Active> active;
    std::size_t next = 0; // first request of the queue not yet admitted
    double nowS = 0;
    while (next < queue.size() || !active.empty()) {
        while (int(active.size()) < batch && next < queue.size()
               && requests[queue[next]].arrivalS <= nowS) {
            const std::size_t index = queue[next++];
            served[index].admittedS = nowS;
            active.push_back({index, requests[index].outputTokens, false});
        }
        if (active.empty()) {
            nowS = std::max(nowS, requests[queue[next]].arrivalS);
            continue;
        }
        // The step: the prompts of the newly admitted, the next token of the others.
        double stepS = 0;
        std::size_t decoding = 0;
        for (const Active &a : active) {
            if (a.prefilled)
                ++decoding;
            else
                stepS += replica.prefillSOf(requests[a.index].promptTokens);
        }
        if (decoding > 0) {
            assert(decoding <= replica.decodeSPerToken.size());
            stepS += replica.decodeSPerToken[decoding - 1];
        }
        nowS += stepS;
        for (Active &a : active) {
            ServedRequest &out = served[a.index];
            if (!a.prefilled) {
                a.prefilled = true;
                out.firstTokenS = nowS;
            }
            if (--a.tokensLeft == 0) {
                out.finishS = nowS;
                out.completed = true;
            }
        }
        std::erase_if(active, [](const Active &a) { return a.tokensLeft == 0; });
    }
}

} // namespace

std::vector<ServedRequest> simulateRequests(std::span<const ServingRequest> requests,
                                            const ServingPhases &phases, int warmupRequests)
{
    assert(phases.batch >= 1);
    std::vector<ServedRequest> served(requests.size());
    std::vector<std::vector<std::size_t>> queues(phases.replicas.size());
    for (std::size_t i = 0; i < requests.size(); ++i) {
        const ServingRequest &request = requests[i];
        ServedRequest &out = served[i];
        out.id = request.id;
        out.replica = request.replica;
        out.arrivalS = request.arrivalS;
        out.promptTokens = request.promptTokens;
        out.outputTokens = request.outputTokens;
        out.warmup = int(i) < warmupRequests;
        const bool known = request.replica >= 0 && std::size_t(request.replica) < queues.size();
        if (!known) {
            out.outputTokens = 0;
            out.failure = "no replica can serve it";
        } else if (!phases.replicas[std::size_t(request.replica)].fits) {
            out.outputTokens = 0;
            out.failure = "its replica does not fit in memory";
        } else {
            queues[std::size_t(request.replica)].push_back(i);
        }
    }
    for (std::size_t r = 0; r < queues.size(); ++r) {
        std::vector<std::size_t> &queue = queues[r];
        // Arrival order; a stream is already in it, a hand-made list may not be.
        std::stable_sort(queue.begin(), queue.end(), [&](std::size_t a, std::size_t b) {
            return requests[a].arrivalS < requests[b].arrivalS;
        });
        if (phases.replicas[r].fits)
            serveReplica(requests, queue, phases.replicas[r], phases.batch, served);
    }
    return served;
}

} // namespace hetplan
