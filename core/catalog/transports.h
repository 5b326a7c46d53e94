#pragma once

#include "core/model/cluster.h"
#include "core/model/transport_figures.h"

#include <span>

namespace hetplan {

// The `hetplan` model's default figures per transport, one per LinkKind, each with the
// published measurement it comes from (docs/cost-models.md, "Transports and ring scale").
std::span<const TransportFigures> defaultTransports();

// The figures a cluster's links of `kind` get: the cluster's own entry (calibrated or written
// by hand) when it has one, else the default.
const TransportFigures &transportFigures(const Cluster &cluster, LinkKind kind);

} // namespace hetplan
