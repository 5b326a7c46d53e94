#include "core/sim/pipeline_sim.h"

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <deque>

// Why the closed form and the simulation agree, and where they do not.
//
// Notation: stages 0..L (L = p − 1), m micro-batches, f_j = forwardS + sendForwardS and
// b_j = backwardS + sendBackwardS (a stage is busy for its send), w_j = f_j + b_j,
// W = max_j w_j, A_j = Σ_{k<j} f_k, C = Σ_j w_j + (m − 1)·W (HexiScale eq. 9).
// With the order of every stage fixed, starting each operation as soon as possible gives
// every operation its earliest time over all schedules with that order and those
// dependencies (a longest-path argument); so any feasible timing S with non-negative
// starts bounds the simulation from above.
//
// Lower bound (any schedule). Stage k cannot start before micro-batch 0 has passed stages
// 0..k−1 forward (Σ_{j<k} f_j), is then busy m·w_k, and after its last operation, a
// backward, that micro-batch still has to pass k−1..0 backward (Σ_{j<k} b_j). Hence
// T ≥ max_k (Σ_{j<k} w_j + m·w_k); for k = L with w_L = W this is exactly C.
//
// Upper bound (1F1B). Build S: the last stage runs F(n) at A_L + n·W and B(n) right after
// it; B(n) at stage j < L starts at β_j(n) = A_L + n·W + w_L + Σ_{j<k<L} b_k, i.e. the
// backwards ripple down without waiting; every forward at j < L starts as late as both
// its consumer (the same micro-batch at j + 1) and the next operation of its own stage
// allow. S's last operation, B(m−1) at stage 0, ends at exactly C. Every ordering and
// dependency constraint of S holds by construction or because W ≥ w_j (a steady forward
// fits between two backwards spaced W apart). What can fail is only that S starts F(0) at
// stage 0 before time 0. Unrolling the "as late as allowed" recursion, that start is
// min over monotone paths in (stage, micro-batch) of a fixed deadline minus the forwards on
// the path; the deadline after F(n) at stage j (followed by its first or a steady backward)
// leaves Σ_{k>j} w_k + (n − (L − j))·W, while the n extra forwards on the path cost at most
// n·max_{k≤j} f_k. The worst case n = L − j gives the deficit
//     δ = max(0, max_{j<L} [(L − j)·max_{k≤j} f_k − Σ_{k>j} w_k]),
// and S shifted by δ is feasible: T ≤ C + δ.
//
// Consequences. If w_L = W and δ = 0 both bounds meet: T = C exactly. Non-decreasing w_j
// gives both (max_{k≤j} f_k ≤ w_j ≤ w_k for k > j), uniform stages in particular; so do
// m = 1 and p = 1. Elsewhere C is an estimate. A stage after the bottleneck leaves slack
// that 1F1B's warm-up fills, so T < C (common for hop-heavy middle stages); T > C needs
// a forward-heavy stage in front of backward-heavy or nearly idle ones.
//
// GPipe (all forwards, then all backwards) does not match C in general either: in random
// trials it was never below C but up to ~1.7·C; it equals C for uniform stages.

namespace hetplan {

namespace {

struct Op
{
    Pass pass;
    int microBatch;
};

// PipeDream-Flush order of one stage: min(m, p − j) forwards, then backward/forward pairs
// while forwards remain, then the remaining backwards.
std::vector<Op> oneFOneBOrder(int stage, int stageCount, int microBatches)
{
    const int warmUp = std::min(microBatches, stageCount - stage);
    std::vector<Op> order;
    order.reserve(static_cast<size_t>(2 * microBatches));
    int forwards = 0;
    for (; forwards < warmUp; ++forwards)
        order.push_back({Pass::Forward, forwards});
    for (int backwards = 0; backwards < microBatches; ++backwards) {
        order.push_back({Pass::Backward, backwards});
        if (forwards < microBatches)
            order.push_back({Pass::Forward, forwards++});
    }
    return order;
}

double forwardBusyS(const StageWork &s)
{
    return s.forwardS + s.sendForwardS;
}
double backwardBusyS(const StageWork &s)
{
    return s.backwardS + s.sendBackwardS;
}
double perMicroBatchS(const StageWork &s)
{
    return forwardBusyS(s) + backwardBusyS(s);
}

constexpr double kNotYet = -1;

} // namespace

Timeline simulate1F1B(std::span<const StageWork> stages, int microBatches)
{
    Timeline timeline;
    const int stageCount = static_cast<int>(stages.size());
    if (stageCount == 0 || microBatches <= 0)
        return timeline;

    const auto m = static_cast<size_t>(microBatches);
    std::vector<std::vector<Op>> orders;
    for (int j = 0; j < stageCount; ++j) {
        assert(forwardBusyS(stages[static_cast<size_t>(j)]) >= 0
               && backwardBusyS(stages[static_cast<size_t>(j)]) >= 0);
        orders.push_back(oneFOneBOrder(j, stageCount, microBatches));
    }
    // End times (send included) per stage and micro-batch; kNotYet until simulated.
    std::vector<std::vector<double>> forwardEndS(static_cast<size_t>(stageCount),
                                                 std::vector<double>(m, kNotYet));
    std::vector<std::vector<double>> backwardEndS = forwardEndS;
    std::vector<size_t> next(static_cast<size_t>(stageCount), 0);
    std::vector<double> freeAtS(static_cast<size_t>(stageCount), 0);
    std::vector<std::vector<Interval>> perStage(static_cast<size_t>(stageCount));

    // An operation's arrival time, or kNotYet while its producer has not run.
    const auto inputReadyS = [&](int j, const Op &op) {
        const auto i = static_cast<size_t>(op.microBatch);
        if (op.pass == Pass::Forward)
            return j == 0 ? 0.0 : forwardEndS[static_cast<size_t>(j - 1)][i];
        if (j == stageCount - 1)
            return forwardEndS[static_cast<size_t>(j)][i];
        return backwardEndS[static_cast<size_t>(j + 1)][i];
    };

    // Each completion can unblock only its own stage and its two neighbours.
    std::deque<int> pending;
    for (int j = 0; j < stageCount; ++j)
        pending.push_back(j);
    while (!pending.empty()) {
        const int j = pending.front();
        pending.pop_front();
        const auto sj = static_cast<size_t>(j);
        bool advanced = false;
        while (next[sj] < orders[sj].size()) {
            const Op op = orders[sj][next[sj]];
            const double readyS = inputReadyS(j, op);
            if (readyS == kNotYet)
                break;
            const bool forward = op.pass == Pass::Forward;
            const double startS = std::max(freeAtS[sj], readyS);
            const double endS
                = startS + (forward ? forwardBusyS(stages[sj]) : backwardBusyS(stages[sj]));
            std::vector<double> &ends = forward ? forwardEndS[sj] : backwardEndS[sj];
            ends[static_cast<size_t>(op.microBatch)] = endS;
            freeAtS[sj] = endS;
            perStage[sj].push_back({j, op.microBatch, op.pass, startS, endS});
            ++next[sj];
            advanced = true;
        }
        if (advanced) {
            if (j > 0)
                pending.push_back(j - 1);
            if (j + 1 < stageCount)
                pending.push_back(j + 1);
        }
    }

    for (int j = 0; j < stageCount; ++j) {
        const auto sj = static_cast<size_t>(j);
        // The order is deadlock-free: every stage runs all 2m operations.
        assert(next[sj] == orders[sj].size());
        timeline.makespanS = std::max(timeline.makespanS, freeAtS[sj]);
        timeline.intervals.insert(timeline.intervals.end(), perStage[sj].begin(),
                                  perStage[sj].end());
    }
    return timeline;
}

double closedFormPipelineS(std::span<const StageWork> stages, int microBatches)
{
    if (stages.empty() || microBatches <= 0)
        return 0;
    double sumS = 0;
    double maxS = 0;
    for (const StageWork &s : stages) {
        sumS += perMicroBatchS(s);
        maxS = std::max(maxS, perMicroBatchS(s));
    }
    return sumS + (microBatches - 1) * maxS;
}

double pipelineLowerBoundS(std::span<const StageWork> stages, int microBatches)
{
    if (microBatches <= 0)
        return 0;
    double boundS = 0;
    double beforeS = 0; // Σ_{j<k} w_j
    for (const StageWork &s : stages) {
        boundS = std::max(boundS, beforeS + microBatches * perMicroBatchS(s));
        beforeS += perMicroBatchS(s);
    }
    return boundS;
}

double oneFOneBExcessBoundS(std::span<const StageWork> stages)
{
    const int last = static_cast<int>(stages.size()) - 1;
    double excessS = 0;
    double maxForwardS = 0;
    for (int j = 0; j < last; ++j) {
        maxForwardS = std::max(maxForwardS, forwardBusyS(stages[static_cast<size_t>(j)]));
        double afterS = 0;
        for (int k = j + 1; k <= last; ++k)
            afterS += perMicroBatchS(stages[static_cast<size_t>(k)]);
        excessS = std::max(excessS, (last - j) * maxForwardS - afterS);
    }
    return excessS;
}

} // namespace hetplan
