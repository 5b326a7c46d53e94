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

// Replaces `path` atomically with every record of `served`.
Status writeServedRecords(const std::string &path, const std::vector<ServedRequest> &served);
// Appends one record to `path` (created if missing) in one write: the journal of a scheduler's
// completed requests, which writeServedRecords() replaces at the end. A process killed while
// appending leaves at most a last line without its newline, which reading ignores.
Status appendServedRecord(const std::string &path, const ServedRequest &served);
Result<std::vector<ServedRequest>> readServedRecords(const std::string &path);
// The records of a file's `text` (a last line without its newline, cut short, is left out);
// errors name `source` and the line.
Result<std::vector<ServedRequest>> parseServedRecords(const std::string &text,
                                                      const std::string &source);

} // namespace hetplan::runtime
