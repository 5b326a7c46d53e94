#pragma once

// A hand-made serving case for the tst_serving_* tests: two replicas, batch 2, round times.

#include "core/serving/request_sim.h"
#include "core/serving/serving_measurement.h"
#include "core/serving/serving_phases.h"
#include "core/serving/serving_request.h"

#include <vector>

namespace hetplan::testing {

inline ServingRequest servingRequest(int id, double arrivalS, int replica, int outputTokens = 3)
{
    ServingRequest r;
    r.id = id;
    r.arrivalS = arrivalS;
    r.promptTokens = 10;
    r.outputTokens = outputTokens;
    r.replica = replica;
    return r;
}

// Replica 0: prefill 1 s, decode steps of 0.5 s alone and 0.8 s for two. Replica 1: 2 s, 1 s
// and 1.5 s. Batch 2.
inline ServingPhases handPhases()
{
    ServingPhases phases;
    phases.batch = 2;
    ReplicaPhases fast;
    fast.prefillS = {{10, 1.0}};
    fast.decodeSPerToken = {0.5, 0.8};
    ReplicaPhases slow;
    slow.prefillS = {{10, 2.0}};
    slow.decodeSPerToken = {1.0, 1.5};
    phases.replicas = {fast, slow};
    return phases;
}

// Six requests: three on replica 0, two on replica 1 (one of a single token), one never
// dispatched.
inline std::vector<ServingRequest> handRequests()
{
    return {servingRequest(0, 0.0, 0), servingRequest(1, 0.5, 0),     servingRequest(2, 0.6, 0),
            servingRequest(3, 1.0, 1), servingRequest(4, 10.0, 1, 1), servingRequest(5, 11.0, -1)};
}

// The hand case as a run would write it, request 0 its warm-up, SLO 4.5 s.
inline ServingMeasurement handMeasurement()
{
    ServingMeasurement m;
    m.run.planFile = "two-replicas.plan.json";
    m.run.planDigest = "0123456789abcdef";
    m.run.model = "tiny";
    m.run.promptTokens = 10;
    m.run.outputTokens = 3;
    m.run.batch = 2;
    m.run.seed = 7;
    m.run.requestRatePerS = 0.5;
    m.run.sloS = 4.5;
    m.run.warmupRequests = 1;
    m.run.hosts = {"localhost"};
    m.requests = simulateRequests(handRequests(), handPhases(), m.run.warmupRequests);
    m.replicas.resize(2);
    m.replicas[0].gpus = {"A:0"};
    m.replicas[0].ranks = {0};
    m.replicas[1].gpus = {"B:0", "B:1"};
    m.replicas[1].ranks = {1, 2};
    summarizeMeasurement(m);
    return m;
}

} // namespace hetplan::testing
