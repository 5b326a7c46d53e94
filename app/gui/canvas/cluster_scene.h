#pragma once

#include "canvas/link_verdicts.h"
#include "canvas/move_tool.h"
#include "core/base/result.h"
#include "model/cluster_model.h"

#include <QGraphicsScene>

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace hetplan::gui {

class LinkItem;
class LinkTool;

// The canvas scene: mirrors a ClusterModel, one item per id (docs/architecture.md,
// "Conventions": the canvas), and turns what a person does on it into model edits, each an
// undo step:
//  - drag a node (or a selection) to move it: one undo step per drag (MoveTool);
//  - drag from a node's border ring or connector handle, or Shift+drag from a node, to
//    another node to link them; in link mode (the Link tool) a drag from anywhere on a node,
//    or a click on one node and then on another, does the same (Escape cancels); a link
//    dropped on empty space is reported (linkHint) (LinkTool);
//  - clipboard, duplicate, delete, select all and auto-layout act on the selection.
// Nothing here stores cluster data: items are rebuilt from the model on every change.
class ClusterScene : public QGraphicsScene
{
    Q_OBJECT

public:
    ClusterScene(ClusterModel *model, QObject *parent);
    ~ClusterScene() override;

    ClusterModel *model() const { return m_model; }

    // Selected machines, switches and links, in ascending id order.
    std::vector<ItemId> selectedIds() const;
    void setSelectedIds(const std::vector<ItemId> &ids);
    QGraphicsItem *itemFor(ItemId id) const;
    // The machine or switch under a scene point; 0 when none.
    ItemId nodeAt(QPointF scenePos) const;
    // Bounding box of every node card; empty when the cluster has none.
    QRectF contentRect() const;
    bool isDrawingLink() const;
    bool linkMode() const;
    // The kind, bandwidth and latency the next drawn link takes: those of the link last drawn
    // or edited in this document, so a cluster's links need not be edited one by one. Empty
    // until then: the ends' NICs decide (MachineTemplates::defaultLink).
    const std::optional<Link> &newLinkParameters() const;
    // The selected machines and switches, without links, in ascending id order.
    std::vector<ItemId> selectedNodeIds() const;

    // Emphasises GPUs ("A:0", "B:2") on the cards, e.g. a plan stage's; empty clears.
    void setHighlightedGpus(const std::vector<std::string> &gpuNames);
    // Colours the links a pre-flight crossed by its verdicts, keyed by index into the cluster's
    // links (linkVerdicts); empty draws every link by its kind again.
    void setLinkVerdicts(const std::map<int, LinkVerdict> &byLinkIndex);
    bool hasLinkVerdicts() const { return !m_linkVerdicts.empty(); }

    // Adds a palette template or pasted fragment with its bounding-box centre at `scenePos`,
    // selects what was added and returns its ids.
    // A refusal is reported by ClusterModel::editRefused.
    Result<std::vector<ItemId>> insertFragmentAt(const Cluster &fragment, QPointF scenePos);

public Q_SLOTS:
    void selectAll();
    void deleteSelection();
    void duplicateSelection();
    // `copies` copies of the selected nodes (and the links among them) in a row to the right.
    void addCopies(int copies);
    void copySelection();
    void cutSelection();
    // Pastes beside where the copied nodes were; pasteAt() centres them on a point.
    void paste();
    void pasteAt(QPointF scenePos);
    void autoLayout();
    void cancelLinkDrawing();
    void setLinkMode(bool on);
    // Re-renders every card, e.g. after the palette or the font changed.
    void restyle();

Q_SIGNALS:
    void selectionChangedIds(std::vector<hetplan::gui::ItemId> ids);
    // The clipboard held nothing to paste, in words for a status bar. Edits the model
    // refuses are reported by ClusterModel::editRefused.
    void pasteRefused(const QString &message);
    void linkModeChanged(bool on);
    // What just happened to a link being drawn, or what to do next, for a status bar.
    void linkHint(const QString &message);

protected:
    bool event(QEvent *event) override;
    void mousePressEvent(QGraphicsSceneMouseEvent *event) override;
    void mouseMoveEvent(QGraphicsSceneMouseEvent *event) override;
    void mouseReleaseEvent(QGraphicsSceneMouseEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    void drawBackground(QPainter *painter, const QRectF &rect) override;

private:
    void rebuild();
    void addItemFor(ItemId id);
    void refreshItem(ItemId id);
    void removeItemFor(ItemId id);
    void updateLinkEnds(ItemId link);
    void updateLinksOf(ItemId node);
    void updateSceneRect();
    void duplicateNodes(int copies);
    // Where copies of the nodes spanning `extent` go: the nearest offset in free space.
    CanvasPosition freeOffset(const QRectF &extent, int copies) const;
    void emitSelection();
    void finishMove();

    ClusterModel *m_model; // not owned
    std::unordered_map<ItemId, QGraphicsItem *> m_items;
    std::unordered_map<ItemId, LinkVerdict> m_linkVerdicts;
    bool m_rebuilding = false;

    MoveTool m_moveTool;
    LinkTool *m_linkTool; // our child

    int m_pasteCount = 0;
    std::vector<QPointF> m_gridPoints; // reused by drawBackground: no allocation per frame
};

} // namespace hetplan::gui
