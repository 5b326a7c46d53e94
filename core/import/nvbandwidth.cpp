// nvbandwidth's text output. Matrices are read by their column-index row, so a testcase over
// any number of devices reads the same; cells are GB/s (or the unit the title names) or N/A.
#include "core/import/nvbandwidth.h"

#include "core/import/text_lines.h"

#include <algorithm>

namespace hetplan {
namespace {

// Eight GPUs and every testcase print tens of KiB; beyond this a file is no nvbandwidth output.
constexpr std::size_t kMaxOutputBytes = 4u << 20;
constexpr std::size_t kMaxMatrixDevices = 1024;
constexpr std::size_t kMaxMatrices = 4096;

std::optional<int> deviceIndex(std::string_view word)
{
    if (word.empty() || word.size() > 4
        || !std::ranges::all_of(word, [](char c) { return c >= '0' && c <= '9'; }))
        return std::nullopt;
    return std::stoi(std::string(word));
}

// "bandwidth (GB/s)" → "GB/s"; the last parenthesised word of the title.
std::string unitOf(const std::string &title)
{
    const std::size_t open = title.rfind('(');
    const std::size_t close = title.rfind(')');
    if (open == std::string::npos || close == std::string::npos || close < open)
        return {};
    return title.substr(open + 1, close - open - 1);
}

class Reader
{
public:
    Reader(std::string_view source, std::vector<std::string_view> lines)
        : m_source(source)
        , m_lines(std::move(lines))
    {}

    Result<NvbandwidthOutput> read()
    {
        std::string testcase;
        for (std::size_t i = 0; i < m_lines.size(); ++i) {
            const std::string line = trimmed(m_lines[i]);
            if (line.starts_with("Running ")) {
                testcase = trimmed(line.substr(8));
                if (testcase.ends_with("."))
                    testcase.pop_back();
            } else if (line.starts_with("Device ") && line.find(':') != std::string::npos) {
                device(line);
            } else if (line.find("(row)") != std::string::npos
                       && line.find("(column)") != std::string::npos) {
                if (testcase.empty())
                    return at(i, "a matrix title before any \"Running <testcase>.\" line");
                if (m_out.matrices.size() >= kMaxMatrices)
                    return at(i, "more than " + std::to_string(kMaxMatrices) + " matrices");
                if (auto error = matrix(i, testcase))
                    return *error;
            }
        }
        if (m_out.matrices.empty())
            return badInput(m_source
                            + ": no matrix (\"Running <testcase>.\", a title naming GPU(row) and "
                              "GPU(column), column indices, rows); expected nvbandwidth's output");
        return std::move(m_out);
    }

private:
    Error at(std::size_t index, const std::string &what) const
    {
        return badInput(m_source + ": line " + std::to_string(index + 1) + ": " + what);
    }

    // "Device 0: NVIDIA H100 80GB HBM3 (00000000:1b:00)"
    void device(const std::string &line)
    {
        const std::size_t colon = line.find(':');
        const auto index = deviceIndex(trimmed(line.substr(7, colon - 7)));
        if (!index || std::size_t(*index) >= kMaxMatrixDevices)
            return;
        std::string name = trimmed(line.substr(colon + 1));
        if (const std::size_t bus = name.rfind(" ("); bus != std::string::npos)
            name = trimmed(name.substr(0, bus));
        if (m_out.deviceNames.size() <= std::size_t(*index))
            m_out.deviceNames.resize(std::size_t(*index) + 1);
        m_out.deviceNames[std::size_t(*index)] = name;
    }

    // The title is at `i`; advances `i` past the matrix.
    std::optional<Error> matrix(std::size_t &i, const std::string &testcase)
    {
        NvbandwidthMatrix m;
        m.testcase = testcase;
        m.title = trimmed(m_lines[i]);
        m.unit = unitOf(m.title);
        m.line = int(i + 1);
        std::size_t header = i + 1;
        while (header < m_lines.size() && trimmed(m_lines[header]).empty())
            ++header;
        if (header == m_lines.size())
            return at(i, "a matrix title with no matrix after it");
        for (const std::string &word : splitWords(m_lines[header])) {
            const auto index = deviceIndex(word);
            if (!index)
                return at(header, "\"" + word
                                      + "\" in the column row; valid: device indices "
                                        "0, 1, …");
            m.columns.push_back(*index);
        }
        if (m.columns.empty() || m.columns.size() > kMaxMatrixDevices)
            return at(header, "the column row must list 1.." + std::to_string(kMaxMatrixDevices)
                                  + " device indices");
        std::size_t r = header + 1;
        for (; r < m_lines.size(); ++r) {
            const std::vector<std::string> words = splitWords(m_lines[r]);
            const auto row = words.empty() ? std::nullopt : deviceIndex(words.front());
            if (!row)
                break; // a blank line or "SUM …" ends the matrix
            if (words.size() != m.columns.size() + 1)
                return at(r, "the row of device " + words.front() + " has "
                                 + std::to_string(words.size() - 1) + " cells; the column row "
                                 + "lists " + std::to_string(m.columns.size()));
            if (m.rows.size() >= kMaxMatrixDevices)
                return at(r, "more than " + std::to_string(kMaxMatrixDevices) + " rows");
            std::vector<std::optional<double>> cells;
            for (std::size_t c = 1; c < words.size(); ++c) {
                if (words[c] == "N/A") {
                    cells.emplace_back();
                    continue;
                }
                const auto value = parseWordNumber(words[c]);
                if (!value || *value < 0 || *value > 1e9)
                    return at(r, "\"" + words[c] + "\" between device " + words.front()
                                     + " and device " + std::to_string(m.columns[c - 1])
                                     + "; valid: a figure >= 0 or N/A");
                cells.push_back(value);
            }
            m.rows.push_back(*row);
            m.cells.push_back(std::move(cells));
        }
        if (m.rows.empty())
            return at(header, "a column row with no device rows after it");
        i = r - 1;
        m_out.matrices.push_back(std::move(m));
        return std::nullopt;
    }

    std::string m_source;
    std::vector<std::string_view> m_lines;
    NvbandwidthOutput m_out;
};

} // namespace

bool NvbandwidthMatrix::isPairBandwidth() const
{
    return testcase.starts_with("device_to_device")
           && testcase.find("bidirectional") == std::string::npos && unit == "GB/s";
}

bool looksLikeNvbandwidth(std::string_view text)
{
    const std::string_view head = text.substr(0, std::min<std::size_t>(text.size(), 1 << 16));
    return head.find("nvbandwidth") != std::string_view::npos
           || (head.find("Running ") != std::string_view::npos
               && head.find("(row)") != std::string_view::npos);
}

Result<NvbandwidthOutput> parseNvbandwidth(std::string_view text, std::string_view source)
{
    if (text.size() > kMaxOutputBytes)
        return badInput(std::string(source) + ": " + std::to_string(text.size())
                        + " bytes; nvbandwidth output is at most "
                        + std::to_string(kMaxOutputBytes >> 20) + " MiB");
    return Reader(source, splitLines(text)).read();
}

} // namespace hetplan
