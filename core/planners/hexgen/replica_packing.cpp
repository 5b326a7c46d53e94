#include "core/planners/hexgen/replica_packing.h"

#include "core/cost/cost_helpers.h"

#include <algorithm>
#include <cstdint>
#include <utility>

namespace hetplan {

namespace {

// Count vectors of one pool the packer enumerates; a region of five full 8-GPU machines has
// 9⁵ ≈ 59 000.
constexpr long long kMaxPackStates = 100000;
// Candidate groups hold at most this multiple of the parameters' bytes.
constexpr double kMaxMemoryRatio = 2.0;

struct Value
{
    int replicas = 0;
    double ratePerS = 0; // Σ 1/latency

    bool operator>(const Value &other) const
    {
        return replicas != other.replicas ? replicas > other.replicas
                                          : ratePerS > other.ratePerS + 1e-12;
    }
};

struct Candidate
{
    long long index = 0;
    std::vector<int> counts; // per part of the pool
    double ratePerS = 0;
};

} // namespace

ReplicaPacker::ReplicaPacker(ReplicaLayouts &layouts, double sloS)
    : m_layouts(layouts)
    , m_sloS(sloS)
{}

bool ReplicaPacker::withinSlo(const GpuGroup &group)
{
    const ReplicaDraft &draft = m_layouts.layout(group);
    return draft.fits && draft.latencyS <= m_sloS;
}

const std::optional<std::vector<GpuGroup>> &ReplicaPacker::pack(const GpuGroup &pool)
{
    const auto it = m_packed.find(pool);
    if (it != m_packed.end())
        return it->second;
    return m_packed.emplace(pool, compute(pool)).first->second;
}

std::optional<std::vector<GpuGroup>> ReplicaPacker::compute(const GpuGroup &pool)
{
    const size_t kinds = pool.size();
    std::vector<long long> stride(kinds);
    std::vector<double> gpuBytes(kinds);
    long long states = 1;
    for (size_t k = 0; k < kinds; ++k) {
        stride[k] = states;
        states *= pool[k].count + 1;
        if (states > kMaxPackStates)
            return std::nullopt;
        gpuBytes[k] = m_layouts.gpuBytes(pool[k].machine);
    }
    const auto countsOf = [&](long long index, std::vector<int> &counts) {
        counts.resize(kinds);
        for (size_t k = 0; k < kinds; ++k)
            counts[k] = int((index / stride[k]) % (pool[k].count + 1));
    };
    const auto groupOf = [&](const std::vector<int> &counts) {
        GpuGroup group;
        for (size_t k = 0; k < kinds; ++k)
            if (counts[k] > 0)
                group.push_back({pool[k].machine, counts[k]});
        return group;
    };

    // Minimal groups: within the SLO, and not without any one of their GPUs. More GPUs never
    // make a group's best layout slower (the DP may leave GPUs unused), so a group with a
    // smaller one within the SLO is within it too and needs no layout; below §4.3's
    // early-rejection bound nothing is.
    const double modelBytes = m_layouts.modelBytes();
    std::vector<Candidate> candidates;
    std::vector<char> holds(size_t(states), 0);
    std::vector<int> counts;
    for (long long index = 1; index < states; ++index) {
        countsOf(index, counts);
        double bytes = 0;
        bool smallerHolds = false;
        for (size_t k = 0; k < kinds; ++k)
            if (counts[k] > 0) {
                bytes += counts[k] * gpuBytes[k];
                smallerHolds = smallerHolds || holds[size_t(index - stride[k])];
            }
        if (smallerHolds) {
            holds[size_t(index)] = 1;
            continue;
        }
        // A minimal group with twice the memory one copy needs would be all but unused memory.
        if (bytes < modelBytes || bytes > kMaxMemoryRatio * modelBytes)
            continue;
        const GpuGroup group = groupOf(counts);
        if (!withinSlo(group))
            continue;
        holds[size_t(index)] = 1;
        candidates.push_back({index, counts, 1.0 / m_layouts.layout(group).latencyS});
    }
    if (candidates.empty())
        return std::nullopt;

    // best[τ]: the most replicas (then Σ 1/latency) the GPUs counted by τ can hold; choice[τ]
    // is the candidate taken last, or −1 − k for one idle GPU of part k.
    std::vector<Value> best(static_cast<size_t>(states));
    std::vector<std::int32_t> choice(size_t(states), -1);
    for (long long index = 1; index < states; ++index) {
        countsOf(index, counts);
        Value &here = best[size_t(index)];
        bool chosen = false;
        for (size_t k = 0; k < kinds; ++k)
            if (counts[k] > 0 && (!chosen || best[size_t(index - stride[k])] > here)) {
                here = best[size_t(index - stride[k])];
                choice[size_t(index)] = -1 - std::int32_t(k);
                chosen = true;
            }
        for (size_t c = 0; c < candidates.size(); ++c) {
            const Candidate &candidate = candidates[c];
            bool fitsIn = candidate.index <= index;
            for (size_t k = 0; k < kinds && fitsIn; ++k)
                fitsIn = candidate.counts[k] <= counts[k];
            if (!fitsIn)
                continue;
            Value value = best[size_t(index - candidate.index)];
            ++value.replicas;
            value.ratePerS += candidate.ratePerS;
            if (value > here) {
                here = value;
                choice[size_t(index)] = std::int32_t(c);
            }
        }
    }

    std::vector<GpuGroup> replicas;
    std::vector<int> idle(kinds, 0);
    for (long long index = states - 1; index > 0;) {
        const std::int32_t taken = choice[size_t(index)];
        if (taken < 0) {
            ++idle[size_t(-1 - taken)];
            index -= stride[size_t(-1 - taken)];
        } else {
            replicas.push_back(groupOf(candidates[size_t(taken)].counts));
            index -= candidates[size_t(taken)].index;
        }
    }
    placeLeftovers(replicas, idle, pool);
    for (size_t k = 0; k < kinds; ++k)
        if (idle[k] > 0)
            replicas.push_back({{pool[k].machine, idle[k]}});
    return replicas;
}

void ReplicaPacker::placeLeftovers(std::vector<GpuGroup> &replicas, std::vector<int> &idle,
                                   const GpuGroup &pool)
{
    for (size_t k = 0; k < pool.size(); ++k) {
        if (idle[k] == 0)
            continue;
        const GpuGroup leftover{{pool[k].machine, idle[k]}};
        size_t bestReplica = replicas.size();
        double bestGainPerS = 0;
        for (size_t r = 0; r < replicas.size(); ++r) {
            const GpuGroup &replica = replicas[r];
            const bool onMachine
                = std::any_of(replica.begin(), replica.end(),
                              [&](const GroupPart &p) { return p.machine == pool[k].machine; });
            if (!onMachine)
                continue;
            const GpuGroup grown = mergedGroups(replica, leftover);
            if (!withinSlo(grown))
                continue;
            const double gainPerS
                = 1.0 / m_layouts.layout(grown).latencyS - 1.0 / m_layouts.layout(replica).latencyS;
            if (gainPerS > bestGainPerS) {
                bestGainPerS = gainPerS;
                bestReplica = r;
            }
        }
        if (bestReplica < replicas.size()) {
            replicas[bestReplica] = mergedGroups(replicas[bestReplica], leftover);
            idle[k] = 0;
        }
    }
}

} // namespace hetplan
