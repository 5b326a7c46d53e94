#pragma once

// ClusterModel's private state, shared by the files that implement the model.

#include "model/cluster_commands.h"

#include <QString>

#include <string_view>
#include <unordered_map>
#include <utility>

class QUndoStack;

namespace hetplan::gui {

// Names edits in messages: "cluster: machines[1].count: …".
inline constexpr std::string_view kEditSource = "cluster";

struct ClusterModel::Data
{
    ClusterState state;
    std::unordered_map<ItemId, std::pair<ItemKind, std::size_t>> index;
    ItemId nextId = 1;
    QUndoStack *undoStack = nullptr; // Owned by the model (QObject child).
    QString lastError;

    void reindex()
    {
        index.clear();
        for (std::size_t i = 0; i < state.machineIds.size(); ++i)
            index.emplace(state.machineIds[i], std::pair{ItemKind::Machine, i});
        for (std::size_t i = 0; i < state.switchIds.size(); ++i)
            index.emplace(state.switchIds[i], std::pair{ItemKind::Switch, i});
        for (std::size_t i = 0; i < state.linkIds.size(); ++i)
            index.emplace(state.linkIds[i], std::pair{ItemKind::Link, i});
    }

    // A state holding `cluster` with fresh ids.
    ClusterState fresh(const Cluster &cluster)
    {
        ClusterState s;
        s.cluster = cluster;
        for (std::size_t i = 0; i < cluster.machines.size(); ++i)
            s.machineIds.push_back(nextId++);
        for (std::size_t i = 0; i < cluster.switches.size(); ++i)
            s.switchIds.push_back(nextId++);
        for (std::size_t i = 0; i < cluster.links.size(); ++i)
            s.linkIds.push_back(nextId++);
        return s;
    }
};

} // namespace hetplan::gui
