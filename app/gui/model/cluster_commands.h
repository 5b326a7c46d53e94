#pragma once

#include "model/cluster_model.h"

#include <QUndoCommand>

#include <vector>

namespace hetplan::gui {

// Everything one undo step restores: the cluster and, index for index, the ids of its
// machines, switches and links.
struct ClusterState
{
    Cluster cluster;
    std::vector<ItemId> machineIds;
    std::vector<ItemId> switchIds;
    std::vector<ItemId> linkIds;

    bool operator==(const ClusterState &) const = default;
};

// The commands' way into ClusterModel: install a state and announce what changed.
class ClusterEdit
{
public:
    static void apply(ClusterModel &model, const ClusterState &target);
};

// An edit as the states before and after it. Snapshots keep undo exact (ids and file order
// come back as they were) at the cost of a copy of the cluster per step, which is small next
// to what a person can draw.
class ClusterCommand : public QUndoCommand
{
public:
    ClusterCommand(ClusterModel *model, ClusterState before, ClusterState after,
                   const QString &text);

    void undo() override;
    void redo() override;

protected:
    ClusterModel *m_model; // Not owned; the model owns the stack that owns this.
    ClusterState m_before;
    ClusterState m_after;
};

class AddItemCommand : public ClusterCommand
{
public:
    AddItemCommand(ClusterModel *model, ClusterState before, ClusterState after, ItemKind kind,
                   const std::string &name);
};

class RemoveItemsCommand : public ClusterCommand
{
public:
    RemoveItemsCommand(ClusterModel *model, ClusterState before, ClusterState after, int itemCount);
};

class UpdateItemCommand : public ClusterCommand
{
public:
    UpdateItemCommand(ClusterModel *model, ClusterState before, ClusterState after, ItemKind kind,
                      const std::string &name);
};

class DuplicateCommand : public ClusterCommand
{
public:
    DuplicateCommand(ClusterModel *model, ClusterState before, ClusterState after, int nodeCount,
                     int copies);
};

// Name, description and custom GPU types.
class ClusterPropertiesCommand : public ClusterCommand
{
public:
    ClusterPropertiesCommand(ClusterModel *model, ClusterState before, ClusterState after);
};

// Consecutive mergeable moves of the same nodes (one drag) become one undo step.
class MoveCommand : public ClusterCommand
{
public:
    MoveCommand(ClusterModel *model, ClusterState before, ClusterState after,
                std::vector<ItemId> movedIds, bool mergeable);

    int id() const override;
    bool mergeWith(const QUndoCommand *other) override;

private:
    std::vector<ItemId> m_movedIds; // sorted
    bool m_mergeable;
};

} // namespace hetplan::gui
