#include "results/chart_support.h"

#include "results/qcustomplot_include.h"

namespace hetplan::gui {

namespace {

const QString kPlaceholderName = QStringLiteral("placeholder");

QCPTextElement *titleOf(QCustomPlot *plot)
{
    return qobject_cast<QCPTextElement *>(plot->plotLayout()->element(0, 0));
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
    if (QCPTextElement *element = titleOf(plot))
        element->setText(title);
}

void setCategoryAxis(QCPAxis *axis, const QStringList &labels)
{
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    int longest = 0;
    for (int i = 0; i < labels.size(); ++i) {
        ticker->addTick(i, labels[i]);
        longest = std::max(longest, int(labels[i].size()));
    }
    axis->setTicker(ticker);
    axis->setSubTicks(false);
    axis->grid()->setVisible(false); // a line through every bar says nothing
    axis->setTickLength(0, 4);
    // Past a dozen categories or long names, horizontal labels run into each other.
    axis->setTickLabelRotation(labels.size() * std::max(longest, 4) > 90 ? 60 : 0);
    axis->setRange(-0.6, std::max<double>(labels.size(), 1) - 0.4);
}

void setChartPlaceholder(QCustomPlot *plot, const QString &text)
{
    for (int i = plot->itemCount() - 1; i >= 0; --i)
        if (plot->item(i)->objectName() == kPlaceholderName)
            plot->removeItem(i);
    if (text.isEmpty())
        return;
    auto *item = new QCPItemText(plot);
    item->setObjectName(kPlaceholderName);
    item->position->setType(QCPItemPosition::ptAxisRectRatio);
    item->position->setCoords(0.5, 0.5);
    item->setText(text);
    item->setColor(plot->palette().color(QPalette::PlaceholderText));
}

} // namespace hetplan::gui
