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
// Lines without their "\n" or "\r\n", as views into `text` (no copy per line).
std::vector<std::string_view> splitLines(std::string_view text);

// The lines of `text` one at a time, without a vector of them: a log of millions of lines
// costs no memory beyond the text itself.
class LineCursor
{
public:
    explicit LineCursor(std::string_view text)
        : m_rest(text)
    {}
    // The next line without its "\n" or "\r\n"; false at the end.
    bool next(std::string_view &line);
    int number() const { return m_number; } // 1-based, of the line `next` gave last

private:
    std::string_view m_rest;
    bool m_done = false;
    int m_number = 0;
};

// Whether `text` holds a control character (a terminal escape, a newline, DEL).
bool hasControlCharacter(std::string_view text);
// `text` for a message: in quotes, control characters as \xNN, at most 80 characters.
std::string quotedForMessage(std::string_view text);
// Words separated by spaces and tabs.
std::vector<std::string> splitWords(std::string_view line);
// A whole word as a finite number ("12.5", "1e3"); nullopt for "N/A", "12x", "nan", "inf".
std::optional<double> parseWordNumber(std::string_view word);
// A measured figure for messages and reports, to `significant` digits: "12.35", "1.2e+05".
std::string figureText(double value, int significant = 4);

} // namespace hetplan
