#pragma once

#include "core/base/result.h"
#include "core/model/cluster.h"
#include "core/model/topology.h"

#include <string_view>

namespace hetplan {

// The one test every cluster that is not read from a file must pass (the designer runs it on
// each edit): the cluster reader would accept what writeCluster makes of it, unchanged, and a
// Topology can be built from it (GPU types resolve). So an edited cluster can always be saved
// and opened again, and planned. Errors read "<source>: machines[2].count: …" like the
// reader's.
Status checkCluster(const Cluster &cluster, std::string_view source);

// A cluster without machines is a valid document (the designer starts from one), but nothing
// can be planned, evaluated or served on it. Every front door that needs GPUs asks this, so
// the user reads one message: "cluster 'x' has no GPUs; add a machine".
Status checkHasGpus(const Topology &topology);

} // namespace hetplan
