#pragma once

// HexGen Appendix F: within a region the schedule "aims to maximize device memory utilization
// by incorporating as many model replicas as possible". The packer splits a pool of GPUs (one
// region's, or a group and the idle GPUs beside it) into as many replicas within the SLO as
// its memory allows: every candidate is a minimal group (its layout meets the SLO, and
// without any one of its GPUs it would not; §4.3's early-rejection bound skips the layouts
// of groups that cannot hold one copy of the parameters), the
// most replicas (then the highest Σ 1/latency) come from a dynamic programme over the pool's
// count vectors, and GPUs no replica needs join a replica on their machine where that makes
// it faster (Appendix F's [4,4] on a box of eight, where six would hold the model).

#include "core/planners/hexgen/pipeline_dp.h"

#include <map>
#include <optional>
#include <vector>

namespace hetplan {

class ReplicaPacker
{
public:
    // Not owned: `layouts` must outlive the packer.
    ReplicaPacker(ReplicaLayouts &layouts, double sloS);

    // A partition of `pool` into replica groups within the SLO and idle groups (one per
    // machine with GPUs left over); nothing when no replica within the SLO fits in the pool or
    // the pool has too many count vectors to enumerate. Cached by pool.
    const std::optional<std::vector<GpuGroup>> &pack(const GpuGroup &pool);

private:
    std::optional<std::vector<GpuGroup>> compute(const GpuGroup &pool);
    // Leftover GPUs of each machine join the replica on that machine they speed up most.
    void placeLeftovers(std::vector<GpuGroup> &replicas, std::vector<int> &idle,
                        const GpuGroup &pool);
    bool withinSlo(const GpuGroup &group);

    ReplicaLayouts &m_layouts;
    double m_sloS = 0;
    std::map<GpuGroup, std::optional<std::vector<GpuGroup>>> m_packed;
};

} // namespace hetplan
