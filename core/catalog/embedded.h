#pragma once

#include <span>
#include <string_view>

namespace hetplan::embedded {

// One file of resources/ compiled into the binary; path is relative to resources/,
// e.g. "catalog/gpus.json" or "examples/case-study.cluster.json".
struct EmbeddedFile
{
    std::string_view path;
    std::string_view text;
};

std::span<const EmbeddedFile> files();

} // namespace hetplan::embedded
