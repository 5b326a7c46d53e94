#include "canvas/link_item.h"

#include "canvas/canvas_style.h"

#include <QGraphicsScene>
#include <QPainter>
#include <QPainterPathStroker>
#include <QPalette>
#include <QStyleOptionGraphicsItem>

#include <algorithm>
#include <cmath>

namespace hetplan::gui {

namespace {

constexpr double kLabelPad = 4;
// Below this zoom the labels would be unreadable specks; only the lines are drawn.
constexpr double kLabelMinZoom = 0.45;
// A link with a verdict is drawn at least this wide, so that a thin link shows its colour.
constexpr double kVerdictMinWidth = 3;

} // namespace

LinkItem::LinkItem(ItemId id)
    : m_id(id)
{
    setFlag(ItemIsSelectable);
    m_label.setPerformanceHint(QStaticText::AggressiveCaching);
    setZValue(0);
}

void LinkItem::refresh(const Link &link, const QFont &font)
{
    prepareGeometryChange();
    m_color = CanvasStyle::linkKindColor(link.kind);
    m_widthScene = CanvasStyle::linkWidth(link.bandwidthGBps);
    m_font = font;
    m_font.setPointSizeF(font.pointSizeF() * 0.85);
    m_label.setText(CanvasStyle::tr("%1 · %2").arg(CanvasStyle::linkKindName(link.kind),
                                                   CanvasStyle::bandwidthText(link.bandwidthGBps)));
    m_label.prepare(QTransform(), m_font);
    m_labelSize = m_label.size();
    m_linkToolTip = CanvasStyle::tr("%1 ↔ %2\n%3, %4, %5")
                        .arg(QString::fromStdString(link.a), QString::fromStdString(link.b),
                             CanvasStyle::linkKindName(link.kind),
                             CanvasStyle::bandwidthText(link.bandwidthGBps),
                             CanvasStyle::latencyText(link.latencyUs));
    updateToolTip();
    update();
}

void LinkItem::setVerdict(const std::optional<LinkVerdict> &verdict)
{
    m_verdict = verdict;
    updateToolTip();
    update();
}

void LinkItem::updateToolTip()
{
    if (!m_verdict) {
        setToolTip(m_linkToolTip);
        return;
    }
    QString verdict;
    switch (m_verdict->verdict) {
    case PreflightVerdict::Ok:
        verdict = CanvasStyle::tr("ok");
        break;
    case PreflightVerdict::Slow:
        verdict = CanvasStyle::tr("slow by %1").arg(CanvasStyle::ratioText(m_verdict->slowBy));
        break;
    case PreflightVerdict::Hung:
        verdict = CanvasStyle::tr("hung");
        break;
    case PreflightVerdict::Failed:
        verdict = CanvasStyle::tr("failed");
        break;
    }
    setToolTip(m_linkToolTip + QStringLiteral("\n\n")
               + CanvasStyle::tr("Pre-flight: %1").arg(verdict) + u'\n'
               + m_verdict->checks.join(u'\n'));
}

void LinkItem::setEnds(QPointF a, QPointF b, QSizeF cardA, QSizeF cardB, bool labelNearA,
                       bool labelNearB)
{
    prepareGeometryChange();
    m_line = QLineF(a, b);
    m_labelCenter = m_line.center();
    if (labelNearA == labelNearB || m_line.length() <= 0)
        return;
    // Walk from the machine's centre to where the line leaves its card, then on by half the
    // label's extent along the line.
    const QLineF out = labelNearA ? m_line : QLineF(b, a);
    const QSizeF card = labelNearA ? cardA : cardB;
    const QPointF dir = (out.p2() - out.p1()) / out.length();
    const double ax = std::abs(dir.x());
    const double ay = std::abs(dir.y());
    const double exit = std::min(ax > 1e-9 ? card.width() / 2 / ax : 1e9,
                                 ay > 1e-9 ? card.height() / 2 / ay : 1e9);
    const QSizeF label = labelSize();
    const double along = exit + ax * label.width() / 2 + ay * label.height() / 2 + 6;
    if (along < out.length() / 2)
        m_labelCenter = out.p1() + dir * along;
}

QSizeF LinkItem::labelSize() const
{
    return {m_labelSize.width() + 2 * kLabelPad, m_labelSize.height() + 2};
}

QRectF LinkItem::labelRect() const
{
    const QSizeF size = labelSize();
    return QRectF(m_labelCenter - QPointF(size.width() / 2, size.height() / 2), size);
}

QRectF LinkItem::boundingRect() const
{
    const double extra = std::max(m_widthScene, kVerdictMinWidth) / 2 + 3;
    return QRectF(m_line.p1(), m_line.p2())
        .normalized()
        .adjusted(-extra, -extra, extra, extra)
        .united(labelRect());
}

QPainterPath LinkItem::shape() const
{
    QPainterPath path(m_line.p1());
    path.lineTo(m_line.p2());
    QPainterPathStroker stroker;
    stroker.setWidth(std::max(m_widthScene, 6.0));
    QPainterPath result = stroker.createStroke(path);
    result.addRect(labelRect());
    return result;
}

void LinkItem::paint(QPainter *painter, const QStyleOptionGraphicsItem *, QWidget *)
{
    const QPalette palette = scene() ? scene()->palette() : QPalette();
    painter->setRenderHint(QPainter::Antialiasing);
    if (isSelected()) {
        QPen halo(palette.color(QPalette::Highlight), m_widthScene + 5);
        halo.setCapStyle(Qt::RoundCap);
        painter->setPen(halo);
        painter->drawLine(m_line);
    }
    const QColor color = m_verdict ? CanvasStyle::verdictColor(m_verdict->verdict) : m_color;
    const bool broken = m_verdict && verdictSeverity(m_verdict->verdict) >= 2;
    const double width = m_verdict ? std::max(m_widthScene, kVerdictMinWidth) : m_widthScene;
    painter->setPen(QPen(color, width, broken ? Qt::DashLine : Qt::SolidLine, Qt::RoundCap));
    painter->drawLine(m_line);

    if (QStyleOptionGraphicsItem::levelOfDetailFromTransform(painter->worldTransform())
        < kLabelMinZoom)
        return;
    const QRectF label = labelRect();
    painter->setPen(QPen(color, m_verdict ? 2 : 1));
    painter->setBrush(palette.color(QPalette::Base));
    painter->drawRoundedRect(label, 4, 4);
    painter->setPen(palette.color(QPalette::Text));
    painter->setFont(m_font);
    painter->drawStaticText(label.topLeft() + QPointF(kLabelPad, 1), m_label);
}

} // namespace hetplan::gui
