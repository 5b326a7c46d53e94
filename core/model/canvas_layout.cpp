#include "core/model/canvas_layout.h"

#include <algorithm>
#include <cstddef>
#include <vector>

namespace hetplan {
namespace {

// A machine's card is about 240 × 150 px on the canvas; these leave room between cards.
constexpr double kColumnPx = 320;
constexpr double kRowPx = 220;
constexpr std::size_t kMachinesPerRow = 4;

} // namespace

bool spreadStackedNodes(Cluster &cluster)
{
    std::vector<CanvasPosition *> nodes;
    for (Machine &m : cluster.machines)
        nodes.push_back(&m.position);
    for (Switch &s : cluster.switches)
        nodes.push_back(&s.position);
    if (nodes.size() < 2 || !std::all_of(nodes.begin(), nodes.end(), [&](const CanvasPosition *p) {
            return *p == *nodes.front();
        }))
        return false;
    const CanvasPosition origin = *nodes.front();
    for (std::size_t i = 0; i < cluster.machines.size(); ++i) {
        const std::size_t row = i / kMachinesPerRow;
        const std::size_t column = i % kMachinesPerRow;
        cluster.machines[i].position
            = {origin.x + double(column) * kColumnPx, origin.y + double(row) * kRowPx};
    }
    // The switches in a row below the machines, centred under their columns.
    const std::size_t rows = (cluster.machines.size() + kMachinesPerRow - 1) / kMachinesPerRow;
    const std::size_t columns = std::min(cluster.machines.size(), kMachinesPerRow);
    const double machinesWidthPx = double(std::max<std::size_t>(columns, 1) - 1) * kColumnPx;
    const double switchesWidthPx
        = double(std::max<std::size_t>(cluster.switches.size(), 1) - 1) * kColumnPx;
    for (std::size_t i = 0; i < cluster.switches.size(); ++i)
        cluster.switches[i].position
            = {origin.x + (machinesWidthPx - switchesWidthPx) / 2 + double(i) * kColumnPx,
               origin.y + double(rows) * kRowPx};
    return true;
}

} // namespace hetplan
