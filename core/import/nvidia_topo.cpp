// `nvidia-smi topo -m`: a header of device columns and then affinity columns, one row per
// device, then a legend and (on newer drivers) a NIC legend mapping NIC# to device names.
// Fields are separated by tabs; a copy that lost its tabs (pasted from a terminal) is split at
// runs of two or more spaces instead.
#include "core/import/nvidia_topo.h"

#include "core/import/text_lines.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>

namespace hetplan {
namespace {

constexpr std::size_t kMaxTopoBytes = 1 << 20;
constexpr std::size_t kMaxDevices = 1024;
constexpr std::string_view kValidCells = "X, NV# (e.g. NV12), PIX, PXB, PHB, NODE, SYS";

// Terminal styling (nvidia-smi underlines the header on a terminal) carries no data.
std::string withoutEscapes(std::string_view text)
{
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\x1b' && i + 1 < text.size() && text[i + 1] == '[') {
            i += 2;
            while (i < text.size() && !std::isalpha(static_cast<unsigned char>(text[i])))
                ++i;
            continue;
        }
        out += text[i];
    }
    return out;
}

std::vector<std::string> fields(std::string_view line)
{
    std::vector<std::string> out;
    const bool tabs = line.find('\t') != std::string::npos;
    std::size_t start = 0;
    while (start <= line.size()) {
        std::size_t end = tabs ? line.find('\t', start) : line.find("  ", start);
        if (end == std::string::npos)
            end = line.size();
        out.push_back(trimmed(std::string_view(line).substr(start, end - start)));
        start = end + 1;
        if (!tabs)
            while (start < line.size() && line[start] == ' ')
                ++start;
    }
    return out;
}

bool validCell(std::string_view cell)
{
    if (cell == "X" || cell == "PIX" || cell == "PXB" || cell == "PHB" || cell == "NODE"
        || cell == "SYS")
        return true;
    return nvlinkCount(cell) > 0;
}

bool isAffinityColumn(std::string_view name)
{
    return name.find("Affinity") != std::string_view::npos
           || name.find("NUMA") != std::string_view::npos;
}

} // namespace

int nvlinkCount(std::string_view cell)
{
    if (!cell.starts_with("NV") || cell.size() < 3)
        return 0;
    int count = 0;
    const auto [end, ec] = std::from_chars(cell.data() + 2, cell.data() + cell.size(), count);
    return ec == std::errc() && end == cell.data() + cell.size() && count > 0 ? count : 0;
}

LinkKind topoLinkKind(std::string_view cell)
{
    return nvlinkCount(cell) > 0 ? LinkKind::NvLink : LinkKind::Pcie;
}

Result<NvidiaTopology> parseNvidiaTopo(std::string_view rawText, std::string_view source)
{
    const std::string where(source);
    if (rawText.size() > kMaxTopoBytes)
        return badInput(where + ": " + std::to_string(rawText.size())
                        + " bytes; a topology matrix is at most 1 MiB");
    const std::string text = withoutEscapes(rawText);
    const std::vector<std::string_view> lines = splitLines(text);
    std::size_t header = 0;
    while (header < lines.size() && trimmed(lines[header]).empty())
        ++header;
    if (header == lines.size())
        return badInput(where + ": empty; expected the output of `nvidia-smi topo -m`");
    const auto lineError = [&](std::size_t index, const std::string &what) {
        return badInput(where + ": line " + std::to_string(index + 1) + ": " + what);
    };

    NvidiaTopology topo;
    std::vector<std::string> columns = fields(lines[header]);
    if (!columns.empty() && columns.front().empty())
        columns.erase(columns.begin());
    std::size_t cpuColumn = std::string::npos;
    std::size_t numaColumn = std::string::npos;
    for (std::size_t c = 0; c < columns.size(); ++c) {
        if (isAffinityColumn(columns[c])) {
            if (columns[c] == "CPU Affinity")
                cpuColumn = c;
            else if (columns[c] == "NUMA Affinity")
                numaColumn = c;
        } else if (cpuColumn == std::string::npos && numaColumn == std::string::npos
                   && !columns[c].empty()) {
            topo.devices.push_back(columns[c]);
        }
    }
    const std::size_t n = topo.devices.size();
    if (n == 0 || !topo.isGpu(0))
        return lineError(header, "expected a header of device columns starting with GPU0");
    if (n > kMaxDevices)
        return lineError(header, std::to_string(n) + " devices; at most "
                                     + std::to_string(kMaxDevices) + " are read");
    topo.links.assign(n, {});
    topo.cpuAffinity.assign(n, {});
    topo.numaAffinity.assign(n, {});

    std::map<std::string, std::string> nicNames;
    bool inNicLegend = false;
    for (std::size_t i = header + 1; i < lines.size(); ++i) {
        const std::string line = trimmed(lines[i]);
        if (line.empty())
            continue;
        if (line.starts_with("NIC Legend")) {
            inNicLegend = true;
            continue;
        }
        if (inNicLegend) {
            const std::size_t colon = line.find(':');
            if (colon != std::string::npos)
                nicNames[trimmed(line.substr(0, colon))] = trimmed(line.substr(colon + 1));
            continue;
        }
        std::vector<std::string> row = fields(lines[i]);
        const auto device = std::ranges::find(topo.devices, row.front());
        if (device == topo.devices.end())
            continue; // the legend and notes
        const std::size_t r = std::size_t(device - topo.devices.begin());
        if (!topo.links[r].empty())
            return lineError(i, "a second row for " + row.front());
        if (row.size() < n + 1)
            return lineError(i, "the row of " + row.front() + " has "
                                    + std::to_string(row.size() - 1) + " cells; expected "
                                    + std::to_string(n) + ", one per device column");
        for (std::size_t c = 0; c < n; ++c) {
            const std::string &cell = row[c + 1];
            if (!validCell(cell))
                return lineError(i, "\"" + cell + "\" between " + row.front() + " and "
                                        + topo.devices[c] + " is not a link class; valid: "
                                        + std::string(kValidCells));
            if ((c == r) != (cell == "X"))
                return lineError(i, "\"" + cell + "\" between " + row.front() + " and "
                                        + topo.devices[c]
                                        + ": X marks a device's own cell and only that");
            topo.links[r].push_back(cell);
        }
        const auto extra = [&](std::size_t column) {
            const std::size_t at = column + 1; // row fields start with the device name
            return column != std::string::npos && at < row.size() ? row[at] : std::string();
        };
        topo.cpuAffinity[r] = extra(cpuColumn);
        topo.numaAffinity[r] = extra(numaColumn);
    }
    for (std::size_t d = 0; d < n; ++d)
        if (topo.links[d].empty())
            return badInput(where + ": no row for " + topo.devices[d]
                            + ", which the header lists; every device column needs its row");
    for (std::string &name : topo.devices)
        if (auto it = nicNames.find(name); it != nicNames.end() && !it->second.empty())
            name = it->second;
    return topo;
}

std::vector<TopoLink> topoLinks(const NvidiaTopology &topo)
{
    std::vector<TopoLink> links;
    for (std::size_t i = 0; i < topo.devices.size(); ++i) {
        if (!topo.isGpu(i))
            continue;
        for (std::size_t j = 0; j < topo.devices.size(); ++j)
            if (j != i && (!topo.isGpu(j) || j > i))
                links.push_back({topo.devices[i], topo.devices[j], topo.links[i][j]});
    }
    return links;
}

} // namespace hetplan
