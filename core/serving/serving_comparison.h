#pragma once

// A serving run beside the request-level simulation of the same requests
// (docs/cost-models.md, "Serving, request by request"): the measured arrivals, lengths and
// replicas are simulated with the cost model's phases, and each figure is set side by side.

#include "core/base/result.h"
#include "core/serving/serving_measurement.h"
#include "core/serving/serving_phases.h"

#include <string>
#include <vector>

namespace hetplan {

struct Plan;
class Topology;

struct SimulatedBeside
{
    double simulated = 0;
    double measured = 0;
    // The simulation's 90 % interval: the same requests with every replica's phases at the low
    // and at the high end of theirs (phasesAt, core/serving/serving_phases.h); low ≤ high.
    double low = 0;
    double high = 0;
    // (measured − simulated) / simulated; NaN when nothing was simulated.
    double relativeError() const;
    bool measuredInside() const { return measured >= low && measured <= high; }
};

struct ReplicaServingComparison
{
    int replica = 0;
    int requests = 0;
    SimulatedBeside prefillS; // mean first token − admitted
    SimulatedBeside tpotS;    // mean time per output token after the first
    SimulatedBeside queueS;   // mean admitted − arrival
};

struct ServingComparison
{
    std::vector<ReplicaServingComparison> replicas;
    SimulatedBeside ttftP50S;
    SimulatedBeside ttftP90S;
    SimulatedBeside ttftP99S;
    SimulatedBeside tpotP50S;
    SimulatedBeside tpotP90S;
    SimulatedBeside tpotP99S;
    SimulatedBeside latencyP50S;
    SimulatedBeside latencyP90S;
    SimulatedBeside latencyP99S;
    SimulatedBeside attainment;
    ServingSummary simulated;
    std::vector<ServedRequest> simulatedRequests; // for a latency CDF beside the measured one
    // The same requests at the interval's ends, for a band around that CDF.
    std::vector<ServedRequest> simulatedLowRequests;
    std::vector<ServedRequest> simulatedHighRequests;
};

// The measurement's requests are simulated as they arrived and were dispatched, with its batch
// and warm-up; a request that failed is simulated with the run's output length (what it asked
// for is not in the file), one never dispatched fails in the simulation too. Every replica
// serves, whether or not the cluster file's GPUs would hold it: the run is the evidence. `phases`
// come from servingPhases() for the run's model, lengths and batch over requestsOf(measured).
ServingComparison compareServing(const ServingMeasurement &measured, const ServingPhases &phases);

// The requests of a measurement as a stream, for servingPhases() and the simulation.
std::vector<ServingRequest> requestsOf(const ServingMeasurement &measured);

// Whether `measured` is a run of `plan`: its run.plan_digest against planDigest(plan); a run of
// another plan is refused as the training comparison refuses it (core/cost/measured_plan.h),
// naming the first replica whose GPUs differ.
Status checkServedPlan(const ServingMeasurement &measured, const std::string &measurementSource,
                       const Plan &plan, const Topology &topology, const std::string &planSource);

} // namespace hetplan
