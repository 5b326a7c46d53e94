#pragma once

// A request-level serving simulation with continuous batching
// (docs/cost-models.md, "Serving, request by request"): what a serving run should measure for the
// same requests. The planner's ServingSimulator (serving_sim.h) stays the coarse one.

#include "core/serving/serving_phases.h"
#include "core/serving/serving_request.h"

#include <span>
#include <vector>

namespace hetplan {

// Each replica serves the requests dispatched to it in arrival order, step by step, as an
// iteration-level scheduler does (Orca; vLLM without chunked prefill). Before each step it admits
// waiting requests while fewer than `batch` are active. A step runs the prompts of the requests
// admitted since the last one (Σ prefillS) and the next token of every other active request
// (decodeSPerToken at their count); the prompt gives a request its first token, every step its
// next; a request leaves the step that gives its last token. Replicas are independent: dispatch
// never looks at queues.
//
// Result in the order of `requests`. The first `warmupRequests` requests (by position) are
// flagged warm-up. A request without a replica, or on one that does not fit, fails.
std::vector<ServedRequest> simulateRequests(std::span<const ServingRequest> requests,
                                            const ServingPhases &phases, int warmupRequests);

} // namespace hetplan
