#include "model/cluster_model.h"

#include "core/io/cluster_check.h"
#include "model/cluster_commands.h"
#include "model/cluster_model_data.h"
#include "model/cluster_names.h"

#include <QUndoStack>

#include <algorithm>
#include <cmath>
#include <utility>

namespace hetplan::gui {

namespace {

// Canvas coordinates the reader accepts.
constexpr double kMaxCanvasCoordinate = 1e7;

} // namespace

// ---- ClusterEdit -------------------------------------------------------------------------

void ClusterEdit::apply(ClusterModel &model, const ClusterState &target)
{
    ClusterModel::Data &d = *model.d;
    const ClusterState old = std::exchange(d.state, target);
    const auto oldIndex = std::exchange(d.index, {});
    d.reindex();

    // What a view needs to mirror the change: removals (links before the nodes they join),
    // additions (nodes before links), then changed fields.
    std::vector<ItemId> removed;
    for (const std::vector<ItemId> *ids : {&old.linkIds, &old.switchIds, &old.machineIds})
        for (ItemId id : *ids)
            if (!d.index.contains(id))
                removed.push_back(id);
    std::vector<ItemId> added;
    std::vector<ItemId> changed;
    const auto sameItem = [&](ItemKind kind, std::size_t was, std::size_t now) {
        switch (kind) {
        case ItemKind::Machine:
            return old.cluster.machines[was] == target.cluster.machines[now];
        case ItemKind::Switch:
            return old.cluster.switches[was] == target.cluster.switches[now];
        case ItemKind::Link:
            // Ends are names; a rename of an end changes the link's value too.
            return old.cluster.links[was] == target.cluster.links[now];
        }
        return true;
    };
    for (const std::vector<ItemId> *ids : {&target.machineIds, &target.switchIds, &target.linkIds})
        for (ItemId id : *ids) {
            const auto was = oldIndex.find(id);
            const auto &[kind, now] = d.index.at(id);
            if (was == oldIndex.end())
                added.push_back(id);
            else if (!sameItem(kind, was->second.second, now))
                changed.push_back(id);
        }

    for (ItemId id : removed)
        Q_EMIT model.itemRemoved(id);
    for (ItemId id : added)
        Q_EMIT model.itemAdded(id);
    for (ItemId id : changed)
        Q_EMIT model.itemChanged(id);
    Q_EMIT model.clusterChanged();
}

// ---- ClusterModel ------------------------------------------------------------------------

ClusterModel::ClusterModel(QObject *parent)
    : QObject(parent)
    , d(std::make_unique<Data>())
{
    d->undoStack = new QUndoStack(this);
    d->state = d->fresh(newCluster());
    d->reindex();
}

ClusterModel::~ClusterModel() = default;

Cluster ClusterModel::newCluster()
{
    Cluster c;
    c.name = "untitled";
    return c;
}

const Cluster &ClusterModel::cluster() const
{
    return d->state.cluster;
}

QUndoStack *ClusterModel::undoStack() const
{
    return d->undoStack;
}

QString ClusterModel::lastError() const
{
    return d->lastError;
}

Error ClusterModel::refuse(const std::string &message)
{
    d->lastError = QString::fromStdString(message);
    Q_EMIT editRefused(d->lastError);
    return badInput(message);
}

Error ClusterModel::refuse(const Error &error)
{
    return refuse(error.message);
}

void ClusterModel::accepted()
{
    d->lastError.clear();
}

Status ClusterModel::reset(const Cluster &cluster)
{
    if (Status s = checkCluster(cluster, kEditSource); !s)
        return refuse(s.error());
    accepted();
    d->undoStack->clear();
    d->state = d->fresh(cluster);
    d->reindex();
    Q_EMIT modelReset();
    Q_EMIT clusterChanged();
    return okStatus();
}

// ---- Lookup ------------------------------------------------------------------------------

std::vector<ItemId> ClusterModel::machineIds() const
{
    return d->state.machineIds;
}

std::vector<ItemId> ClusterModel::switchIds() const
{
    return d->state.switchIds;
}

std::vector<ItemId> ClusterModel::linkIds() const
{
    return d->state.linkIds;
}

std::optional<ItemKind> ClusterModel::kindOf(ItemId id) const
{
    const auto it = d->index.find(id);
    if (it == d->index.end())
        return std::nullopt;
    return it->second.first;
}

const Machine *ClusterModel::machine(ItemId id) const
{
    const auto it = d->index.find(id);
    if (it == d->index.end() || it->second.first != ItemKind::Machine)
        return nullptr;
    return &d->state.cluster.machines[it->second.second];
}

const Switch *ClusterModel::networkSwitch(ItemId id) const
{
    const auto it = d->index.find(id);
    if (it == d->index.end() || it->second.first != ItemKind::Switch)
        return nullptr;
    return &d->state.cluster.switches[it->second.second];
}

const Link *ClusterModel::link(ItemId id) const
{
    const auto it = d->index.find(id);
    if (it == d->index.end() || it->second.first != ItemKind::Link)
        return nullptr;
    return &d->state.cluster.links[it->second.second];
}

ItemId ClusterModel::nodeByName(const std::string &name) const
{
    const ClusterState &s = d->state;
    for (std::size_t i = 0; i < s.cluster.machines.size(); ++i)
        if (s.cluster.machines[i].name == name)
            return s.machineIds[i];
    for (std::size_t i = 0; i < s.cluster.switches.size(); ++i)
        if (s.cluster.switches[i].name == name)
            return s.switchIds[i];
    return 0;
}

std::pair<ItemId, ItemId> ClusterModel::linkEnds(ItemId linkId) const
{
    const Link *l = link(linkId);
    if (!l)
        return {0, 0};
    return {nodeByName(l->a), nodeByName(l->b)};
}

std::vector<ItemId> ClusterModel::linksOf(ItemId node) const
{
    std::vector<ItemId> result;
    for (ItemId id : d->state.linkIds) {
        const auto [a, b] = linkEnds(id);
        if (a == node || b == node)
            result.push_back(id);
    }
    return result;
}

std::string ClusterModel::uniqueName(const std::string &stem) const
{
    return uniqueNameIn(d->state.cluster, stem);
}

// ---- Edits -------------------------------------------------------------------------------

Status ClusterModel::commit(ClusterState next, const MakeCommand &makeCommand)
{
    if (Status s = checkCluster(next.cluster, kEditSource); !s)
        return refuse(s.error());
    accepted();
    d->undoStack->push(makeCommand(d->state, std::move(next)));
    return okStatus();
}

Result<ItemId> ClusterModel::addNode(ItemKind kind, const std::string &name,
                                     const std::function<void(Cluster &, std::string)> &append)
{
    ClusterState next = d->state;
    const std::string unique = uniqueNameIn(next.cluster, name);
    append(next.cluster, unique);
    const ItemId id = d->nextId++; // never reused, even when refused
    (kind == ItemKind::Machine ? next.machineIds : next.switchIds).push_back(id);
    const Status s = commit(std::move(next), [&](const ClusterState &before, ClusterState after) {
        return new AddItemCommand(this, before, std::move(after), kind, unique);
    });
    if (!s)
        return s.error();
    return id;
}

Result<ItemId> ClusterModel::addMachine(const Machine &machine)
{
    return addNode(ItemKind::Machine, machine.name.empty() ? "machine" : machine.name,
                   [&](Cluster &c, std::string name) {
                       c.machines.push_back(machine);
                       c.machines.back().name = std::move(name);
                   });
}

Result<ItemId> ClusterModel::addSwitch(const Switch &networkSwitch)
{
    return addNode(ItemKind::Switch, networkSwitch.name.empty() ? "switch" : networkSwitch.name,
                   [&](Cluster &c, std::string name) {
                       c.switches.push_back(networkSwitch);
                       c.switches.back().name = std::move(name);
                   });
}

Result<ItemId> ClusterModel::addLink(ItemId a, ItemId b, const Link &params)
{
    const auto nodeName = [&](ItemId id) -> const std::string * {
        if (const Machine *m = machine(id))
            return &m->name;
        if (const Switch *s = networkSwitch(id))
            return &s->name;
        return nullptr;
    };
    const std::string *nameA = nodeName(a);
    const std::string *nameB = nodeName(b);
    if (!nameA || !nameB)
        return refuse(tr("A link joins two machines or switches of the cluster.").toStdString());
    if (a == b)
        return refuse(tr("A link joins two different nodes; %1 cannot link to itself.")
                          .arg(QString::fromStdString(*nameA))
                          .toStdString());
    ClusterState next = d->state;
    Link l = params;
    l.a = *nameA;
    l.b = *nameB;
    next.cluster.links.push_back(l);
    const ItemId id = d->nextId++;
    next.linkIds.push_back(id);
    const Status s = commit(std::move(next), [&](const ClusterState &before, ClusterState after) {
        return new AddItemCommand(this, before, std::move(after), ItemKind::Link, l.a + "–" + l.b);
    });
    if (!s)
        return s.error();
    return id;
}

Status ClusterModel::updateItem(ItemKind kind, const std::string &name,
                                const std::function<void(Cluster &)> &change)
{
    ClusterState next = d->state;
    change(next.cluster);
    if (next == d->state)
        return okStatus();
    return commit(std::move(next), [&](const ClusterState &before, ClusterState after) {
        return new UpdateItemCommand(this, before, std::move(after), kind, name);
    });
}

Status ClusterModel::updateMachine(ItemId id, const Machine &value)
{
    const Machine *current = machine(id);
    if (!current)
        return refuse(tr("The machine to edit no longer exists.").toStdString());
    const std::size_t index = d->index.at(id).second;
    return updateItem(ItemKind::Machine, value.name, [&](Cluster &c) {
        renameNode(c, current->name, value.name);
        c.machines[index] = value;
    });
}

Status ClusterModel::updateSwitch(ItemId id, const Switch &value)
{
    const Switch *current = networkSwitch(id);
    if (!current)
        return refuse(tr("The switch to edit no longer exists.").toStdString());
    const std::size_t index = d->index.at(id).second;
    return updateItem(ItemKind::Switch, value.name, [&](Cluster &c) {
        renameNode(c, current->name, value.name);
        c.switches[index] = value;
    });
}

Status ClusterModel::updateLink(ItemId id, const Link &params)
{
    const Link *current = link(id);
    if (!current)
        return refuse(tr("The link to edit no longer exists.").toStdString());
    const std::size_t index = d->index.at(id).second;
    Link value = params;
    value.a = current->a; // endpoints stay
    value.b = current->b;
    return updateItem(ItemKind::Link, value.a + "–" + value.b,
                      [&](Cluster &c) { c.links[index] = value; });
}

void ClusterModel::moveNodes(const std::vector<std::pair<ItemId, CanvasPosition>> &positions,
                             bool mergeable)
{
    ClusterState next = d->state;
    std::vector<ItemId> moved;
    for (const auto &[id, position] : positions) {
        if (!std::isfinite(position.x) || !std::isfinite(position.y))
            continue;
        // Clamped rather than refused: a drag past the edge should stop there.
        const CanvasPosition p{std::clamp(position.x, -kMaxCanvasCoordinate, kMaxCanvasCoordinate),
                               std::clamp(position.y, -kMaxCanvasCoordinate, kMaxCanvasCoordinate)};
        const auto it = d->index.find(id);
        if (it == d->index.end())
            continue;
        const auto [kind, i] = it->second;
        if (kind == ItemKind::Machine)
            next.cluster.machines[i].position = p;
        else if (kind == ItemKind::Switch)
            next.cluster.switches[i].position = p;
        else
            continue;
        moved.push_back(id);
    }
    if (next == d->state)
        return;
    accepted();
    d->undoStack->push(new MoveCommand(this, d->state, std::move(next), moved, mergeable));
}

Status ClusterModel::setGpuTypes(const std::vector<GpuType> &types)
{
    if (types == d->state.cluster.gpuTypes)
        return okStatus();
    ClusterState next = d->state;
    next.cluster.gpuTypes = types;
    return commit(std::move(next), [&](const ClusterState &before, ClusterState after) {
        return new ClusterPropertiesCommand(this, before, std::move(after));
    });
}

Status ClusterModel::applyCalibration(const Cluster &calibrated)
{
    ClusterState next = d->state;
    next.cluster.gpuTypes = calibrated.gpuTypes;
    next.cluster.transports = calibrated.transports;
    next.cluster.origin = calibrated.origin;
    next.cluster.calibration = calibrated.calibration;
    if (next.cluster == d->state.cluster)
        return okStatus();
    return commit(std::move(next), [&](const ClusterState &before, ClusterState after) {
        auto *command = new ClusterPropertiesCommand(this, before, std::move(after));
        command->setText(tr("Calibrate from measurement"));
        return command;
    });
}

Status ClusterModel::applyPreflight(const Cluster &folded)
{
    ClusterState next = d->state;
    next.cluster.pairOverrides = folded.pairOverrides;
    next.cluster.origin = folded.origin;
    if (next.cluster == d->state.cluster)
        return okStatus();
    return commit(std::move(next), [&](const ClusterState &before, ClusterState after) {
        auto *command = new ClusterPropertiesCommand(this, before, std::move(after));
        command->setText(tr("Fold pre-flight into cluster"));
        return command;
    });
}

Status ClusterModel::setNameAndDescription(const std::string &name, const std::string &description)
{
    if (name == d->state.cluster.name && description == d->state.cluster.description)
        return okStatus();
    ClusterState next = d->state;
    next.cluster.name = name;
    next.cluster.description = description;
    return commit(std::move(next), [&](const ClusterState &before, ClusterState after) {
        return new ClusterPropertiesCommand(this, before, std::move(after));
    });
}

} // namespace hetplan::gui
