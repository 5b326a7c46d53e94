#include "results/serving_view.h"

#include "core/serving/plan_serving.h"
#include "results/chart_support.h"
#include "results/qcustomplot_include.h"
#include "results/served_run_view.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QScrollArea>
#include <QVBoxLayout>

#include <cmath>

namespace hetplan::gui {

namespace {

// Below the summary, the charts fill the tab at the default window size (1280×800).
constexpr int kMinimumChartHeightPx = 170;

// The SLO the plan is served against: the plan's own slo_s, else what the core makes of the
// problem's inference workload (slo_scale × the reference latency); none for training.
std::optional<double> servingSloS(const ShownPlan &shown, const CostModel &costModel)
{
    if (const std::optional<double> &sloS = shown.plan.workload.infer.sloS)
        return *sloS;
    if (shown.problem && shown.problem->workload.mode == Mode::Infer)
        return sloSeconds(*shown.problem, costModel);
    return std::nullopt;
}

} // namespace

ServingView::ServingView(QWidget *parent)
    : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    m_summary = new QLabel;
    m_summary->setObjectName(QStringLiteral("servingSummary"));
    m_summary->setWordWrap(true);
    m_served = new ServedRunView;
    auto *header = new QHBoxLayout;
    header->addWidget(m_summary, 1);
    header->addWidget(m_served->openButton(), 0, Qt::AlignTop);
    layout->addLayout(header);

    m_latencyPlot = new QCustomPlot;
    setUpChart(m_latencyPlot, tr("Request latency per replica"));
    // One row per replica, the first on top: the bars' lengths compare along the chart's
    // width, and many replicas add rows (the chart scrolls) instead of squeezing the bars.
    // Legend and seconds axis on top, so that they stay in view above the first rows.
    QCPAxis *seconds = m_latencyPlot->xAxis2;
    m_latencyBars = new QCPBars(m_latencyPlot->yAxis, seconds);
    m_latencyBars->setName(tr("Latency of one batch (prefill + decode)"));
    m_latencyBars->setBrush(QColor(0x4c, 0x72, 0xb0));
    m_latencyBars->setPen(Qt::NoPen);
    m_latencyBars->setWidth(0.6);
    m_latencyInterval = new QCPErrorBars(m_latencyPlot->yAxis, seconds);
    m_latencyInterval->setDataPlottable(m_latencyBars);
    m_latencyInterval->setName(tr("90 % interval"));
    m_latencyInterval->setPen(QPen(Qt::black, 1.2));
    m_latencyInterval->setWhiskerWidth(8);
    m_latencyPlot->yAxis->setRangeReversed(true);
    m_latencyPlot->xAxis->setVisible(false);
    seconds->setVisible(true);
    seconds->setLabel(tr("seconds"));
    m_latencyPlot->axisRect()->setRangeDragAxes(seconds, m_latencyPlot->yAxis);
    m_latencyPlot->axisRect()->setRangeZoomAxes(seconds, m_latencyPlot->yAxis);
    moveLegendAboveChart(m_latencyPlot);
    m_sloLine = m_latencyPlot->addGraph(m_latencyPlot->yAxis, seconds);
    m_sloLine->setPen(QPen(QColor(0xd6, 0x27, 0x28), 1.5, Qt::DashLine));
    // The rows' height is known once the chart is laid out.
    connect(m_latencyPlot, &QCustomPlot::afterLayout, this, [this] { fitLatencyRows(m_replicas); });
    auto *latencyScroll = new QScrollArea;
    latencyScroll->setWidget(m_latencyPlot);
    latencyScroll->setWidgetResizable(true);
    latencyScroll->setFrameShape(QFrame::NoFrame);
    latencyScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    // Side by side: stacked, two plots would make the charts taller than the window allows.
    auto *plots = new QHBoxLayout;
    layout->addLayout(plots, 1);
    plots->addWidget(latencyScroll, 1);

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
    // The rates double from point to point: a log axis spaces them evenly.
    m_attainmentPlot->xAxis->setScaleType(QCPAxis::stLogarithmic);
    auto ticker = QSharedPointer<QCPAxisTickerLog>::create();
    ticker->setLogBase(2);
    m_attainmentPlot->xAxis->setTicker(ticker);
    m_attainmentPlot->xAxis->setNumberFormat(QStringLiteral("g"));
    m_attainmentPlot->xAxis->setNumberPrecision(3); // "0.125", never "0.00390625"
    m_attainmentPlot->xAxis->setLabel(tr("requests per second"));
    m_attainmentPlot->yAxis->setLabel(tr("SLO attainment (%)"));
    m_attainmentPlot->yAxis2->setLabel(tr("latency (s)"));
    plots->addWidget(m_attainmentPlot, 1);
    for (QCustomPlot *plot : {m_latencyPlot, m_attainmentPlot})
        plot->setMinimumSize(240, kMinimumChartHeightPx);
    // The scroll area, not the tab, grows with the replicas.
    latencyScroll->setMinimumHeight(kMinimumChartHeightPx);
    // Below the prediction, as tall as it once a run is compared; it scrolls rather than make
    // the tab (and the window) taller.
    auto *servedScroll = new QScrollArea;
    servedScroll->setWidget(m_served);
    servedScroll->setWidgetResizable(true);
    servedScroll->setFrameShape(QFrame::NoFrame);
    servedScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    servedScroll->hide();
    layout->addWidget(servedScroll, 0);
    connect(m_served, &ServedRunView::contentChanged, this, [layout, servedScroll, this] {
        servedScroll->setVisible(m_served->hasContent());
        layout->setStretchFactor(servedScroll, m_served->hasComparison() ? 1 : 0);
        // Room for the charts' data, without growing the window at its default size.
        servedScroll->setMinimumHeight(m_served->hasComparison() ? kMinimumChartHeightPx + 40 : 0);
    });
    clear();
}

void ServingView::clear(const QString &message)
{
    m_latencyBars->data()->clear();
    m_latencyInterval->data()->clear();
    m_sloLine->data()->clear();
    m_sloLine->removeFromLegend();
    setCategoryAxis(m_latencyPlot->yAxis, {});
    fitLatencyRows(0);
    setChartPlaceholder(m_latencyPlot, message.isEmpty() ? tr("No inference plan yet") : message);
    m_latencyPlot->replot();
    setAttainment({});
    m_summary->clear();
    m_served->setPlan(std::nullopt, CostModelKind::HetPlan);
}

void ServingView::setPlan(const ShownPlan &shown, CostModelKind costModelKind)
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
    QVector<double> below;
    QVector<double> above;
    if (e.interval && e.interval->replicaLatency.size() == e.replicaLatencyS.size())
        for (size_t r = 0; r < e.replicaLatencyS.size(); ++r) {
            const TimeInterval &interval = e.interval->replicaLatency[r];
            below << std::max(e.replicaLatencyS[r] - interval.loS, 0.0);
            above << std::max(interval.hiS - e.replicaLatencyS[r], 0.0);
            highest = std::max(highest, interval.hiS);
        }
    m_latencyInterval->setData(below, above);
    fitLatencyRows(int(labels.size()));
    setCategoryAxis(m_latencyPlot->yAxis, labels);
    const std::unique_ptr<CostModel> costModel = makeCostModel(costModelKind);
    const std::optional<double> sloS = servingSloS(shown, *costModel);
    m_sloLine->data()->clear();
    m_sloLine->removeFromLegend();
    if (sloS) {
        // Across every row, past the first and last.
        m_sloLine->setData({-1.0, double(labels.size())}, {*sloS, *sloS}, true);
        m_sloLine->setName(tr("SLO (%1)").arg(ResultsText::duration(*sloS)));
        m_sloLine->addToLegend();
        highest = std::max(highest, *sloS);
    }
    m_latencyPlot->xAxis2->setRange(0, highest > 0 ? highest * 1.15 : 1);
    setChartPlaceholder(m_latencyPlot, labels.isEmpty() ? tr("No replica latencies") : QString());
    m_latencyPlot->replot();

    std::vector<AttainmentPoint> points;
    if (sloS && !e.replicaLatencyS.empty()) {
        const ServingSimulator simulator;
        const double rate = shown.plan.workload.infer.requestRatePerS;
        for (int step = -3; step <= 3; ++step) {
            const ServingOutcome outcome
                = simulator.simulate(e.replicaLatencyS, rate * std::pow(2.0, step), *sloS);
            points.push_back(
                {outcome.requestRatePerS, outcome.attainment, outcome.p50S, outcome.p99S});
        }
    }
    setAttainment(points);

    QString text = tr("replicas: %1; slowest %2, %3 tokens/s")
                       .arg(labels.size())
                       .arg(ResultsText::duration(e.iterationS))
                       .arg(QLocale().toString(e.tokensPerS, 'f', 0));
    if (sloS && shown.problem && shown.problem->workload.mode == Mode::Infer
        && !e.replicaLatencyS.empty()) {
        const ServingFigures f
            = e.serving ? *e.serving : servePlan(*shown.problem, *costModel, shown.plan);
        text += QLatin1Char('\n')
                + tr("At %1 requests/s: %2 within the SLO of %3, latency p50 %4, p99 %5; "
                     "up to %6 requests/s at %7 attainment")
                      .arg(QLocale().toString(f.requestRatePerS, 'g', 3),
                           ResultsText::percent(f.attainment), ResultsText::duration(f.sloS),
                           ResultsText::duration(f.p50S), ResultsText::duration(f.p99S),
                           QLocale().toString(f.maxRatePerS, 'f', 2),
                           ResultsText::percent(f.targetAttainment));
        if (f.referenceLatencyS > 0)
            text += tr(" (SLO = %1 × %2 on A100s)")
                        .arg(QLocale().toString(f.sloS / f.referenceLatencyS, 'g', 3),
                             ResultsText::duration(f.referenceLatencyS));
        // Every replica at the ends of its latency interval (docs/cost-models.md, "Prediction
        // intervals", "Serving percentiles").
        const ServingFiguresInterval interval
            = servePlanInterval(*shown.problem, *costModel, shown.plan);
        text += QLatin1Char('\n')
                + tr("90 % interval: latency p50 %1, p99 %2, SLO attainment %3–%4")
                      .arg(ResultsText::range({interval.low.p50S, interval.high.p50S}),
                           ResultsText::range({interval.low.p99S, interval.high.p99S}),
                           ResultsText::percent(interval.high.attainment),
                           ResultsText::percent(interval.low.attainment));
    } else if (sloS) {
        text += tr("; SLO %1 per request").arg(ResultsText::duration(*sloS));
    }
    m_summary->setText(text);
    m_served->setPlan(shown, costModelKind);
}

int ServingView::replicaRowPx() const
{
    return fontMetrics().height() * 3 / 2;
}

void ServingView::fitLatencyRows(int replicas)
{
    m_replicas = replicas;
    // What title, legend and the seconds axis take: as laid out, else about eight lines.
    const int laidOutPx = m_latencyPlot->height() - m_latencyPlot->axisRect()->height();
    const int chromePx
        = m_latencyPlot->axisRect()->height() > 0 ? laidOutPx : 8 * fontMetrics().height();
    m_latencyPlot->setMinimumHeight(
        std::max(kMinimumChartHeightPx, chromePx + replicas * replicaRowPx()));
}

int ServingView::attainmentPointCount() const
{
    return m_attainment->data()->size();
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
    } else {
        // Empty: a few plain rates on the log axis rather than QCustomPlot's default range.
        m_attainmentPlot->xAxis->setRange(0.5, 8);
        m_attainmentPlot->yAxis2->setRange(0, 1);
    }
    m_attainmentPlot->yAxis->setRange(0, 105);
    m_attainmentPlot->replot();
}

} // namespace hetplan::gui
