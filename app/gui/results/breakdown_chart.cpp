#include "results/breakdown_chart.h"

#include "results/chart_support.h"

#include <algorithm>
#include <cmath>

namespace hetplan::gui {

BreakdownChart::BreakdownChart(QWidget *parent)
    : QCustomPlot(parent)
{
    setUpChart(this, tr("Time breakdown"));
    const QStringList parts = ResultsText::breakdownParts();
    const std::vector<QColor> colors = ResultsText::breakdownColors();
    for (int i = 0; i < parts.size(); ++i) {
        auto *bars = new QCPBars(xAxis, yAxis);
        bars->setName(parts[i]);
        bars->setBrush(colors[size_t(i)]);
        bars->setPen(QPen(colors[size_t(i)].darker(130)));
        bars->setWidth(0.6);
        if (!m_parts.empty())
            bars->moveAbove(m_parts.back());
        m_parts.push_back(bars);
    }
    m_total = new QCPGraph(xAxis, yAxis);
    m_total->setLineStyle(QCPGraph::lsNone);
    m_total->removeFromLegend();
    m_interval = new QCPErrorBars(xAxis, yAxis);
    m_interval->setDataPlottable(m_total);
    m_interval->setName(tr("90 % interval"));
    m_interval->setPen(QPen(Qt::black, 1.5));
    m_interval->setWhiskerWidth(12);
    yAxis->setLabel(tr("seconds per iteration"));
    clear();
}

void BreakdownChart::clear(const QString &message)
{
    m_shown.reset();
    for (QCPBars *bars : m_parts)
        bars->data()->clear();
    m_total->data()->clear();
    m_interval->data()->clear();
    setCategoryAxis(xAxis, {});
    setChartPlaceholder(this, message.isEmpty() ? tr("No plan yet") : message);
    yAxis->setRange(0, 1);
    replot();
}

void BreakdownChart::setPlan(const ShownPlan &shown)
{
    m_shown = shown;
    plotBars();
}

void BreakdownChart::setRunComparison(const std::optional<RunComparison> &comparison)
{
    m_comparison = comparison;
    if (m_shown)
        plotBars();
}

void BreakdownChart::plotBars()
{
    const Evaluation &e = m_shown->evaluation;
    const Mode mode = m_shown->plan.workload.mode;
    yAxis->setLabel(mode == Mode::Infer ? tr("seconds per request batch")
                                        : tr("seconds per iteration"));
    QStringList labels{tr("Overall")};
    std::vector<Breakdown> bars{e.breakdown};
    for (size_t p = 0; p < e.pipelines.size(); ++p) {
        labels << ResultsText::pipelineName(mode, int(p));
        bars.push_back(e.pipelines[p].breakdown);
    }
    if (m_comparison && mode == Mode::Train) {
        labels << tr("Run: predicted") << tr("Run: measured") << tr("Run: calibrated");
        bars.push_back(m_comparison->predicted);
        bars.push_back(m_comparison->measured);
        bars.push_back(m_comparison->calibrated);
    }
    double highest = 0;
    for (size_t part = 0; part < m_parts.size(); ++part) {
        QVector<double> keys;
        QVector<double> values;
        for (size_t bar = 0; bar < bars.size(); ++bar) {
            keys << double(bar);
            values << ResultsText::breakdownValues(bars[bar])[part];
        }
        m_parts[part]->setData(keys, values, true);
    }
    for (const Breakdown &b : bars)
        highest = std::max(highest, b.totalS());
    m_total->data()->clear();
    m_interval->data()->clear();
    if (e.interval && std::isfinite(e.interval->iteration.hiS)) {
        const double totalS = e.breakdown.totalS();
        m_total->setData({0.0}, {totalS}, true);
        m_interval->setData({std::max(totalS - e.interval->iteration.loS, 0.0)},
                            {std::max(e.interval->iteration.hiS - totalS, 0.0)});
        highest = std::max(highest, e.interval->iteration.hiS);
    }
    if (m_interval->data()->isEmpty())
        m_interval->removeFromLegend();
    else if (legend && !legend->hasItemWithPlottable(m_interval))
        m_interval->addToLegend();
    setCategoryAxis(xAxis, labels);
    setChartPlaceholder(this, {});
    yAxis->setRange(0, highest > 0 ? highest * 1.08 : 1);
    setChartTitle(this, tr("Time breakdown: %1 per %2")
                            .arg(ResultsText::durationWithInterval(e.iterationS, e.interval),
                                 mode == Mode::Infer ? tr("request batch") : tr("iteration")));
    replot();
}

int BreakdownChart::barCount() const
{
    return m_parts.front()->data()->size();
}

double BreakdownChart::value(int bar, int part) const
{
    return m_parts[size_t(part)]->data()->at(bar)->value;
}

std::optional<TimeInterval> BreakdownChart::shownInterval() const
{
    if (m_interval->data()->isEmpty() || m_total->data()->isEmpty())
        return std::nullopt;
    const double totalS = m_total->data()->at(0)->value;
    const QCPErrorBarsData &bar = m_interval->data()->at(0);
    return TimeInterval{totalS - bar.errorMinus, totalS + bar.errorPlus};
}

} // namespace hetplan::gui
