#pragma once

// Line and word splitting for the plain-text outputs HetPlan imports (`nvidia-smi topo -m`,
// nccl-tests logs, nvbandwidth): tools print these for people, so the readers take them apart
// by lines and blank-separated words and name the line of anything they refuse.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hetplan {

std::string trimmed(std::string_view text);
// Lines without their "\n" or "\r\n".
std::vector<std::string> splitLines(std::string_view text);
// Words separated by spaces and tabs.
std::vector<std::string> splitWords(std::string_view line);
// A whole word as a finite number ("12.5", "1e3"); nullopt for "N/A", "12x", "nan", "inf".
std::optional<double> parseWordNumber(std::string_view word);
// A measured figure for messages and reports, to `significant` digits: "12.35", "1.2e+05".
std::string figureText(double value, int significant = 4);

} // namespace hetplan
