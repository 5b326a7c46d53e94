#include "results/chart_support.h"

#include "results/qcustomplot_include.h"
#include "results/results_text.h"

#include <cmath>

namespace hetplan::gui {

namespace {

const QString kPlaceholderName = QStringLiteral("placeholder");
// The title as set up, the title of what is shown, and whether that is out of date.
constexpr const char *kPlainTitle = "hetplanPlainTitle";
constexpr const char *kTitle = "hetplanTitle";
constexpr const char *kOutOfDate = "hetplanOutOfDate";

QCPTextElement *titleOf(QCustomPlot *plot)
{
    return qobject_cast<QCPTextElement *>(plot->plotLayout()->element(0, 0));
}

void showTitle(QCustomPlot *plot)
{
    QString title = plot->property(kTitle).toString();
    if (plot->property(kOutOfDate).toBool())
        title = ResultsText::tr("Out of date: %1").arg(title);
    if (QCPTextElement *element = titleOf(plot))
        element->setText(title);
}

} // namespace

void setUpChart(QCustomPlot *plot, const QString &title)
{
    // Row 0: title, row 1: the axis rect, row 2: the legend, below the data so that it never
    // hides a bar.
    plot->plotLayout()->insertRow(0);
    QFont titleFont = plot->font();
    titleFont.setBold(true);
    plot->plotLayout()->addElement(0, 0, new QCPTextElement(plot, title, titleFont));
    plot->setProperty(kPlainTitle, title);
    plot->setProperty(kTitle, title);
    plot->legend->setVisible(true);
    plot->legend->setFillOrder(QCPLegend::foColumnsFirst);
    plot->legend->setWrap(6);
    plot->legend->setBorderPen(Qt::NoPen);
    auto *legendRow = new QCPLayoutGrid;
    plot->plotLayout()->addElement(2, 0, legendRow);
    legendRow->setMargins(QMargins(5, 0, 5, 5));
    legendRow->addElement(0, 0, plot->legend);
    plot->plotLayout()->setRowStretchFactor(2, 0.001);
    plot->plotLayout()->setRowStretchFactor(0, 0.001);
    plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot->axisRect()->setRangeDrag(Qt::Horizontal);
    plot->axisRect()->setRangeZoom(Qt::Horizontal);
    plot->setMinimumSize(320, 220);
}

void setChartTitle(QCustomPlot *plot, const QString &title)
{
    plot->setProperty(kTitle, title);
    showTitle(plot);
}

void setChartOutOfDate(QCustomPlot *plot, bool outOfDate)
{
    if (plot->property(kOutOfDate).toBool() == outOfDate)
        return;
    plot->setProperty(kOutOfDate, outOfDate);
    showTitle(plot);
    plot->replot();
}

QString chartTitle(QCustomPlot *plot)
{
    const QCPTextElement *element = titleOf(plot);
    return element ? element->text() : QString();
}

void setCategoryAxis(QCPAxis *axis, const QStringList &labels)
{
    const bool horizontal = axis->orientation() == Qt::Horizontal;
    const QFontMetrics fm(axis->tickLabelFont());
    int longestPx = 0;
    for (const QString &label : labels)
        longestPx = std::max(longestPx, fm.horizontalAdvance(label));
    // The axis length as laid out, or as it will be once the plot is first shown.
    const QRect rect = axis->axisRect()->rect();
    const QSize plotSize = axis->parentPlot()->size();
    const int lengthPx = std::max(horizontal ? rect.width() : rect.height(),
                                  int(0.8 * (horizontal ? plotSize.width() : plotSize.height())));
    const double slotPx = double(std::max(lengthPx, 200)) / std::max<qsizetype>(labels.size(), 1);
    // Horizontal labels that would run into each other stand at an angle; where even those
    // would overlap (hundreds of GPUs), only every step-th category is named.
    const bool rotate = horizontal && longestPx + 8 > slotPx;
    const double needPx = horizontal && !rotate ? longestPx + 8 : 1.2 * fm.height() + 2;
    const int step = std::max(1, int(std::ceil(needPx / slotPx)));
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    for (int i = 0; i < labels.size(); i += step)
        ticker->addTick(i, labels[i]);
    axis->setTicker(ticker);
    axis->setSubTicks(false);
    axis->grid()->setVisible(false); // a line through every bar says nothing
    axis->setTickLength(0, 4);
    axis->setTickLabelRotation(rotate ? 60 : 0);
    axis->setRange(-0.6, std::max<double>(labels.size(), 1) - 0.4);
}

void setChartPlaceholder(QCustomPlot *plot, const QString &text)
{
    for (int i = plot->itemCount() - 1; i >= 0; --i)
        if (plot->item(i)->objectName() == kPlaceholderName)
            plot->removeItem(i);
    if (text.isEmpty())
        return;
    // An empty chart keeps none of the figures of what it showed before in its title.
    setChartTitle(plot, plot->property(kPlainTitle).toString());
    auto *item = new QCPItemText(plot);
    item->setObjectName(kPlaceholderName);
    item->position->setType(QCPItemPosition::ptAxisRectRatio);
    item->position->setCoords(0.5, 0.5);
    item->setText(text);
    item->setColor(plot->palette().color(QPalette::PlaceholderText));
}

} // namespace hetplan::gui
