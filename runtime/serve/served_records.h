#pragma once

// What a replica's scheduler hands `hetplan-cli run`: its requests' ServedRequest records, one
// tab-separated line each (id, replica, arrival, admitted, first token, finish, prompt and
// output tokens, warmup, completed, failure), in the run's private directory. Not a file a
// person keeps: the run gathers them into its report.

#include "core/base/result.h"
#include "core/serving/serving_request.h"

#include <string>
#include <vector>

namespace hetplan::runtime {

Status writeServedRecords(const std::string &path, const std::vector<ServedRequest> &served);
Result<std::vector<ServedRequest>> readServedRecords(const std::string &path);

} // namespace hetplan::runtime
