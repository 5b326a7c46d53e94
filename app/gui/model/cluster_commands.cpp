#include "model/cluster_commands.h"

#include <QCoreApplication>

#include <algorithm>

namespace hetplan::gui {

namespace {

QString kindName(ItemKind kind)
{
    switch (kind) {
    case ItemKind::Machine:
        return QCoreApplication::translate("ClusterCommand", "machine");
    case ItemKind::Switch:
        return QCoreApplication::translate("ClusterCommand", "switch");
    case ItemKind::Link:
        return QCoreApplication::translate("ClusterCommand", "link");
    }
    return {};
}

} // namespace

ClusterCommand::ClusterCommand(ClusterModel *model, ClusterState before, ClusterState after,
                               const QString &text)
    : QUndoCommand(text)
    , m_model(model)
    , m_before(std::move(before))
    , m_after(std::move(after))
{}

void ClusterCommand::undo()
{
    ClusterEdit::apply(*m_model, m_before);
}

void ClusterCommand::redo()
{
    ClusterEdit::apply(*m_model, m_after);
}

AddItemCommand::AddItemCommand(ClusterModel *model, ClusterState before, ClusterState after,
                               ItemKind kind, const std::string &name)
    : ClusterCommand(model, std::move(before), std::move(after),
                     QCoreApplication::translate("ClusterCommand", "Add %1 %2")
                         .arg(kindName(kind), QString::fromStdString(name)))
{}

RemoveItemsCommand::RemoveItemsCommand(ClusterModel *model, ClusterState before, ClusterState after,
                                       int itemCount)
    : ClusterCommand(
        model, std::move(before), std::move(after),
        QCoreApplication::translate("ClusterCommand", "Delete %n item(s)", nullptr, itemCount))
{}

UpdateItemCommand::UpdateItemCommand(ClusterModel *model, ClusterState before, ClusterState after,
                                     ItemKind kind, const std::string &name)
    : ClusterCommand(model, std::move(before), std::move(after),
                     QCoreApplication::translate("ClusterCommand", "Edit %1 %2")
                         .arg(kindName(kind), QString::fromStdString(name)))
{}

DuplicateCommand::DuplicateCommand(ClusterModel *model, ClusterState before, ClusterState after,
                                   int nodeCount, int copies)
    : ClusterCommand(
        model, std::move(before), std::move(after),
        copies > 1 ? QCoreApplication::translate("ClusterCommand", "Add %n copies", nullptr, copies)
                   : QCoreApplication::translate("ClusterCommand", "Duplicate %n node(s)", nullptr,
                                                 nodeCount))
{}

ClusterPropertiesCommand::ClusterPropertiesCommand(ClusterModel *model, ClusterState before,
                                                   ClusterState after)
    : ClusterCommand(model, std::move(before), std::move(after),
                     QCoreApplication::translate("ClusterCommand", "Edit cluster properties"))
{}

MoveCommand::MoveCommand(ClusterModel *model, ClusterState before, ClusterState after,
                         std::vector<ItemId> movedIds, bool mergeable)
    : ClusterCommand(model, std::move(before), std::move(after),
                     QCoreApplication::translate("ClusterCommand", "Move %n node(s)", nullptr,
                                                 int(movedIds.size())))
    , m_movedIds(std::move(movedIds))
    , m_mergeable(mergeable)
{
    std::sort(m_movedIds.begin(), m_movedIds.end());
}

int MoveCommand::id() const
{
    return 1; // any constant: only moves merge, and only with moves
}

bool MoveCommand::mergeWith(const QUndoCommand *other)
{
    const auto *move = static_cast<const MoveCommand *>(other); // same id() ⇒ a MoveCommand
    if (!m_mergeable || !move->m_mergeable || move->m_movedIds != m_movedIds)
        return false;
    m_after = move->m_after;
    setObsolete(m_after == m_before); // dragged back to where it started
    return true;
}

} // namespace hetplan::gui
