#pragma once

#include "canvas/link_verdicts.h"
#include "canvas/node_item.h"

#include <QColor>
#include <QFont>
#include <QLineF>
#include <QStaticText>

#include <optional>

namespace hetplan::gui {

// A network link between two nodes: a line, thicker for faster links (log scale) and
// coloured by kind, with a "kind · bandwidth" label at its middle. The scene moves its ends
// when a node moves. After a pre-flight it is drawn in its verdict's colour (dashed when hung or
// failed), and its tooltip lists the checks that crossed it.
class LinkItem : public QGraphicsItem
{
public:
    explicit LinkItem(ItemId id);

    ItemId id() const { return m_id; }
    int type() const override { return LinkItemType; }

    void refresh(const Link &link, const QFont &font);
    // A pre-flight's verdict on this link; nullopt draws it by kind again.
    void setVerdict(const std::optional<LinkVerdict> &verdict);
    const std::optional<LinkVerdict> &verdict() const { return m_verdict; }
    // The ends' card centres and sizes. The label sits just outside a machine that links to a
    // switch, so that the many links into one switch keep their labels apart; between two
    // machines (or two switches) it sits in the middle.
    void setEnds(QPointF a, QPointF b, QSizeF cardA, QSizeF cardB, bool labelNearA,
                 bool labelNearB);

    QRectF boundingRect() const override;
    QPainterPath shape() const override;
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget) override;

private:
    QSizeF labelSize() const;
    QRectF labelRect() const;
    void updateToolTip();

    ItemId m_id;
    QLineF m_line;
    QPointF m_labelCenter;
    QColor m_color;
    QString m_linkToolTip;
    std::optional<LinkVerdict> m_verdict;
    double m_widthScene = 1;
    QFont m_font;
    // Laid out once per change, so that panning and zooming draw without allocating.
    QStaticText m_label;
    QSizeF m_labelSize;
};

} // namespace hetplan::gui
