#include "results/serving_view.h"

#include "results/chart_support.h"
#include "results/qcustomplot_include.h"

#include <QLabel>
#include <QVBoxLayout>

namespace hetplan::gui {

ServingView::ServingView(QWidget *parent)
    : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    m_summary = new QLabel;
    m_summary->setWordWrap(true);
    layout->addWidget(m_summary);

    m_latencyPlot = new QCustomPlot;
    setUpChart(m_latencyPlot, tr("Request latency per replica"));
    m_latencyBars = new QCPBars(m_latencyPlot->xAxis, m_latencyPlot->yAxis);
    m_latencyBars->setName(tr("Latency of one batch (prefill + decode)"));
    m_latencyBars->setBrush(QColor(0x4c, 0x72, 0xb0));
    m_latencyBars->setPen(Qt::NoPen);
    m_latencyBars->setWidth(0.6);
    m_latencyPlot->yAxis->setLabel(tr("seconds"));
    m_sloLine = new QCPItemStraightLine(m_latencyPlot);
    m_sloLine->setPen(QPen(QColor(0xd6, 0x27, 0x28), 1.5, Qt::DashLine));
    layout->addWidget(m_latencyPlot, 1);

    m_attainmentPlot = new QCustomPlot;
    setUpChart(m_attainmentPlot, tr("SLO attainment against request rate"));
    m_attainment = m_attainmentPlot->addGraph(m_attainmentPlot->xAxis, m_attainmentPlot->yAxis);
    m_attainment->setName(tr("SLO attainment (%)"));
    m_attainment->setPen(QPen(QColor(0x2c, 0xa0, 0x2c), 2));
    m_attainmentPlot->yAxis2->setVisible(true);
    m_p50 = m_attainmentPlot->addGraph(m_attainmentPlot->xAxis, m_attainmentPlot->yAxis2);
    m_p50->setName(tr("p50 latency (s)"));
    m_p50->setPen(QPen(QColor(0x4c, 0x72, 0xb0), 1.5));
    m_p99 = m_attainmentPlot->addGraph(m_attainmentPlot->xAxis, m_attainmentPlot->yAxis2);
    m_p99->setName(tr("p99 latency (s)"));
    m_p99->setPen(QPen(QColor(0x4c, 0x72, 0xb0), 1.5, Qt::DashLine));
    m_attainmentPlot->xAxis->setLabel(tr("requests per second"));
    m_attainmentPlot->yAxis->setLabel(tr("SLO attainment (%)"));
    m_attainmentPlot->yAxis2->setLabel(tr("latency (s)"));
    layout->addWidget(m_attainmentPlot, 1);
    clear();
}

void ServingView::clear(const QString &message)
{
    m_latencyBars->data()->clear();
    m_sloLine->setVisible(false);
    setCategoryAxis(m_latencyPlot->xAxis, {});
    setChartPlaceholder(m_latencyPlot, message.isEmpty() ? tr("No inference plan yet") : message);
    m_latencyPlot->replot();
    setAttainment({});
    m_summary->clear();
}

void ServingView::setPlan(const ShownPlan &shown)
{
    const Evaluation &e = shown.evaluation;
    QStringList labels;
    QVector<double> keys;
    QVector<double> latencies;
    double highest = 0;
    for (size_t r = 0; r < e.replicaLatencyS.size(); ++r) {
        keys << double(r);
        labels << ResultsText::pipelineName(Mode::Infer, int(r));
        latencies << e.replicaLatencyS[r];
        highest = std::max(highest, e.replicaLatencyS[r]);
    }
    m_latencyBars->setData(keys, latencies, true);
    setCategoryAxis(m_latencyPlot->xAxis, labels);
    const std::optional<double> &sloS = shown.plan.workload.infer.sloS;
    m_sloLine->setVisible(sloS.has_value());
    if (sloS) {
        m_sloLine->point1->setCoords(-1, *sloS);
        m_sloLine->point2->setCoords(1, *sloS);
        highest = std::max(highest, *sloS);
    }
    m_latencyPlot->yAxis->setRange(0, highest > 0 ? highest * 1.15 : 1);
    setChartPlaceholder(m_latencyPlot, labels.isEmpty() ? tr("No replica latencies") : QString());
    m_latencyPlot->replot();
    m_summary->setText(
        tr("replicas: %1; slowest %2, %3 tokens/s")
            .arg(labels.size())
            .arg(ResultsText::duration(e.iterationS))
            .arg(QLocale().toString(e.tokensPerS, 'f', 0))
        + (sloS ? tr("; SLO %1 per request").arg(ResultsText::duration(*sloS)) : QString()));
}

void ServingView::setAttainment(const std::vector<AttainmentPoint> &points)
{
    QVector<double> rates;
    QVector<double> attainment;
    QVector<double> p50;
    QVector<double> p99;
    for (const AttainmentPoint &p : points) {
        rates << p.requestRatePerS;
        attainment << 100 * p.attainment;
        p50 << p.p50S;
        p99 << p.p99S;
    }
    m_attainment->setData(rates, attainment, true);
    m_p50->setData(rates, p50, true);
    m_p99->setData(rates, p99, true);
    setChartPlaceholder(m_attainmentPlot,
                        points.empty() ? tr("Needs a serving simulation of the plan") : QString());
    if (!points.empty()) {
        m_attainmentPlot->rescaleAxes();
        m_attainmentPlot->yAxis->setRange(0, 105);
    }
    m_attainmentPlot->replot();
}

} // namespace hetplan::gui
