#pragma once

// Where a command's workload came from and which of its fields took their default value, as
// `plan` and `evaluate` report it ("workload" in their --json output, docs/formats.md
// "The other --json reports"). One name table for the fields a workload file may leave
// out; the reader (parseWorkloadFile) reports them, the report writers name them.

#include "core/base/result.h"
#include "core/model/workload.h"

#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hetplan {

// A field of a workload file as the report names it. MicroBatch stands for micro_batch and
// micro_batch_candidates, Slo for slo_s and slo_scale: either spelling gives the field.
enum class WorkloadField {
    GlobalBatch,
    MicroBatch,
    SeqLen,
    PromptLen,
    OutputLen,
    RequestRate,
    Slo,
    Batch
};

// The fields of `mode`, in report order.
std::span<const WorkloadField> workloadFields(Mode mode);
// "global_batch", "micro_batch", "seq_len", "prompt_len", "output_len", "request_rate", "slo",
// "batch".
std::string_view workloadFieldName(WorkloadField field);
// Each field of workloadFields(workload.mode) as the report prints it ("4", "1,2", "2/s",
// "1.5 s", "3 x reference", "none"), in that order.
std::vector<std::string> workloadFieldTexts(const Workload &workload);

// A workload file and the fields of its mode it left out (which took their defaults).
struct WorkloadFile
{
    Workload workload;
    std::set<WorkloadField> defaulted;
};
// parseWorkload, also saying which fields were defaulted.
Result<WorkloadFile> parseWorkloadFile(std::string_view text, std::string_view source);

struct WorkloadOrigin
{
    std::string source;               // "file w.json", "the bundled workload of 'case-study'", ...
    std::set<WorkloadField> defaults; // fields that took their default value
    std::vector<std::string> notes;   // e.g. which bundled workload was not applied, and why
};

} // namespace hetplan
