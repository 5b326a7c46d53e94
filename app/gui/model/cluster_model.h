#pragma once

#include "core/base/result.h"
#include "core/model/cluster.h"

#include <QObject>
#include <QString>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

class QUndoCommand;
class QUndoStack;

namespace hetplan::gui {

// Stable identity of a machine, switch or link for as long as it exists, across renames and
// undo/redo (an undone removal brings the item back under its old id). 0 is never an id.
using ItemId = std::uint64_t;

enum class ItemKind { Machine, Switch, Link };

struct ClusterState; // model/cluster_commands.h

// The designer's document: owns the cluster and signals every change (docs/architecture.md,
// "Conventions": the canvas). The scene mirrors it, one item per id; every public edit pushes an
// undo command onto undoStack(), and the model never holds a cluster that the core's reader would
// refuse. A test can edit the model with no scene at all.
class ClusterModel : public QObject
{
    Q_OBJECT

public:
    explicit ClusterModel(QObject *parent = nullptr);
    ~ClusterModel() override;

    // The cluster exactly as it would be saved (machines, switches, links in id order of
    // creation; positions included).
    const Cluster &cluster() const;
    QUndoStack *undoStack() const;

    // Replaces the whole document (open, import, new); clears the undo stack and reassigns
    // ids. Refuses, leaving the model untouched, a cluster the core reader would refuse.
    Status reset(const Cluster &cluster);

    // --- Lookup ---------------------------------------------------------------------------
    std::vector<ItemId> machineIds() const;
    std::vector<ItemId> switchIds() const;
    std::vector<ItemId> linkIds() const;
    std::optional<ItemKind> kindOf(ItemId id) const;
    const Machine *machine(ItemId id) const; // nullptr when id is not a machine
    const Switch *networkSwitch(ItemId id) const;
    const Link *link(ItemId id) const;
    ItemId nodeByName(const std::string &name) const; // machine or switch; 0 when absent
    // The two node ids a link joins.
    std::pair<ItemId, ItemId> linkEnds(ItemId link) const;
    std::vector<ItemId> linksOf(ItemId node) const;
    // A name not used by any machine or switch: stem, stem-2, stem-3, ...
    std::string uniqueName(const std::string &stem) const;

    // --- Edits: each is one undo command (or one macro); errors leave the model as it was
    // and say what would be valid, in words a person can act on. ---------------------------
    Result<ItemId> addMachine(const Machine &machine); // empty or taken name -> uniqueName
    Result<ItemId> addSwitch(const Switch &networkSwitch);
    Result<ItemId> addLink(ItemId a, ItemId b, const Link &params); // a, b: nodes; a != b
    Status updateMachine(ItemId id, const Machine &value);          // renames follow into links
    Status updateSwitch(ItemId id, const Switch &value);
    Status updateLink(ItemId id, const Link &params); // endpoints stay as they are
    // Positions after a drag; consecutive moves of the same set merge into one undo step
    // while `mergeable` is true.
    void moveNodes(const std::vector<std::pair<ItemId, CanvasPosition>> &positions,
                   bool mergeable = false);
    // Removes nodes with every link attached to them, and the given links; one undo step.
    void removeItems(const std::vector<ItemId> &ids);
    // Copies of the given nodes (and links among them) offset on the canvas; returns new ids.
    std::vector<ItemId> duplicate(const std::vector<ItemId> &ids, CanvasPosition offset,
                                  int copies = 1);
    Status setGpuTypes(const std::vector<GpuType> &types); // the cluster's custom types
    Status setNameAndDescription(const std::string &name, const std::string &description);
    // A calibration's figures (docs/calibration.md): the custom GPU types, the transport
    // figures and the origin of `calibrated`, which is this cluster fitted to runs; one step.
    Status applyCalibration(const Cluster &calibrated);
    // A pre-flight's measured pairs (docs/launcher.md, "Pre-flight"): the pair overrides and
    // the origin of `folded`, which is this cluster with the report folded in; one step.
    Status applyPreflight(const Cluster &folded);

    // --- Clipboard ------------------------------------------------------------------------
    // The given nodes with the links among them, the custom GPU types they use and their
    // pair overrides, as a cluster of its own (what Copy puts on the clipboard).
    Cluster fragment(const std::vector<ItemId> &ids) const;
    // Adds a fragment's nodes (renamed where taken), links and missing GPU types, offset on
    // the canvas; one undo step. Returns the new ids (nodes, then links).
    Result<std::vector<ItemId>> insertFragment(const Cluster &fragment, CanvasPosition offset);

    // Why the last refused edit was refused (also sent as editRefused); empty after success.
    QString lastError() const;

    // File ▸ New: an empty canvas. A cluster without machines is a valid document; planning
    // it is refused by the planners' input check ("… has no GPUs; add a machine").
    static Cluster newCluster();

Q_SIGNALS:
    void itemAdded(hetplan::gui::ItemId id);
    void itemChanged(hetplan::gui::ItemId id); // fields or position
    void itemRemoved(hetplan::gui::ItemId id);
    void modelReset();
    void clusterChanged();                    // after any of the above
    void editRefused(const QString &message); // an edit was refused; nothing changed

private:
    Error refuse(const std::string &message);
    Error refuse(const Error &error);
    void accepted();
    // Checks `next` against the reader's rules and pushes the command made of the states
    // before and after; refuses, changing nothing, otherwise.
    using MakeCommand = std::function<QUndoCommand *(const ClusterState &, ClusterState)>;
    Status commit(ClusterState next, const MakeCommand &makeCommand);
    Result<ItemId> addNode(ItemKind kind, const std::string &name,
                           const std::function<void(Cluster &, std::string)> &append);
    Status updateItem(ItemKind kind, const std::string &name,
                      const std::function<void(Cluster &)> &change);

    struct Data;
    friend class ClusterEdit; // the undo commands apply their edits through this
    std::unique_ptr<Data> d;
};

} // namespace hetplan::gui
