#include "canvas/switch_item.h"

#include "canvas/canvas_style.h"

#include <QFontMetricsF>
#include <QGraphicsScene>
#include <QPainter>
#include <QPalette>

namespace hetplan::gui {

namespace {

constexpr double kGlyphWidth = 30;

} // namespace

SwitchItem::SwitchItem(ItemId id)
    : NodeItem(id, {CanvasStyle::kSwitchWidth, CanvasStyle::kSwitchHeight})
{}

void SwitchItem::refresh(const Switch &networkSwitch, const QFont &font)
{
    m_font = font;
    m_font.setBold(true);
    const double width = cardRect().width() - kGlyphWidth - 26;
    m_title = QFontMetricsF(m_font).elidedText(QString::fromStdString(networkSwitch.name),
                                               Qt::ElideMiddle, width);
    setToolTip(CanvasStyle::tr("Switch %1").arg(QString::fromStdString(networkSwitch.name)));
    update();
}

void SwitchItem::paint(QPainter *painter, const QStyleOptionGraphicsItem *, QWidget *)
{
    const QPalette palette = scene() ? scene()->palette() : QPalette();
    const QColor accent = CanvasStyle::linkKindColor(LinkKind::Ethernet);
    paintCard(painter, accent);

    // Glyph: a box with two opposed arrows, the usual switch symbol.
    const QRectF card = cardRect();
    const QRectF glyph(card.left() + 12, card.center().y() - 10, kGlyphWidth, 20);
    painter->setPen(
        QPen(palette.color(QPalette::Text), 1.4, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
    painter->setBrush(Qt::NoBrush);
    painter->drawRoundedRect(glyph, 3, 3);
    const double left = glyph.left() + 6;
    const double right = glyph.right() - 6;
    const double upper = glyph.top() + 6.5;
    const double lower = glyph.bottom() - 6.5;
    const QPointF lines[] = {
        {left, upper},  {right, upper}, {right, upper}, {right - 4, upper - 3},
        {right, lower}, {left, lower},  {left, lower},  {left + 4, lower + 3},
    };
    painter->drawLines(lines, 4);

    painter->setFont(m_font);
    painter->setPen(palette.color(QPalette::Text));
    const QRectF text(glyph.right() + 8, card.top(), card.right() - glyph.right() - 18,
                      card.height());
    painter->drawText(text, Qt::AlignLeft | Qt::AlignVCenter, m_title);
}

} // namespace hetplan::gui
