#pragma once

#include "model/cluster_model.h"

#include <QObject>

#include <optional>
#include <unordered_map>

class QGraphicsItem;
class QGraphicsLineItem;
class QGraphicsSceneMouseEvent;
class QKeyEvent;

namespace hetplan::gui {

class ClusterScene;
class NodeItem;

// Drawing links on a ClusterScene: the scene forwards its mouse and key events here first.
// A drag from a node's border ring or connector handle, a Shift+drag, or in link mode any
// drag or click-then-click from one node to another adds a link (one undo step); a rubber
// band follows the pointer and the node under it is marked as the target.
// It also remembers the parameters the next link takes (ClusterScene::newLinkParameters).
class LinkTool : public QObject
{
    Q_OBJECT

public:
    LinkTool(ClusterScene *scene, ClusterModel *model);

    bool isDrawing() const { return m_line != nullptr; }
    bool linkMode() const { return m_linkMode; }
    const std::optional<Link> &newLinkParameters() const { return m_newLinkParameters; }

    // Each returns true when the event was the tool's; the scene then handles it no further.
    bool press(QGraphicsSceneMouseEvent *event);
    bool move(QGraphicsSceneMouseEvent *event);
    bool release(QGraphicsSceneMouseEvent *event);
    bool keyPress(QKeyEvent *event);

    void cancel();
    void setLinkMode(bool on);
    // A link was mirrored (added or changed): a change of its parameters makes them the
    // next link's.
    void noteLinkParameters(ItemId link);
    // The scene is about to delete the item of `id`.
    void forget(ItemId id, const QGraphicsItem *item);
    // Another document: its links set the next link's parameters afresh.
    void reset();

Q_SIGNALS:
    void linkModeChanged(bool on);
    void linkHint(const QString &message);

private:
    void start(ItemId source, QPointF scenePos);
    void finish(QPointF scenePos);
    void setTarget(NodeItem *target);

    ClusterScene *m_scene; // not owned; our parent
    ClusterModel *m_model; // not owned
    ItemId m_source = 0;
    QGraphicsLineItem *m_line = nullptr; // owned by the scene while shown
    NodeItem *m_target = nullptr;
    bool m_linkMode = false;
    // Each link's value as last mirrored, to tell an edit of its parameters from a rename of
    // one of its ends (both arrive as itemChanged).
    std::unordered_map<ItemId, Link> m_shownLinks;
    std::optional<Link> m_newLinkParameters;
};

} // namespace hetplan::gui
