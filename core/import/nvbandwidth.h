#pragma once

// NVIDIA nvbandwidth's text output (docs/import.md, "nvbandwidth"): "Device N: NAME" lines,
// then per testcase "Running <testcase>.", a title naming what rows and columns are
// ("memcpy CE GPU(row) <- GPU(column) bandwidth (GB/s)"), a row of column indices, one row per
// device with a figure or N/A per column, and "SUM <testcase> <value>".

#include "core/base/result.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hetplan {

struct NvbandwidthMatrix
{
    std::string testcase; // "device_to_device_memcpy_read_ce"
    std::string title;
    std::string unit;         // "GB/s", "ns", as the title's last parenthesis names it
    std::vector<int> columns; // device indices
    std::vector<int> rows;
    std::vector<std::vector<std::optional<double>>> cells; // [row][column]; nullopt: N/A
    int line = 0;                                          // of the title, 1-based

    // A one-way GPU-to-GPU bandwidth: a device_to_device testcase, not bidirectional, in GB/s.
    bool isPairBandwidth() const;
};

struct NvbandwidthOutput
{
    std::vector<std::string> deviceNames; // by CUDA index; empty where no "Device N:" line
    std::vector<NvbandwidthMatrix> matrices;
};

// Errors name `source`, the line and what would be valid there.
Result<NvbandwidthOutput> parseNvbandwidth(std::string_view text, std::string_view source);
bool looksLikeNvbandwidth(std::string_view text);

} // namespace hetplan
