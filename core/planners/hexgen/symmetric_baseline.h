#pragma once

// The symmetric yardstick for HexGen (§5.2 compares against HexGen "without asymmetric
// parallel support"): every replica has the same shape, pp stages of the same TP degree with
// even layers, built over the GPUs in cluster order (TP groups inside one machine, as
// Megatron's rank order would place them).

#include "core/plan/plan.h"

#include <optional>
#include <vector>

namespace hetplan {

struct Problem;
class CostModel;
class ServingSimulator;

struct SymmetricShape
{
    int tp = 1;
    int pp = 1;
};

// Replicas of one shape: each machine's GPUs (in order, skipping `offlineGpus`) cut into TP
// groups of `tp` (a machine's remainder idles), consecutive groups chained into replicas of
// `pp` stages with layer counts differing by at most one. Replicas that do not fit in memory
// are left out; the plan may have none.
Plan symmetricPlan(const Problem &problem, const CostModel &costModel, SymmetricShape shape,
                   const std::vector<int> &offlineGpus = {});

// Over TP ∈ {1, 2, 4, 8} and every pipeline depth up to 16 (and the layer count), the plan
// with the highest sustainable request rate under `sloS` (ties: higher attainment at the
// workload's rate); nothing when no shape fits.
std::optional<Plan> bestSymmetricPlan(const Problem &problem, const CostModel &costModel,
                                      const ServingSimulator &simulator, double sloS,
                                      const std::vector<int> &offlineGpus = {});

} // namespace hetplan
