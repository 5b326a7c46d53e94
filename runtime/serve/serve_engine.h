#pragma once

// What one rank of a serving replica runs (docs/runtime.md, "Serving runs"). The first stage's
// TP leader schedules: requests join free batch slots when they have arrived (continuous
// batching up to the workload's batch), and every step carries, per active sequence, either its
// prompt (a prefill chunk) or its last token (one decoded token) through the stages; the last
// stage turns the logits of each sequence's newest position into its next token and sends the
// tokens back. A finished sequence frees its slot for the next queued request at the next step.

#include "core/serving/serving_request.h"
#include "runtime/serve/sampling.h"
#include "runtime/serve/serve_links.h"
#include "runtime/serve/serve_shard.h"
#include "runtime/serve/serve_stage.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <stop_token>
#include <vector>

namespace hetplan::runtime {

struct ServeOptions
{
    SamplingOptions sampling;
    std::uint64_t promptSeed = 0; // prompt tokens: promptToken(promptSeed, request id, position)
    int prefillChunkTokens = 0;   // prompt tokens per step and sequence; 0: the whole prompt
    // Seconds since the common start: the clock arrivals and every recorded time use.
    std::function<double()> nowS;
    // Called on the last stage's leader for every token it picks (tests compare the logits).
    std::function<void(int requestId, int position, std::span<const float> logits)> onLogits;
    // Called on the scheduler for every request as it completes, before the run ends: its
    // record is final then (the worker journals it, so that a scheduler killed before it writes
    // its records keeps the finished requests'; docs/runtime.md, "Serving runs").
    std::function<void(const ServedRequest &)> onCompleted;
};

// Prompt token `position` of request `requestId`: model_init.h's synthetic sequence of that id,
// so a request's prompt is the same on every replica and in the reference.
int promptToken(std::uint64_t seed, int requestId, int position, int vocab);

struct ServeOutcome
{
    std::vector<ServedRequest> served;      // first-stage leader: every request it was given
    std::map<int, std::vector<int>> tokens; // by request id, the tokens generated
    std::optional<Error> error;             // why the replica stopped early, if it did
};

// Runs until the scheduler has finished every request (or `stop` is requested, or a peer fails)
// and told the other stages to stop. `requests` (this replica's, any order) are read on the
// first stage's leader only; the others take an empty list. A request whose prompt + output
// tokens exceed the KV cache's capacity per slot is failed with that reason, not served. On an
// error the scheduler fails what it had not finished with the error's message.
ServeOutcome runServeRank(ServeStage &stage, ServeLinks &links, const ServeRole &role,
                          std::vector<ServingRequest> requests, const ServeOptions &options,
                          const std::stop_token &stop = {});
// The same on a CPU shard, its TP all-reduces through links.tp().
ServeOutcome runServeRank(ServeShard &shard, ServeLinks &links, const ServeRole &role,
                          std::vector<ServingRequest> requests, const ServeOptions &options,
                          const std::stop_token &stop = {});

} // namespace hetplan::runtime
