#pragma once

// What a serving run and the serving simulator share: the requests (arrival, prompt and
// output lengths, the replica the dispatcher gives each) and what happened to each one.
// The file format is `hetplan.serving-measurement/1` (docs/formats.md).

#include <cstdint>
#include <string>
#include <vector>

namespace hetplan {

// One request of the stream, before it is served.
struct ServingRequest
{
    int id = 0;           // position in the stream, from 0
    double arrivalS = 0;  // seconds after the stream's start
    int promptTokens = 0; // prefill length
    int outputTokens = 0; // tokens to generate (the first one comes from the prefill)
    int replica = -1;     // the replica the dispatcher sends it to; -1 before dispatch
};

// One request after the run: times are seconds after the stream's start, on one clock.
struct ServedRequest
{
    int id = 0;
    int replica = -1;
    double arrivalS = 0;
    double admittedS = 0;   // joined a running batch (queueing delay = admittedS - arrivalS)
    double firstTokenS = 0; // its first output token was known (time to first token from arrival)
    double finishS = 0;     // its last output token was known
    int promptTokens = 0;
    int outputTokens = 0; // generated, ≤ requested when it failed
    bool warmup = false;  // served before the measured window; excluded from percentiles
    bool completed = false;
    std::string failure; // why not completed (replica died, cancelled); empty if completed
};

} // namespace hetplan
