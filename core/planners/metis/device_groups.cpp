#include "core/planners/metis/device_groups.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <map>
#include <numeric>
#include <set>
#include <tuple>

namespace hetplan::metis {

namespace {

// GPU types are few in practice (the paper mixes three); 4! orders stay cheap.
constexpr size_t kMaxTypeOrders = 24;

int machineType(const Topology &topology, int machine)
{
    return topology.gpu(topology.firstGpuOf(machine)).typeIndex;
}

double typeSpeed(const Topology &topology, int machine)
{
    const GpuType &type = topology.gpuType(topology.firstGpuOf(machine));
    return type.tflops * type.achievedFraction;
}

// Distinct orders of `blocks` when there are at most `limit`; 0 stands for "more".
size_t orderCount(const std::vector<std::vector<int>> &blocks, size_t limit)
{
    std::map<std::vector<int>, int> multiplicity;
    for (const std::vector<int> &block : blocks)
        ++multiplicity[block];
    // n! / Π m_i!, built up factor by factor so that it stays exact while it is small.
    double count = 1;
    int placed = 0;
    for (const auto &[block, m] : multiplicity)
        for (int i = 1; i <= m; ++i) {
            ++placed;
            count = count * placed / i;
            if (count > double(limit))
                return 0;
        }
    return size_t(std::llround(count));
}

} // namespace

std::vector<std::vector<int>> machineOrders(const Topology &topology)
{
    const int machines = int(topology.cluster().machines.size());
    std::vector<int> used; // machines with GPUs
    for (int m = 0; m < machines; ++m)
        if (topology.cluster().machines[size_t(m)].count > 0)
            used.push_back(m);
    // Types, fastest first (ties by type index, so that the order is deterministic).
    std::vector<int> types;
    std::map<int, double> speed;
    for (int m : used)
        if (speed.emplace(machineType(topology, m), typeSpeed(topology, m)).second)
            types.push_back(machineType(topology, m));
    std::sort(types.begin(), types.end(),
              [&](int a, int b) { return std::tie(speed[b], a) < std::tie(speed[a], b); });

    const auto orderFor = [&](const std::vector<int> &typeOrder) {
        std::vector<int> order;
        for (int type : typeOrder) {
            std::vector<int> ofType;
            for (int m : used)
                if (machineType(topology, m) == type)
                    ofType.push_back(m);
            std::stable_sort(ofType.begin(), ofType.end(), [&](int a, int b) {
                return topology.cluster().machines[size_t(a)].count
                       > topology.cluster().machines[size_t(b)].count;
            });
            order.insert(order.end(), ofType.begin(), ofType.end());
        }
        return order;
    };

    std::vector<std::vector<int>> orders;
    std::vector<int> permutation(types.size());
    std::iota(permutation.begin(), permutation.end(), 0);
    do {
        if (orders.size() == kMaxTypeOrders) {
            std::vector<int> slowestFirst(types.rbegin(), types.rend());
            orders.resize(1);
            orders.push_back(orderFor(slowestFirst));
            break;
        }
        std::vector<int> typeOrder;
        typeOrder.reserve(permutation.size());
        for (int i : permutation)
            typeOrder.push_back(types[size_t(i)]);
        orders.push_back(orderFor(typeOrder));
    } while (std::next_permutation(permutation.begin(), permutation.end()));
    return orders;
}

std::vector<int> groupSizes(const Topology &topology)
{
    const int gpus = topology.gpuCount();
    std::set<int> sizes;
    for (int p = 1; p <= gpus; p *= 2)
        sizes.insert(p);
    for (const Machine &machine : topology.cluster().machines)
        for (int d = 1; d <= machine.count; ++d)
            if (machine.count % d == 0)
                sizes.insert(d);
    return {sizes.begin(), sizes.end()};
}

std::vector<std::vector<int>> stageSizeSets(int stages, int gpus, std::span<const int> sizes,
                                            double variance, size_t limit)
{
    assert(stages >= 1);
    // §4.2.2: "device groups with sizes only larger than N_GPUs / S · (1 − var)".
    const double smallest = double(gpus) / stages * (1.0 - variance);
    std::vector<int> allowed;
    for (int size : sizes)
        if (size >= smallest - 1e-9 && size <= gpus)
            allowed.push_back(size);
    std::vector<std::vector<int>> result;
    if (allowed.empty())
        return result;
    std::vector<int> current;
    // Non-decreasing choices from allowed[from..]; `left` GPUs over `count` more stages.
    const auto recurse = [&](auto &self, size_t from, int left, int count) -> void {
        if (result.size() >= limit)
            return;
        if (count == 0) {
            if (left == 0)
                result.push_back(current);
            return;
        }
        if (allowed.back() * count < left)
            return;
        for (size_t i = from; i < allowed.size(); ++i) {
            if (allowed[i] * count > left)
                break;
            current.push_back(allowed[i]);
            self(self, i, left - allowed[i], count - 1);
            current.pop_back();
        }
    };
    recurse(recurse, 0, gpus, stages);
    return result;
}

std::vector<std::vector<int>> pairSmallest(std::span<const int> sizes, int maxLength)
{
    std::vector<std::vector<int>> blocks;
    for (int size : sizes)
        blocks.push_back({size});
    const auto total = [](const std::vector<int> &block) {
        return std::accumulate(block.begin(), block.end(), 0);
    };
    const auto bySize = [&](const std::vector<int> &a, const std::vector<int> &b) {
        const int ta = total(a);
        const int tb = total(b);
        return ta != tb ? ta < tb : a < b;
    };
    std::sort(blocks.begin(), blocks.end(), bySize);
    while (int(blocks.size()) > std::max(maxLength, 1)) {
        std::vector<int> pair = blocks[0];
        pair.insert(pair.end(), blocks[1].begin(), blocks[1].end());
        blocks.erase(blocks.begin(), blocks.begin() + 2);
        blocks.insert(std::upper_bound(blocks.begin(), blocks.end(), pair, bySize), pair);
    }
    return blocks;
}

std::vector<std::vector<int>> blockOrders(const std::vector<std::vector<int>> &blocks, size_t limit,
                                          std::mt19937_64 &random)
{
    std::vector<std::vector<int>> distinct = blocks;
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    std::vector<int> ids; // each block as its index in `distinct`, sorted
    ids.reserve(blocks.size());
    for (const std::vector<int> &block : blocks)
        ids.push_back(
            int(std::lower_bound(distinct.begin(), distinct.end(), block) - distinct.begin()));
    std::sort(ids.begin(), ids.end());

    const auto flatten = [&](const std::vector<int> &order) {
        std::vector<int> sizes;
        for (int id : order)
            sizes.insert(sizes.end(), distinct[size_t(id)].begin(), distinct[size_t(id)].end());
        return sizes;
    };
    std::vector<std::vector<int>> result;
    if (orderCount(blocks, limit) != 0) {
        do
            result.push_back(flatten(ids));
        while (std::next_permutation(ids.begin(), ids.end()));
        return result;
    }
    std::set<std::vector<int>> seen;
    for (size_t attempt = 0; attempt < 4 * limit && seen.size() < limit; ++attempt) {
        std::shuffle(ids.begin(), ids.end(), random);
        if (seen.insert(ids).second)
            result.push_back(flatten(ids));
    }
    return result;
}

std::vector<std::vector<int>> cutGroups(const Topology &topology, std::span<const int> machineOrder,
                                        std::span<const int> sizes)
{
    std::vector<int> gpus;
    for (int m : machineOrder)
        for (int i = 0; i < topology.cluster().machines[size_t(m)].count; ++i)
            gpus.push_back(topology.firstGpuOf(m) + i);
    std::vector<std::vector<int>> groups;
    size_t next = 0;
    for (int size : sizes) {
        assert(next + size_t(size) <= gpus.size());
        groups.emplace_back(gpus.begin() + long(next), gpus.begin() + long(next) + size);
        next += size_t(size);
    }
    return groups;
}

std::vector<int> machineClasses(const Topology &topology)
{
    const int machines = int(topology.cluster().machines.size());
    using Profile = std::tuple<int, int, double, double, std::vector<std::pair<double, double>>>;
    std::map<Profile, int> ids;
    std::vector<int> classes;
    for (int m = 0; m < machines; ++m) {
        const Machine &machine = topology.cluster().machines[size_t(m)];
        std::vector<std::pair<double, double>> network;
        for (int other = 0; other < machines; ++other)
            if (other != m)
                network.emplace_back(topology.machineBandwidthGBps(m, other),
                                     topology.machineLatencyUs(m, other));
        std::sort(network.begin(), network.end());
        const int type = machine.count > 0 ? machineType(topology, m) : -1;
        Profile profile{type, machine.count, machine.intra.bandwidthGBps, machine.intra.latencyUs,
                        std::move(network)};
        classes.push_back(ids.emplace(std::move(profile), int(ids.size())).first->second);
    }
    return classes;
}

std::string sequenceKey(const Topology &topology, std::span<const int> classes,
                        const std::vector<std::vector<int>> &groups)
{
    std::map<int, int> relabel; // machine → order of first appearance
    std::string key;
    for (const std::vector<int> &group : groups) {
        size_t i = 0;
        while (i < group.size()) {
            const int machine = topology.gpu(group[i]).machine;
            size_t k = i;
            while (k < group.size() && topology.gpu(group[k]).machine == machine)
                ++k;
            const int label = relabel.emplace(machine, int(relabel.size())).first->second;
            key += std::to_string(label) + ':' + std::to_string(classes[size_t(machine)]) + 'x'
                   + std::to_string(k - i) + ',';
            i = k;
        }
        key += '|';
    }
    return key;
}

} // namespace hetplan::metis
