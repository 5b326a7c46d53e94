#pragma once

// HexGen §4.2: the layout of one serving replica on a group of GPUs, by dynamic programming
// over GPU count vectors (Algorithm 1, eq. 3), with back-tracking to the stages, and the
// stage layer partition by §4.3's expectation-maximisation (even first, then proportional to
// each stage's memory).
//
// A "kind" here is one GPU type on one machine: TP groups are of one type inside one machine
// (§4.2's heuristic), so a group's GPUs are counted per machine. Where every type sits on its
// own machines this is the paper's type vector refined just enough to back-track to GPUs. GPUs
// of one machine are taken as interchangeable (true without pair overrides), so stage and hop
// costs are computed once per (machine, TP degree, layers) and cached.

#include "core/plan/plan.h"

#include <cstdint>
#include <map>
#include <span>
#include <stop_token>
#include <unordered_map>
#include <vector>

namespace hetplan {

struct Problem;
class CostModel;

// The GPUs of one machine a group holds: how many, of the machine's available GPUs.
struct GroupPart
{
    int machine = 0;
    int count = 0;
    auto operator<=>(const GroupPart &) const = default;
};
// A pipeline group (§4.3): GPUs by machine, machines ascending, counts > 0.
using GpuGroup = std::vector<GroupPart>;

// τ¹ + τ² (§4.3's merge), machines ascending.
GpuGroup mergedGroups(const GpuGroup &a, const GpuGroup &b);

// One stage of a replica layout, before GPUs are handed out.
struct DraftStage
{
    int machine = 0;
    int tp = 1;
    int layers = 0;
};

struct ReplicaDraft
{
    bool fits = false;   // false: no layout of this group holds the model
    double latencyS = 0; // one request through the replica (HexGen eq. 2)
    std::vector<DraftStage> stages;
};

// Stage and hop costs, memory capacities and group layouts for one problem, cached across
// the whole search. Not thread-safe; one per search.
class ReplicaLayouts
{
public:
    // `available[m]`: the flat GPU indices of machine m the search may use (online GPUs).
    ReplicaLayouts(const Problem &problem, const CostModel &costModel,
                   std::vector<std::vector<int>> available, int maxStages);

    const Problem &problem() const { return m_problem; }
    const std::vector<std::vector<int>> &available() const { return m_available; }
    int machineCount() const { return int(m_available.size()); }

    // Early rejection (§4.3): the group's memory cannot hold one copy of the parameters.
    bool canHoldModel(const GpuGroup &group) const;
    // One copy of the parameters, the bound canHoldModel() applies.
    double modelBytes() const { return m_modelBytes; }
    // The memory of one GPU of machine m.
    double gpuBytes(int machine) const;
    // The best layout of the group (cached by group).
    const ReplicaDraft &layout(const GpuGroup &group);
    // A replica on concrete GPUs: `gpusOf[m]` lists the group's GPUs of machine m.
    Pipeline materialise(const ReplicaDraft &draft,
                         const std::vector<std::vector<int>> &gpusOf) const;

private:
    struct StageCost
    {
        double timeS = 0;
        bool fits = false;
    };
    struct Layout
    {
        double latencyS = 0;
        std::vector<DraftStage> stages;
    };

    const StageCost &stageCost(int machine, int tp, int layers, bool first, bool last);
    double hopS(int machineA, int tpA, int machineB, int tpB);
    bool tpAllowed(int machine, int tp);
    int maxLayers(int machine, int tp, bool first, bool last);
    // Algorithm 1 / eq. 3 for a fixed layer partition; empty stages when nothing fits.
    Layout bestStages(const GpuGroup &group, std::span<const int> layers, bool checkMemory);
    // Latency of given stages, +inf when a stage does not fit.
    double latencyOf(std::span<const DraftStage> stages);
    // §4.3: layers proportional to each stage's memory, clamped to what fits.
    bool partitionByMemory(std::vector<DraftStage> &stages);
    ReplicaDraft computeLayout(const GpuGroup &group);

    const Problem &m_problem;
    const CostModel &m_costModel;
    std::vector<std::vector<int>> m_available;
    int m_maxStages = 8;
    double m_modelBytes = 0;
    std::unordered_map<std::uint64_t, StageCost> m_stageCosts;
    std::unordered_map<std::uint64_t, double> m_hops;
    std::unordered_map<std::uint64_t, bool> m_tpAllowed;
    std::map<std::vector<int>, ReplicaDraft> m_layouts; // key: machine, count, machine, …
    // DP buffers reused across groups.
    std::vector<double> m_cost;
    std::vector<std::int32_t> m_back;
};

} // namespace hetplan
