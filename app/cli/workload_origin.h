#pragma once

#include "core/model/workload.h"

#include <nlohmann/json_fwd.hpp>
#include <ostream>
#include <set>
#include <string>
#include <vector>

namespace hetplan::cli {

// Where the workload of a command came from, so every plan and evaluate output can say it:
// a person who copied an example cluster must see that its bundled workload was not applied.
struct WorkloadOrigin
{
    std::string source;             // "file w.json", "the bundled workload of 'case-study'", ...
    std::set<std::string> defaults; // fields (file spelling) that took their default value
    std::vector<std::string> notes; // e.g. which bundled workload was not applied, and why
};

// The fields a file of this mode may leave out, each named as in the file format.
std::vector<std::string> workloadFields(Mode mode);
// Fields of `mode` absent from a workload file's text (all of them if it is not an object).
std::set<std::string> fieldsMissingFrom(const std::string &workloadText, Mode mode);

// "Workload (defaults): train, global_batch 1 (default), ..." plus one line per note.
void printWorkload(std::ostream &out, const Workload &workload, const WorkloadOrigin &origin);
nlohmann::json workloadToJson(const Workload &workload, const WorkloadOrigin &origin);

} // namespace hetplan::cli
