#pragma once

#include "core/base/result.h"
#include "core/model/cluster.h"
#include "core/model/model_spec.h"
#include "core/model/workload.h"

#include <string_view>

namespace hetplan {

// What the CLI and the app accept where a cluster or model is asked for: a bundled name
// ("case-study", "llama2-13b") or a path to a file.
Result<Cluster> loadCluster(std::string_view nameOrPath);
Result<ModelSpec> loadModel(std::string_view nameOrPath);
Result<Workload> loadWorkload(std::string_view path);

} // namespace hetplan
