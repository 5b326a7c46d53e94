#pragma once

// A request-level serving simulation with continuous batching
// (docs/cost-models.md, "Serving, request by request"): what a serving run should measure for the
// same requests. The planner's ServingSimulator (serving_sim.h) stays the coarse one.

#include "core/serving/serving_phases.h"
#include "core/serving/serving_request.h"

#include <span>
#include <vector>

namespace hetplan {

// Each replica serves the requests dispatched to it in arrival order. Whenever it has fewer
// than `batch` sequences decoding and a request is waiting, it admits the request and runs its
// prefill alone (the decoding batch waits); the prefill gives the first token. Otherwise it runs
// one decode step of every decoding sequence (decodeSPerToken at the batch's size), giving each
// its next token; a sequence leaves the batch with its last token. A request of one output token
// finishes with its prefill. Replicas are independent: dispatch never looks at queues.
//
// Result in the order of `requests`. The first `warmupRequests` requests (by position) are
// flagged warm-up. A request without a replica, or on one that does not fit, fails.
std::vector<ServedRequest> simulateRequests(std::span<const ServingRequest> requests,
                                            const ServingPhases &phases, int warmupRequests);

} // namespace hetplan
