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
// not (docs/architecture.md, "The canvas"). Its position is the node's model position, the card's
// centre. A connector handle on the right edge starts a new link when dragged.
class NodeItem : public QGraphicsItem
{
public:
    NodeItem(ItemId id, QSizeF cardSize);

    ItemId id() const { return m_id; }
    QRectF cardRect() const { return m_card; }
    QPointF connectorCenter() const;
    bool isOnConnector(QPointF itemPos) const;
    // Marks the card as the target under a link being drawn.
    void setLinkTarget(bool target);

    QRectF boundingRect() const override;
    QPainterPath shape() const override;

protected:
    // The card background, accent stripe, selection frame and connector, shared by machines
    // and switches.
    void paintCard(QPainter *painter, const QColor &accent) const;
    void hoverEnterEvent(QGraphicsSceneHoverEvent *event) override;
    void hoverLeaveEvent(QGraphicsSceneHoverEvent *event) override;

private:
    ItemId m_id;
    QRectF m_card;
    bool m_hovered = false;
    bool m_linkTarget = false;
};

} // namespace hetplan::gui
