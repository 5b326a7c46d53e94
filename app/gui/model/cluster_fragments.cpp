// The model's edits on groups of items: removal, copies, clipboard fragments.
#include "model/cluster_model.h"
#include "model/cluster_model_data.h"
#include "model/cluster_names.h"

#include <QUndoStack>

#include <algorithm>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace hetplan::gui {

namespace {

CanvasPosition offsetBy(CanvasPosition p, CanvasPosition offset, int times)
{
    return {p.x + offset.x * times, p.y + offset.y * times};
}

// Adds `fragment` to `state` (fresh ids from `nextId`), appending the new ids to `added`.
void insertInto(ClusterState &state, const Cluster &fragment, CanvasPosition offset, int times,
                ItemId &nextId, std::vector<ItemId> &added)
{
    Cluster &c = state.cluster;
    std::unordered_map<std::string, std::string> renamed;
    // Machines and switches alike: a free name, the offset, a fresh id.
    const auto addNodes = [&](const auto &nodes, auto &into, std::vector<ItemId> &ids) {
        for (auto node : nodes) {
            std::string name = uniqueNameIn(c, node.name);
            renamed[node.name] = name;
            node.name = std::move(name);
            node.position = offsetBy(node.position, offset, times);
            into.push_back(std::move(node));
            ids.push_back(nextId);
            added.push_back(nextId++);
        }
    };
    addNodes(fragment.machines, c.machines, state.machineIds);
    addNodes(fragment.switches, c.switches, state.switchIds);
    const auto rename = [&](const std::string &name) {
        const auto it = renamed.find(name);
        return it == renamed.end() ? name : it->second;
    };
    for (Link l : fragment.links) {
        l.a = rename(l.a);
        l.b = rename(l.b);
        c.links.push_back(l);
        state.linkIds.push_back(nextId);
        added.push_back(nextId++);
    }
    for (PairOverride p : fragment.pairOverrides) {
        const std::string ma = machineOfGpu(p.a);
        const std::string mb = machineOfGpu(p.b);
        p.a = renamedGpu(p.a, ma, rename(ma));
        p.b = renamedGpu(p.b, mb, rename(mb));
        c.pairOverrides.push_back(p);
    }
    // The cluster's own definition wins where both define a type.
    for (const GpuType &t : fragment.gpuTypes) {
        const auto same = [&](const GpuType &u) { return sameTypeName(u.name, t.name); };
        if (std::none_of(c.gpuTypes.begin(), c.gpuTypes.end(), same))
            c.gpuTypes.push_back(t);
    }
}

} // namespace

void ClusterModel::removeItems(const std::vector<ItemId> &ids)
{
    const std::unordered_set<ItemId> chosen(ids.begin(), ids.end());
    const ClusterState &s = d->state;
    std::set<std::string> removedNodes;
    for (std::size_t i = 0; i < s.machineIds.size(); ++i)
        if (chosen.contains(s.machineIds[i]))
            removedNodes.insert(s.cluster.machines[i].name);
    for (std::size_t i = 0; i < s.switchIds.size(); ++i)
        if (chosen.contains(s.switchIds[i]))
            removedNodes.insert(s.cluster.switches[i].name);

    ClusterState next;
    next.cluster = s.cluster;
    next.cluster.machines.clear();
    next.cluster.switches.clear();
    next.cluster.links.clear();
    next.cluster.pairOverrides.clear();
    for (std::size_t i = 0; i < s.machineIds.size(); ++i)
        if (!removedNodes.contains(s.cluster.machines[i].name)) {
            next.cluster.machines.push_back(s.cluster.machines[i]);
            next.machineIds.push_back(s.machineIds[i]);
        }
    for (std::size_t i = 0; i < s.switchIds.size(); ++i)
        if (!removedNodes.contains(s.cluster.switches[i].name)) {
            next.cluster.switches.push_back(s.cluster.switches[i]);
            next.switchIds.push_back(s.switchIds[i]);
        }
    for (std::size_t i = 0; i < s.linkIds.size(); ++i) {
        const Link &l = s.cluster.links[i];
        if (!chosen.contains(s.linkIds[i]) && !removedNodes.contains(l.a)
            && !removedNodes.contains(l.b)) {
            next.cluster.links.push_back(l);
            next.linkIds.push_back(s.linkIds[i]);
        }
    }
    for (const PairOverride &p : s.cluster.pairOverrides)
        if (!removedNodes.contains(machineOfGpu(p.a)) && !removedNodes.contains(machineOfGpu(p.b)))
            next.cluster.pairOverrides.push_back(p);

    if (next == s)
        return;
    const int count = int(s.machineIds.size() + s.switchIds.size() + s.linkIds.size()
                          - next.machineIds.size() - next.switchIds.size() - next.linkIds.size());
    (void)commit(std::move(next), [&](const ClusterState &before, ClusterState after) {
        return new RemoveItemsCommand(this, before, std::move(after), count);
    });
}

Cluster ClusterModel::fragment(const std::vector<ItemId> &ids) const
{
    const ClusterState &s = d->state;
    const std::unordered_set<ItemId> chosen(ids.begin(), ids.end());
    Cluster f;
    f.name = s.cluster.name;
    std::set<std::string> nodes;
    for (std::size_t i = 0; i < s.machineIds.size(); ++i)
        if (chosen.contains(s.machineIds[i])) {
            const Machine &m = s.cluster.machines[i];
            f.machines.push_back(m);
            nodes.insert(m.name);
            for (const GpuType &t : s.cluster.gpuTypes) {
                const auto same = [&](const GpuType &u) { return u.name == t.name; };
                if (sameTypeName(t.name, m.gpu)
                    && std::none_of(f.gpuTypes.begin(), f.gpuTypes.end(), same))
                    f.gpuTypes.push_back(t);
            }
        }
    for (std::size_t i = 0; i < s.switchIds.size(); ++i)
        if (chosen.contains(s.switchIds[i])) {
            f.switches.push_back(s.cluster.switches[i]);
            nodes.insert(s.cluster.switches[i].name);
        }
    for (const Link &l : s.cluster.links)
        if (nodes.contains(l.a) && nodes.contains(l.b))
            f.links.push_back(l);
    for (const PairOverride &p : s.cluster.pairOverrides)
        if (nodes.contains(machineOfGpu(p.a)) && nodes.contains(machineOfGpu(p.b)))
            f.pairOverrides.push_back(p);
    return f;
}

Result<std::vector<ItemId>> ClusterModel::insertFragment(const Cluster &fragment,
                                                         CanvasPosition offset)
{
    ClusterState next = d->state;
    ItemId nextId = d->nextId;
    std::vector<ItemId> added;
    insertInto(next, fragment, offset, 1, nextId, added);
    if (added.empty())
        return added;
    d->nextId = nextId;
    const int nodes = int(fragment.machines.size() + fragment.switches.size());
    const Status s = commit(std::move(next), [&](const ClusterState &before, ClusterState after) {
        return new DuplicateCommand(this, before, std::move(after), nodes, 1);
    });
    if (!s)
        return s.error();
    return added;
}

std::vector<ItemId> ClusterModel::duplicate(const std::vector<ItemId> &ids, CanvasPosition offset,
                                            int copies)
{
    const Cluster f = fragment(ids);
    if (copies < 1 || (f.machines.empty() && f.switches.empty()))
        return {};
    ClusterState next = d->state;
    ItemId nextId = d->nextId;
    std::vector<ItemId> added;
    for (int k = 1; k <= copies; ++k) {
        insertInto(next, f, offset, k, nextId, added);
        // Stop early on absurd counts: the check below refuses them anyway.
        if (next.cluster.machines.size() > std::size_t(kMaxMachines))
            break;
    }
    d->nextId = nextId;
    const int nodes = int(f.machines.size() + f.switches.size());
    const Status s = commit(std::move(next), [&](const ClusterState &before, ClusterState after) {
        return new DuplicateCommand(this, before, std::move(after), nodes, copies);
    });
    return s ? added : std::vector<ItemId>();
}

} // namespace hetplan::gui
