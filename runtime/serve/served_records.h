#pragma once

// What a replica's scheduler hands `hetplan-cli run`: its requests' ServedRequest records, one
// tab-separated line each (id, replica, arrival, admitted, first token, finish, prompt and
// output tokens, warmup, completed, failure), in the run's private directory (or, launched, the
// job folder its agent sends it back from). Not a file a person keeps: the run gathers them into
// its report.

#include "core/base/result.h"
#include "core/serving/serving_request.h"

#include <string>
#include <vector>

namespace hetplan::runtime {

Status writeServedRecords(const std::string &path, const std::vector<ServedRequest> &served);
Result<std::vector<ServedRequest>> readServedRecords(const std::string &path);
// The records of a file's `text`; errors name `source` and the line.
Result<std::vector<ServedRequest>> parseServedRecords(const std::string &text,
                                                      const std::string &source);

} // namespace hetplan::runtime
