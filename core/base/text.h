#pragma once

#include <string>
#include <string_view>

namespace hetplan {

// One convention for every place a person reads a plan (CLI, app, exports), matching the plan
// file: pipelines, stages and layers are counted from 0, as their indices in the file are, and a
// layer range is written inclusive with its count, so ranges never read as overlapping.
// The file's half-open [2, 9) reads "2–8 (7 layers)"; [5, 6) reads "5 (1 layer)".
std::string layerRangeText(int layerBegin, int layerEnd);

// A memory figure in GiB as messages print it, without the unit: gibText(61.23) is "61.2".
std::string gibText(double gib, int decimals = 1);

// "stage 1" / "pipeline 0": the index as in the plan file.
std::string stageLabel(int stageIndex);
std::string pipelineLabel(int pipelineIndex);

// Names that differ only in ASCII case are the same name: GPU types, catalog entries, examples.
bool equalsIgnoringCase(std::string_view a, std::string_view b);

} // namespace hetplan
