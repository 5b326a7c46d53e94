#pragma once

#include "core/base/result.h"
#include "runtime/worker/stage_model.h"

#include <cstdint>
#include <string>
#include <vector>

namespace hetplan::runtime {

// The weight dump of `hetplan-worker --dump-weights FILE` (docs/runtime.md, "Weight dumps"):
// the line "hetplan.weights/1", then per parameter slice a line
// "NAME FULL_ELEMENTS SLICE_BEGIN SLICE_END" followed by the slice's floats as raw
// little-endian fp32. Written atomically.
struct WeightSlice
{
    std::string name;
    std::int64_t fullElements = 0;
    std::int64_t sliceBegin = 0;
    std::int64_t sliceEnd = 0;
    std::vector<float> values;
};

Status writeWeightDump(const std::string &path, const std::vector<ParamView> &params);
Result<std::vector<WeightSlice>> readWeightDump(const std::string &path);

} // namespace hetplan::runtime
