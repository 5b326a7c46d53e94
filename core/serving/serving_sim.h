#pragma once

// A discrete-event simulation of a serving cluster under a Poisson request stream, the
// SLO-attainment measure HexGen takes from AlpaServe (§4.3 "Put it together", §5.1
// "Evaluation metrics"): requests arrive with exponential gaps, are dispatched to serving
// replicas, wait in the replica's FIFO queue and take the replica's predicted latency.

#include <cstdint>
#include <span>
#include <vector>

namespace hetplan {

// Where an arriving request goes.
enum class DispatchPolicy {
    // Smooth weighted round robin with weight 1/latency over the replicas that meet the SLO
    // when idle (all replicas when none does). The choice depends on the request's position in
    // the stream only, never on time, so with common random numbers every request's latency is
    // non-decreasing in the request rate and attainment is exactly monotone.
    WeightedRoundRobin,
    // To the replica that would finish the request first (HexGen Appendix C's coordinator
    // directing each request to a worker group, knowing every replica's queue); ties go to the
    // lower replica index. The default: slow replicas only take what fast ones cannot, as a
    // real coordinator does. Monotone in the rate only within simulation noise.
    EarliestCompletion,
};

struct ServingOptions
{
    std::uint64_t seed = 1;
    int requests = 2000; // simulated requests per rate
    DispatchPolicy dispatch = DispatchPolicy::EarliestCompletion;
    double targetAttainment = 0.99; // for the highest sustainable rate (HexGen §5.1: 99%)
};

// What one simulated stream says. A request is one batch of the workload's b_t sequences;
// its latency is from arrival to completion (queueing + the replica's latency).
struct ServingOutcome
{
    double requestRatePerS = 0;
    double attainment = 0; // fraction of requests within the SLO
    double p50S = 0;
    double p99S = 0;
    double meanS = 0;
};

// The unit-rate arrival stream is drawn once from the seed; every rate scales the same gaps
// (common random numbers), so results at two rates differ only because of the rate.
class ServingSimulator
{
public:
    explicit ServingSimulator(const ServingOptions &options = {});

    const ServingOptions &options() const { return m_options; }

    // One stream at `ratePerS` over replicas with the given latencies (one per replica).
    // No replica: every request misses.
    ServingOutcome simulate(std::span<const double> replicaLatencyS, double ratePerS,
                            double sloS) const;
    // Attainment only, without percentiles (the planner's fitness).
    double attainment(std::span<const double> replicaLatencyS, double ratePerS, double sloS) const;
    // The highest request rate whose attainment still reaches the target, by bisection to
    // 0.1 %; 0 when even an idle cluster misses the target.
    double maxSustainableRate(std::span<const double> replicaLatencyS, double sloS) const;

private:
    // Latency of every request, in stream order.
    void run(std::span<const double> replicaLatencyS, double ratePerS, double sloS,
             std::vector<double> &latencyS) const;

    ServingOptions m_options;
    std::vector<double> m_unitArrivalS; // cumulative exponential(1) gaps
};

} // namespace hetplan
