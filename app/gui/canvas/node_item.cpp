#include "canvas/node_item.h"

#include "canvas/canvas_style.h"

#include <QGraphicsScene>
#include <QGraphicsSceneHoverEvent>
#include <QGraphicsView>
#include <QPainter>
#include <QPalette>

namespace hetplan::gui {

namespace {

constexpr double kCornerRadius = 6;
// Room around the card for the selection frame and the connector.
constexpr double kMargin = CanvasStyle::kConnectorRadius + 3;

} // namespace

NodeItem::NodeItem(ItemId id, QSizeF cardSize)
    : m_id(id)
    , m_card(-cardSize.width() / 2, -cardSize.height() / 2, cardSize.width(), cardSize.height())
{
    setFlag(ItemIsSelectable);
    setAcceptHoverEvents(true);
    // The cards are redrawn only when they change or the zoom changes; panning reuses the
    // cached pixmaps, which keeps 240-GPU clusters smooth.
    setCacheMode(DeviceCoordinateCache);
    setZValue(1);
}

QPointF NodeItem::connectorCenter() const
{
    return {m_card.right(), m_card.center().y()};
}

bool NodeItem::isOnConnector(QPointF itemPos) const
{
    const QPointF d = itemPos - connectorCenter();
    const double grab = CanvasStyle::kConnectorRadius + 3;
    return d.x() * d.x() + d.y() * d.y() <= grab * grab;
}

bool NodeItem::isOnLinkRing(QPointF itemPos, double viewScale) const
{
    if (isOnConnector(itemPos))
        return true;
    // Wide enough to hit on the first try at any zoom, never more than a quarter of the card,
    // so the middle still moves it.
    constexpr double kRingPx = 12;
    const double ring = std::min(kRingPx / std::max(viewScale, 0.01),
                                 0.25 * std::min(m_card.width(), m_card.height()));
    return m_card.contains(itemPos) && !m_card.adjusted(ring, ring, -ring, -ring).contains(itemPos);
}

double NodeItem::viewScale() const
{
    const QList<QGraphicsView *> views = scene() ? scene()->views() : QList<QGraphicsView *>();
    return views.isEmpty() ? 1.0 : views.front()->transform().m11();
}

void NodeItem::setLinkTarget(bool target)
{
    if (m_linkTarget == target)
        return;
    m_linkTarget = target;
    update();
}

QRectF NodeItem::boundingRect() const
{
    return m_card.adjusted(-kMargin, -kMargin, kMargin, kMargin);
}

QPainterPath NodeItem::shape() const
{
    QPainterPath path;
    path.addRoundedRect(m_card, kCornerRadius, kCornerRadius);
    const double r = CanvasStyle::kConnectorRadius + 3;
    path.addEllipse(connectorCenter(), r, r);
    return path;
}

void NodeItem::paintCard(QPainter *painter, const QColor &accent) const
{
    const QPalette palette = scene() ? scene()->palette() : QPalette();
    painter->setRenderHint(QPainter::Antialiasing);

    const bool emphasised = isSelected() || m_linkTarget;
    QPen border(emphasised ? palette.color(QPalette::Highlight)
                           : CanvasStyle::cardBorderColor(palette),
                emphasised ? 2.5 : 1.0);
    painter->setPen(border);
    painter->setBrush(CanvasStyle::cardColor(palette));
    painter->drawRoundedRect(m_card, kCornerRadius, kCornerRadius);

    // Accent stripe along the left edge, clipped to the rounded card.
    QPainterPath card;
    card.addRoundedRect(m_card, kCornerRadius, kCornerRadius);
    painter->save();
    painter->setClipPath(card);
    painter->fillRect(QRectF(m_card.left(), m_card.top(), 5, m_card.height()), accent);
    painter->restore();

    const double r = CanvasStyle::kConnectorRadius * (m_hovered ? 1.25 : 1.0);
    painter->setPen(QPen(palette.color(QPalette::Base), 1.5));
    painter->setBrush(m_hovered || emphasised ? palette.color(QPalette::Highlight)
                                              : CanvasStyle::cardBorderColor(palette));
    painter->drawEllipse(connectorCenter(), r, r);
}

void NodeItem::hoverEnterEvent(QGraphicsSceneHoverEvent *event)
{
    m_hovered = true;
    update();
    QGraphicsItem::hoverEnterEvent(event);
}

void NodeItem::hoverMoveEvent(QGraphicsSceneHoverEvent *event)
{
    // A cross where a drag draws a link, the usual arrow where it moves the card.
    if (isOnLinkRing(event->pos(), viewScale()))
        setCursor(Qt::CrossCursor);
    else
        unsetCursor();
    QGraphicsItem::hoverMoveEvent(event);
}

void NodeItem::hoverLeaveEvent(QGraphicsSceneHoverEvent *event)
{
    unsetCursor();
    m_hovered = false;
    update();
    QGraphicsItem::hoverLeaveEvent(event);
}

} // namespace hetplan::gui
