#pragma once

// Where a cluster's machines and switches sit on the canvas when its file gives them no
// places of their own (hetplan-cli import writes none: a probe measures no layout).

#include "core/model/cluster.h"

namespace hetplan {

// When the cluster has two nodes or more and all of them sit on one spot, spreads them out:
// the machines in rows of four, the switches in a row below them, in file order. Returns
// whether it moved anything; a cluster with a layout of its own is left as it is.
bool spreadStackedNodes(Cluster &cluster);

} // namespace hetplan
