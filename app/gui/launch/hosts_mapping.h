#pragma once

#include "core/base/result.h"
#include "core/io/hosts_json.h"
#include "core/model/cluster.h"

#include <string>

namespace hetplan::gui {

// The hosts mapping the Hosts dialog edits: one entry per machine of the cluster, in the
// cluster's order. A machine keeps its saved entry; one without takes its canvas "SSH host"
// (Machine::host, which may read "user@host") and the defaults of docs/formats.md ("Hosts").
HostsFile hostsForCluster(const Cluster &cluster, const HostsFile &saved);

// Whether `hosts` can launch on `cluster`: every machine mapped, every entry as strict as a
// hetplan.hosts/1 file reads it. The message names the machine and the field, for example
// "machine B: workdir: is empty; valid: …". An identity must be a readable regular file, and
// rows that share user@host:port must agree on identity, workdir and worker.
Status checkHostsForCluster(const HostsFile &hosts, const Cluster &cluster);

// The machines of `cluster` that `hosts` does not map, comma-separated (empty: none).
std::string unmappedMachines(const HostsFile &hosts, const Cluster &cluster);

} // namespace hetplan::gui
