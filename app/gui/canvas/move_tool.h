#pragma once

#include "model/cluster_model.h"

#include <QPointF>

#include <optional>
#include <utility>
#include <vector>

class QGraphicsSceneMouseEvent;

namespace hetplan::gui {

class ClusterScene;

// Dragging the selected nodes on a ClusterScene: the scene forwards its mouse events here.
// A drag is one undo step however many moves it makes.
class MoveTool
{
public:
    MoveTool(ClusterScene *scene, ClusterModel *model);

    bool isMoving() const { return m_drag.has_value(); }
    // After the scene's own press handling (which selects what was clicked): a left press
    // on a selected node, without Ctrl, starts a drag of the whole selection.
    void press(QGraphicsSceneMouseEvent *event);
    // True when the event belongs to a drag, including one still under the drag distance.
    bool move(QGraphicsSceneMouseEvent *event);
    // Ends the drag, if any; true when it moved something, so the scene's extent may change.
    bool finish();

private:
    // Where the drag started and where the nodes were then.
    struct Drag
    {
        QPointF pressScenePos;
        std::vector<std::pair<ItemId, CanvasPosition>> start;
        bool moved = false;
    };

    ClusterScene *m_scene; // not owned
    ClusterModel *m_model; // not owned
    std::optional<Drag> m_drag;
};

} // namespace hetplan::gui
