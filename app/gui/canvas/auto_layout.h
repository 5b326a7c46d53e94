#pragma once

#include "model/cluster_model.h"

#include <utility>
#include <vector>

namespace hetplan::gui {

// Positions that group every machine around the switch it reaches over its widest link
// (ties: the switch created first): a ring for up to eight machines, rows above the switch
// for more. Groups sit side by side in switch order; machines on no switch follow in rows.
// Deterministic: the same cluster always gets the same layout.
std::vector<std::pair<ItemId, CanvasPosition>> autoLayoutPositions(const ClusterModel &model);

// `cluster` with autoLayoutPositions' places where it has no layout of its own: two nodes or
// more, all on one spot, as a file written from measurements has them (a probe measures no
// layout). Any other cluster comes back as it is.
Cluster withLayout(Cluster cluster);

} // namespace hetplan::gui
