#include "canvas/move_tool.h"

#include "canvas/cluster_scene.h"

#include <QApplication>
#include <QCoreApplication>
#include <QGraphicsItem>
#include <QGraphicsSceneMouseEvent>
#include <QUndoStack>

#include <cmath>

namespace hetplan::gui {

MoveTool::MoveTool(ClusterScene *scene, ClusterModel *model)
    : m_scene(scene)
    , m_model(model)
{}

void MoveTool::press(QGraphicsSceneMouseEvent *event)
{
    if (event->button() != Qt::LeftButton || (event->modifiers() & Qt::ControlModifier))
        return;
    const ItemId node = m_scene->nodeAt(event->scenePos());
    if (!node || !m_scene->itemFor(node)->isSelected())
        return;
    Drag drag;
    drag.pressScenePos = event->scenePos();
    for (const ItemId id : m_scene->selectedNodeIds()) {
        const QPointF p = m_scene->itemFor(id)->pos();
        drag.start.push_back({id, {p.x(), p.y()}});
    }
    m_drag = std::move(drag);
}

bool MoveTool::move(QGraphicsSceneMouseEvent *event)
{
    if (!m_drag || !(event->buttons() & Qt::LeftButton))
        return false;
    const QPointF delta = event->scenePos() - m_drag->pressScenePos;
    if (!m_drag->moved && delta.manhattanLength() < QApplication::startDragDistance())
        return true;
    std::vector<std::pair<ItemId, CanvasPosition>> positions;
    positions.reserve(m_drag->start.size());
    for (const auto &[id, p] : m_drag->start)
        positions.push_back({id, {std::round(p.x + delta.x()), std::round(p.y + delta.y())}});
    // One undo step per drag: the drag's moves merge inside a macro, which also keeps
    // them from merging with an earlier drag of the same nodes. The text keeps the scene's
    // translation context, where the shipped translations have it.
    if (!m_drag->moved)
        m_model->undoStack()->beginMacro(
            QCoreApplication::translate("hetplan::gui::ClusterScene", "Move"));
    m_drag->moved = true;
    m_model->moveNodes(positions, true);
    event->accept();
    return true;
}

bool MoveTool::finish()
{
    const bool moved = m_drag && m_drag->moved;
    m_drag.reset();
    if (moved)
        m_model->undoStack()->endMacro();
    return moved;
}

} // namespace hetplan::gui
