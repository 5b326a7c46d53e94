#pragma once

#include "model/cluster_model.h"

#include <QGraphicsItem>

namespace hetplan::gui {

// Item type ids for qgraphicsitem_cast.
enum CanvasItemType {
    MachineItemType = QGraphicsItem::UserType + 1,
    SwitchItemType,
    LinkItemType,
};

// A machine or switch card on the canvas. It mirrors one model item by id: what it shows is
// rebuilt from the model by its subclass's refresh(), and it never holds data the model does
// not (docs/architecture.md, "Conventions": the canvas). Its position is the node's model position,
// the card's centre. A connector handle on the right edge, and a ring along the whole border, start
// a new link when dragged (the ring is as wide in pixels at any zoom; the cursor turns to a cross
// on it).
class NodeItem : public QGraphicsItem
{
public:
    NodeItem(ItemId id, QSizeF cardSize);

    ItemId id() const { return m_id; }
    QRectF cardRect() const { return m_card; }
    QPointF connectorCenter() const;
    bool isOnConnector(QPointF itemPos) const;
    // On the connector or the border ring, at `viewScale` pixels per scene unit.
    bool isOnLinkRing(QPointF itemPos, double viewScale) const;
    // Marks the card as the target under a link being drawn.
    void setLinkTarget(bool target);

    // Pixels per scene unit in the (first) view showing the item; 1 without one.
    double viewScale() const;

    QRectF boundingRect() const override;
    QPainterPath shape() const override;

protected:
    // The card background, accent stripe, selection frame and connector, shared by machines
    // and switches.
    void paintCard(QPainter *painter, const QColor &accent) const;
    void hoverEnterEvent(QGraphicsSceneHoverEvent *event) override;
    void hoverLeaveEvent(QGraphicsSceneHoverEvent *event) override;
    void hoverMoveEvent(QGraphicsSceneHoverEvent *event) override;

private:
    ItemId m_id;
    QRectF m_card;
    bool m_hovered = false;
    bool m_linkTarget = false;
};

} // namespace hetplan::gui
