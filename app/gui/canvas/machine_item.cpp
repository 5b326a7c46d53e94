#include "canvas/machine_item.h"

#include "canvas/canvas_style.h"

#include <QFontMetricsF>
#include <QGraphicsScene>
#include <QPainter>
#include <QPalette>

#include <algorithm>

namespace hetplan::gui {

namespace {

constexpr double kPad = 10;
constexpr double kTitleHeight = 24;
constexpr double kLineHeight = 18;
constexpr int kChipColumns = 4;
constexpr double kChipGap = 6;
constexpr double kChipHeight = 17;

} // namespace

MachineItem::MachineItem(ItemId id)
    : NodeItem(id, {CanvasStyle::kMachineWidth, CanvasStyle::kMachineHeight})
{}

void MachineItem::refresh(const Machine &machine, const QFont &font)
{
    m_titleFont = font;
    m_titleFont.setBold(true);
    m_textFont = font;
    m_smallFont = font;
    m_smallFont.setPointSizeF(font.pointSizeF() * 0.85);

    const double textWidth = cardRect().width() - 2 * kPad - 44;
    m_title = QFontMetricsF(m_titleFont)
                  .elidedText(QString::fromStdString(machine.name), Qt::ElideMiddle, textWidth);
    //: GPUs of a machine on the canvas: %1 is the count, %2 the GPU type.
    const QString gpus
        = CanvasStyle::tr("%1× %2").arg(machine.count).arg(QString::fromStdString(machine.gpu));
    m_gpuText
        = QFontMetricsF(m_textFont).elidedText(gpus, Qt::ElideRight, cardRect().width() - 2 * kPad);
    m_intraText
        = CanvasStyle::tr("%1 · %2").arg(CanvasStyle::linkKindName(machine.intra.kind),
                                         CanvasStyle::bandwidthText(machine.intra.bandwidthGBps));
    m_nicText = CanvasStyle::nicKindShortName(machine.nic);
    m_accent = CanvasStyle::gpuAccentColor(machine.gpu);
    m_intraColor = CanvasStyle::linkKindColor(machine.intra.kind);
    m_intraWidth = std::min(CanvasStyle::linkWidth(machine.intra.bandwidthGBps), 6.0);
    m_gpuCount = machine.count;
    setToolTip(QString::fromStdString(machine.name) + QLatin1Char('\n') + gpus + QLatin1Char('\n')
               + m_intraText);
    update();
}

void MachineItem::setHighlightedGpus(std::vector<int> localIndexes)
{
    if (m_highlighted == localIndexes)
        return;
    m_highlighted = std::move(localIndexes);
    update();
}

void MachineItem::paint(QPainter *painter, const QStyleOptionGraphicsItem *, QWidget *)
{
    paintCard(painter, m_accent);
    const QPalette palette = scene() ? scene()->palette() : QPalette();
    const QRectF card = cardRect().adjusted(kPad, 4, -kPad, -4);

    // Title row: name on the left, NIC badge on the right.
    const QRectF titleRow(card.left(), card.top(), card.width(), kTitleHeight);
    painter->setPen(palette.color(QPalette::Text));
    painter->setFont(m_titleFont);
    painter->drawText(titleRow, Qt::AlignLeft | Qt::AlignVCenter, m_title);

    painter->setFont(m_smallFont);
    const double badgeWidth = QFontMetricsF(m_smallFont).horizontalAdvance(m_nicText) + 10;
    const QRectF badge(titleRow.right() - badgeWidth, titleRow.center().y() - 8, badgeWidth, 16);
    painter->setPen(Qt::NoPen);
    painter->setBrush(palette.color(QPalette::AlternateBase));
    painter->drawRoundedRect(badge, 4, 4);
    painter->setPen(palette.color(QPalette::PlaceholderText));
    painter->drawText(badge, Qt::AlignCenter, m_nicText);

    painter->setFont(m_textFont);
    painter->setPen(palette.color(QPalette::Text));
    const QRectF gpuRow(card.left(), titleRow.bottom(), card.width(), kLineHeight);
    painter->drawText(gpuRow, Qt::AlignLeft | Qt::AlignVCenter, m_gpuText);

    const QRectF chips(card.left(), gpuRow.bottom() + 4, card.width(), 2 * kChipHeight + kChipGap);
    paintGpus(painter, chips);

    painter->setFont(m_smallFont);
    painter->setPen(palette.color(QPalette::PlaceholderText));
    const QRectF intraRow(card.left(), card.bottom() - kLineHeight, card.width(), kLineHeight);
    painter->drawText(intraRow, Qt::AlignLeft | Qt::AlignVCenter, m_intraText);
}

// Up to kMaxDrawnGpus chips in rows of four, joined by a bar in the intra link's colour;
// beyond that the last chip says how many more there are.
void MachineItem::paintGpus(QPainter *painter, const QRectF &area) const
{
    const QPalette palette = scene() ? scene()->palette() : QPalette();
    const int drawn = std::min(m_gpuCount, CanvasStyle::kMaxDrawnGpus);
    const bool summarised = m_gpuCount > CanvasStyle::kMaxDrawnGpus;
    const double chipWidth = (area.width() - (kChipColumns - 1) * kChipGap) / kChipColumns;
    const int rows = (drawn + kChipColumns - 1) / kChipColumns;

    painter->setPen(QPen(m_intraColor, m_intraWidth, Qt::SolidLine, Qt::RoundCap));
    for (int row = 0; row < rows; ++row) {
        const int inRow = std::min(kChipColumns, drawn - row * kChipColumns);
        if (inRow < 2)
            continue;
        const double y = area.top() + row * (kChipHeight + kChipGap) + kChipHeight / 2;
        painter->drawLine(
            QPointF(area.left() + chipWidth / 2, y),
            QPointF(area.left() + (inRow - 0.5) * chipWidth + (inRow - 1) * kChipGap, y));
    }
    if (rows > 1) {
        const double x = area.left() + chipWidth / 2;
        painter->drawLine(QPointF(x, area.top() + kChipHeight / 2),
                          QPointF(x, area.top() + kChipHeight * 1.5 + kChipGap));
    }

    painter->setFont(m_smallFont);
    for (int i = 0; i < drawn; ++i) {
        const int row = i / kChipColumns;
        const int col = i % kChipColumns;
        const QRectF chip(area.left() + col * (chipWidth + kChipGap),
                          area.top() + row * (kChipHeight + kChipGap), chipWidth, kChipHeight);
        const bool more = summarised && i == drawn - 1;
        const bool lit
            = std::find(m_highlighted.begin(), m_highlighted.end(), i) != m_highlighted.end();
        painter->setPen(lit ? QPen(palette.color(QPalette::Highlight), 2.5)
                            : QPen(m_accent.darker(130), 1));
        painter->setBrush(more ? palette.color(QPalette::AlternateBase) : m_accent);
        painter->drawRoundedRect(chip, 3, 3);
        if (more) {
            painter->setPen(palette.color(QPalette::Text));
            painter->drawText(chip, Qt::AlignCenter,
                              QStringLiteral("+%1").arg(m_gpuCount - drawn + 1));
        }
    }
}

} // namespace hetplan::gui
