#include "results/convergence_chart.h"

#include "results/chart_support.h"

#include <array>
#include <cmath>

namespace hetplan::gui {

ConvergenceChart::ConvergenceChart(QWidget *parent)
    : QCustomPlot(parent)
{
    setUpChart(this, tr("Search convergence"));
    xAxis->setLabel(tr("iteration"));
    setMeasure(false);
    reset();
}

void ConvergenceChart::setMeasure(bool attainment)
{
    m_attainment = attainment;
    setChartTitle(this, attainment ? tr("Search convergence: the best plan's SLO attainment, "
                                        "which HexGen maximises")
                                   : tr("Search convergence: the best plan's iteration time, "
                                        "which the planner minimises"));
    yAxis->setLabel(attainment ? tr("best SLO attainment (%)") : tr("best iteration time (s)"));
}

void ConvergenceChart::reset()
{
    clearGraphs();
    setChartPlaceholder(this, tr("No search yet"));
    xAxis->setRange(0, 1);
    yAxis->setRange(0, 1);
    replot();
}

void ConvergenceChart::setTrace(int index, PlannerKind planner,
                                const std::vector<TracePoint> &trace)
{
    const bool attainment = planner == PlannerKind::HexGen;
    if (index == 0)
        setMeasure(attainment);
    // One axis, one measure: a line of the other kind would read as nonsense on it.
    if (attainment != m_attainment)
        return;
    static constexpr std::array<QRgb, 6> kColors
        = {0x1f77b4, 0xff7f0e, 0x2ca02c, 0xd62728, 0x9467bd, 0x8c564b};
    while (graphCount() <= index) {
        QCPGraph *graph = addGraph();
        graph->setPen(QPen(QColor(kColors[size_t(graphCount() - 1) % kColors.size()]), 2));
        graph->setLineStyle(QCPGraph::lsStepLeft);
        graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 4));
    }
    QCPGraph *graph = this->graph(index);
    graph->setName(QString::fromUtf8(plannerName(planner)));
    QVector<double> keys;
    QVector<double> values;
    // Iterations before anything fits have no cost to draw (+inf).
    for (const TracePoint &point : trace)
        if (std::isfinite(point.bestCostS)) {
            keys << point.iteration;
            values << (attainment ? (1.0 - point.bestCostS) * 100.0 : point.bestCostS);
        }
    graph->setData(keys, values, true);
    setChartPlaceholder(
        this,
        keys.isEmpty()
            ? tr("%1 has reported no search steps yet").arg(QString::fromUtf8(plannerName(planner)))
            : QString());
    rescale();
    replot(QCustomPlot::rpQueuedReplot);
}

void ConvergenceChart::rescale()
{
    rescaleAxes();
    if (m_attainment) {
        // A percentage: a flat 100 % line reads as "every request met", not as a line at 0.
        yAxis->setRange(0, 105);
        xAxis->setRange(0, std::max(xAxis->range().upper, 1.0) + 0.5);
        return;
    }
    const QCPRange y = yAxis->range();
    const double pad = std::max(y.size() * 0.1, std::abs(y.upper) * 0.02);
    yAxis->setRange(std::max(0.0, y.lower - pad), y.upper + pad);
    xAxis->setRange(0, std::max(xAxis->range().upper, 1.0) + 0.5);
}

} // namespace hetplan::gui
