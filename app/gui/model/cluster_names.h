#pragma once

#include "core/model/cluster.h"

#include <string>

namespace hetplan::gui {

// Names in a cluster, as the model's edits need them.

// A name no machine or switch has: stem, stem-2, stem-3, … (a copy of "B-3" is "B-4").
std::string uniqueNameIn(const Cluster &cluster, const std::string &stem);
// The machine of a GPU name: "A:3" → "A".
std::string machineOfGpu(const std::string &gpu);
// "A:3" → "X:3" when renaming A to X; other GPUs unchanged.
std::string renamedGpu(const std::string &gpu, const std::string &from, const std::string &to);
// GPU type names compare without case, as the catalog and Topology do.
bool sameTypeName(const std::string &a, const std::string &b);
// Renames a machine or switch where links and pair overrides name it.
void renameNode(Cluster &cluster, const std::string &from, const std::string &to);

} // namespace hetplan::gui
