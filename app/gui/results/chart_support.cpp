#include "results/chart_support.h"

#include "results/qcustomplot_include.h"
#include "results/results_text.h"

#include <algorithm>
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

// The axis length as laid out, or as it will be once the plot is first shown.
int axisLengthPx(const QCPAxis *axis)
{
    const bool horizontal = axis->orientation() == Qt::Horizontal;
    const QRect rect = axis->axisRect()->rect();
    const QSize plotSize = axis->parentPlot()->size();
    if (int laidOutPx = horizontal ? rect.width() : rect.height(); laidOutPx > 0)
        return laidOutPx;
    return int(0.8 * (horizontal ? plotSize.width() : plotSize.height()));
}

// Labels categories from the axis length at each replot, so that labels never run into each
// other however the chart is resized: horizontal labels that would collide stand at an
// angle, and where even those would (hundreds of GPUs, dozens of pipeline stages) only every
// step-th category is named.
class CategoryTicker : public QCPAxisTickerText
{
public:
    CategoryTicker(QCPAxis *axis, QStringList labels)
        : m_axis(axis)
        , m_labels(std::move(labels))
    {
        const QFontMetrics fm(axis->tickLabelFont());
        for (const QString &label : m_labels)
            m_longestPx = std::max(m_longestPx, fm.horizontalAdvance(label));
        m_linePx = fm.height();
    }

    // The length the ticks were last chosen for; QCustomPlot chooses them before it lays out.
    int usedLengthPx() const { return m_usedLengthPx; }

    void generate(const QCPRange &range, const QLocale &locale, QChar formatChar, int precision,
                  QVector<double> &ticks, QVector<double> *subTicks,
                  QVector<QString> *tickLabels) override
    {
        m_usedLengthPx = axisLengthPx(m_axis);
        const double slotPx = double(std::max(m_usedLengthPx, 1)) / std::max(range.size(), 1.0);
        const bool horizontal = m_axis->orientation() == Qt::Horizontal;
        const bool rotate = horizontal && m_longestPx + 8 > slotPx;
        // Before the margins are worked out, so that they make room for slanted labels.
        m_axis->setTickLabelRotation(rotate ? 60 : 0);
        // Stacked labels need a line and a small gap; slanted ones overlap sooner.
        const double needPx
            = horizontal ? (rotate ? 1.5 * m_linePx : m_longestPx + 8) : 1.2 * m_linePx + 2;
        const int step = std::max(1, int(std::ceil(needPx / slotPx)));
        clear();
        for (int i = 0; i < m_labels.size(); i += step)
            addTick(i, m_labels[i]);
        QCPAxisTickerText::generate(range, locale, formatChar, precision, ticks, subTicks,
                                    tickLabels);
    }

private:
    QCPAxis *m_axis;
    QStringList m_labels;
    int m_longestPx = 0;
    double m_linePx = 0;
    int m_usedLengthPx = 0;
};

// Ticks one value axis gets for its length: a line of text and a gap between labels.
int tickCountFor(const QCPAxis *axis)
{
    const int linePx = QFontMetrics(axis->tickLabelFont()).height();
    return std::clamp(int(axisLengthPx(axis) / (2.5 * linePx)), 2, 5);
}

// QCustomPlot chooses ticks before it lays a chart out; once laid out, an axis whose ticks
// were chosen for another length (a chart shown or resized) is ticked again.
void fitTicksAfterLayout(QCustomPlot *plot)
{
    QObject::connect(plot, &QCustomPlot::afterLayout, plot, [plot] {
        bool again = false;
        for (QCPAxis *axis : plot->axisRect()->axes()) {
            if (const auto *ticker = dynamic_cast<const CategoryTicker *>(axis->ticker().data())) {
                again = again || ticker->usedLengthPx() != axisLengthPx(axis);
            } else if (axis->orientation() == Qt::Vertical) {
                const int count = tickCountFor(axis);
                again = again || axis->ticker()->tickCount() != count;
                axis->ticker()->setTickCount(count);
            }
        }
        if (again)
            plot->replot(QCustomPlot::rpQueuedReplot);
    });
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
    fitTicksAfterLayout(plot);
}

void moveLegendAboveChart(QCustomPlot *plot)
{
    QCPLayoutGrid *layout = plot->plotLayout();
    QCPLayoutElement *legendRow = layout->element(2, 0);
    layout->take(legendRow);
    layout->simplify();
    layout->insertRow(1);
    layout->addElement(1, 0, legendRow);
    layout->setRowStretchFactors({0.001, 0.001, 1});
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
    axis->setTicker(QSharedPointer<CategoryTicker>::create(axis, labels));
    axis->setSubTicks(false);
    axis->grid()->setVisible(false); // a line through every bar says nothing
    axis->setTickLength(0, 4);
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
