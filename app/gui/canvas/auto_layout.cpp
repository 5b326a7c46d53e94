#include "canvas/auto_layout.h"

#include "canvas/canvas_style.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>

namespace hetplan::gui {

namespace {

// Grid pitch: a card plus a gap wide enough for a link label between neighbours.
constexpr double kStepX = CanvasStyle::kMachineWidth + 40;
constexpr double kStepY = CanvasStyle::kMachineHeight + 60;
constexpr double kGroupGap = 120;
constexpr int kMaxRingMachines = 8;

using Positions = std::vector<std::pair<ItemId, CanvasPosition>>;

// The switch a machine belongs with, or 0.
ItemId homeSwitch(const ClusterModel &model, ItemId machine)
{
    ItemId best = 0;
    double bestGBps = -1;
    for (const ItemId link : model.linksOf(machine)) {
        const auto [a, b] = model.linkEnds(link);
        const ItemId other = a == machine ? b : a;
        if (model.kindOf(other) != ItemKind::Switch)
            continue;
        const double gbps = model.link(link)->bandwidthGBps;
        if (gbps > bestGBps || (gbps == bestGBps && other < best)) {
            best = other;
            bestGBps = gbps;
        }
    }
    return best;
}

// Machines in rows (at most `columns` wide) starting at `left`; returns the width used.
double placeRows(const std::vector<ItemId> &machines, double left, double top, Positions &out)
{
    const int n = static_cast<int>(machines.size());
    const int columns = std::max(1, static_cast<int>(std::ceil(std::sqrt(n * 1.5))));
    for (int i = 0; i < n; ++i) {
        const int row = i / columns;
        const int column = i % columns;
        out.push_back(
            {machines[static_cast<size_t>(i)], {left + column * kStepX, top + row * kStepY}});
    }
    return (std::min(n, columns) - 1) * kStepX;
}

// One switch and its machines, with the group's left edge (card centres) at `left`;
// returns the left edge for the next group.
double placeGroup(ItemId sw, const std::vector<ItemId> &machines, double left, Positions &out)
{
    const int n = static_cast<int>(machines.size());
    if (n <= kMaxRingMachines) {
        // Ring: radius so that neighbouring cards keep a card's width apart.
        const double radius
            = n <= 1 ? kStepY : std::max(kStepY, kStepX / (2 * std::sin(std::numbers::pi / n)));
        const double cx = left + radius;
        for (int i = 0; i < n; ++i) {
            // Start at the top and go clockwise.
            const double angle = -std::numbers::pi / 2 + 2 * std::numbers::pi * i / n;
            out.push_back({machines[static_cast<size_t>(i)],
                           {std::round(cx + radius * std::cos(angle)),
                            std::round(radius * std::sin(angle))}});
        }
        out.push_back({sw, {cx, 0}});
        return cx + radius + kStepX + kGroupGap;
    }
    const int columns = std::max(1, static_cast<int>(std::ceil(std::sqrt(n * 1.5))));
    const int rows = (n + columns - 1) / columns;
    const double width = placeRows(machines, left, -rows * kStepY, out);
    out.push_back({sw, {left + width / 2, kStepY * 0.5}});
    return left + width + kStepX + kGroupGap;
}

} // namespace

Positions autoLayoutPositions(const ClusterModel &model)
{
    std::map<ItemId, std::vector<ItemId>> groups; // switch id -> machines, in id order
    for (const ItemId sw : model.switchIds())
        groups[sw];
    std::vector<ItemId> loose;
    for (const ItemId m : model.machineIds()) {
        const ItemId sw = homeSwitch(model, m);
        (sw ? groups[sw] : loose).push_back(m);
    }

    Positions out;
    double left = 0;
    for (auto &[sw, machines] : groups) {
        std::sort(machines.begin(), machines.end());
        left = placeGroup(sw, machines, left, out);
    }
    if (!loose.empty()) {
        std::sort(loose.begin(), loose.end());
        placeRows(loose, left, 0, out);
    }
    return out;
}

Cluster withLayout(Cluster cluster)
{
    std::vector<CanvasPosition> spots;
    for (const Machine &m : cluster.machines)
        spots.push_back(m.position);
    for (const Switch &s : cluster.switches)
        spots.push_back(s.position);
    const bool stacked
        = spots.size() >= 2 && std::ranges::all_of(spots, [&](const CanvasPosition &p) {
              return p == spots.front();
          });
    ClusterModel model;
    if (!stacked || !model.reset(cluster))
        return cluster;
    const auto positions = autoLayoutPositions(model);
    const auto place = [&](const std::string &name, CanvasPosition &position) {
        const ItemId id = model.nodeByName(name);
        for (const auto &[item, at] : positions)
            if (item == id)
                position = at;
    };
    for (Machine &m : cluster.machines)
        place(m.name, m.position);
    for (Switch &s : cluster.switches)
        place(s.name, s.position);
    return cluster;
}

} // namespace hetplan::gui
