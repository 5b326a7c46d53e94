#pragma once

#include "core/base/result.h"
#include "core/model/cluster.h"

#include <string_view>

namespace hetplan {

// The one test every cluster that is not read from a file must pass (the designer runs it on
// each edit): the cluster reader would accept what writeCluster makes of it, unchanged, and a
// Topology can be built from it (GPU types resolve). So an edited cluster can always be saved
// and opened again, and planned. Errors read "<source>: machines[2].count: …" like the
// reader's.
Status checkCluster(const Cluster &cluster, std::string_view source);

} // namespace hetplan
