#include "results/served_run_view.h"

#include "core/io/files.h"
#include "core/io/serving_measurement_json.h"
#include "results/chart_support.h"
#include "results/qcustomplot_include.h"
#include "results/results_text.h"
#include "runtime/worker/served_run.h"

#include <QAction>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace hetplan::gui {

namespace {

const QColor kSimulatedColor(0x4c, 0x72, 0xb0);
const QColor kMeasuredColor(0xdd, 0x84, 0x52);

// The latencies of the measured completed requests (warm-up left out), sorted, and how many
// requests were measured: a request that failed never finishes, so its CDF stays below 100 % by
// the failed share.
std::pair<std::vector<double>, int> measuredLatencies(const std::vector<ServedRequest> &requests)
{
    std::vector<double> latencies;
    int measured = 0;
    for (const ServedRequest &r : requests) {
        if (r.warmup)
            continue;
        ++measured;
        if (r.completed)
            latencies.push_back(r.finishS - r.arrivalS);
    }
    std::sort(latencies.begin(), latencies.end());
    return {latencies, measured};
}

// The CDF from `leftS` (0 %) to `rightS` (where it ends), one step per request.
void setCdf(QCPGraph *graph, const std::pair<std::vector<double>, int> &latencies, double leftS,
            double rightS)
{
    const auto &[sorted, measured] = latencies;
    QVector<double> keys{leftS};
    QVector<double> values{0.0};
    for (std::size_t i = 0; i < sorted.size(); ++i) {
        keys << sorted[i];
        values << 100.0 * double(i + 1) / measured;
    }
    keys << rightS;
    values << values.back();
    graph->setData(keys, values, true);
}

QString figureName(ServedRunView::Figure figure)
{
    switch (figure) {
    case ServedRunView::Prefill:
        return ServedRunView::tr("Prefill");
    case ServedRunView::PerToken:
        return ServedRunView::tr("Per output token");
    default:
        return ServedRunView::tr("Queueing");
    }
}

const SimulatedBeside &figureOf(const ReplicaServingComparison &r, ServedRunView::Figure figure)
{
    switch (figure) {
    case ServedRunView::Prefill:
        return r.prefillS;
    case ServedRunView::PerToken:
        return r.tpotS;
    default:
        return r.queueS;
    }
}

// "412 ms (90 %: 210–820 ms)"
QString withInterval(const SimulatedBeside &figure)
{
    return ServedRunView::tr("%1 (90 %: %2)")
        .arg(ResultsText::duration(figure.simulated),
             ResultsText::range({figure.low, figure.high}));
}

QCPBars *makeBars(QCPAxisRect *rect, const QString &name, const QColor &color)
{
    auto *bars = new QCPBars(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
    bars->setName(name);
    bars->setBrush(color);
    bars->setPen(QPen(color.darker(130)));
    bars->setWidth(0.38);
    return bars;
}

} // namespace

ServedRunView::ServedRunView(QWidget *parent)
    : QWidget(parent)
    , m_summary(new QLabel)
    , m_open(new QPushButton(tr("Open Serving Run…"), this))
    , m_save(new QAction(tr("Save Ser&ving Run…"), this))
    , m_charts(new QWidget)
    , m_cdfPlot(new QCustomPlot)
    , m_replicaPlot(new QCustomPlot)
{
    m_summary->setObjectName(QStringLiteral("servedRunSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_open->setObjectName(QStringLiteral("openServingRun"));
    m_open->setToolTip(tr("Compare a serving run of this plan (serving-measurement.json, written "
                          "by hetplan-cli run or launch) with the simulation of its requests"));
    connect(m_open, &QPushButton::clicked, this, [this] {
        const QString path
            = QFileDialog::getOpenFileName(this, tr("Serving Run of the Shown Plan"), QString(),
                                           tr("Serving measurements (*.json);;All files (*)"));
        if (!path.isEmpty())
            openFile(path);
    });

    m_save->setObjectName(QStringLiteral("saveServingRun"));
    m_save->setToolTip(tr("Save the serving run of the Serving tab as serving-measurement.json, "
                          "as hetplan-cli run --out writes it"));
    connect(m_save, &QAction::triggered, this, [this] {
        const QFileInfo source(m_source);
        const QString path = QFileDialog::getSaveFileName(
            this, tr("Save Serving Run"),
            source.exists() ? m_source : QStringLiteral("serving-measurement.json"),
            tr("Serving measurements (*.json);;All files (*)"));
        if (path.isEmpty())
            return;
        if (Status saved = saveFile(path); !saved)
            QMessageBox::warning(this, tr("Save Serving Run"),
                                 tr("The serving run was not saved: %1")
                                     .arg(QString::fromStdString(saved.error().message)));
    });

    setUpChart(m_cdfPlot, tr("Request latency, measured and simulated"));
    QCPAxis *x = m_cdfPlot->xAxis;
    QCPAxis *y = m_cdfPlot->yAxis;
    m_lowCdf = m_cdfPlot->addGraph(x, y);
    m_highCdf = m_cdfPlot->addGraph(x, y);
    for (QCPGraph *end : {m_lowCdf, m_highCdf}) {
        end->setLineStyle(QCPGraph::lsStepLeft);
        end->setPen(QPen(kSimulatedColor.lighter(160), 1));
    }
    m_lowCdf->setName(tr("Simulated, 90 % band"));
    m_lowCdf->setBrush(
        QColor(kSimulatedColor.red(), kSimulatedColor.green(), kSimulatedColor.blue(), 50));
    m_lowCdf->setChannelFillGraph(m_highCdf);
    m_highCdf->removeFromLegend();
    m_simulatedCdf = m_cdfPlot->addGraph(x, y);
    m_simulatedCdf->setName(tr("Simulated"));
    m_simulatedCdf->setLineStyle(QCPGraph::lsStepLeft);
    m_simulatedCdf->setPen(QPen(kSimulatedColor, 2));
    m_measuredCdf = m_cdfPlot->addGraph(x, y);
    m_measuredCdf->setName(tr("Measured"));
    m_measuredCdf->setLineStyle(QCPGraph::lsStepLeft);
    m_measuredCdf->setPen(QPen(kMeasuredColor, 2));
    m_sloLine = m_cdfPlot->addGraph(x, y);
    m_sloLine->setPen(QPen(QColor(0xd6, 0x27, 0x28), 1.5, Qt::DashLine));
    x->setScaleType(QCPAxis::stLogarithmic);
    x->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
    x->setNumberFormat(QStringLiteral("gb"));
    x->setLabel(tr("latency (s)"));
    y->setLabel(tr("requests finished (%)"));
    m_cdfPlot->axisRect()->setRangeDrag(Qt::Horizontal);

    // Three charts side by side in one plot, each with its own scale: prefill, time per output
    // token and queueing differ by orders of magnitude.
    setUpChart(m_replicaPlot, tr("Per replica, measured and simulated (means)"));
    QCPLayoutGrid *layout = m_replicaPlot->plotLayout();
    QCPAxisRect *first = m_replicaPlot->axisRect();
    layout->take(first);
    auto *row = new QCPLayoutGrid;
    layout->addElement(1, 0, row);
    for (int f = 0; f < FigureCount; ++f) {
        QCPAxisRect *rect = f == 0 ? first : new QCPAxisRect(m_replicaPlot);
        row->addElement(0, f, rect);
        m_rects[f] = rect;
        m_simulated[f] = makeBars(rect, tr("Simulated"), kSimulatedColor);
        m_measured[f] = makeBars(rect, tr("Measured"), kMeasuredColor);
        auto *group = new QCPBarsGroup(m_replicaPlot);
        group->append(m_simulated[f]);
        group->append(m_measured[f]);
        m_interval[f]
            = new QCPErrorBars(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
        m_interval[f]->setDataPlottable(m_simulated[f]);
        m_interval[f]->setName(tr("Simulated, 90 % interval"));
        m_interval[f]->setPen(QPen(Qt::black, 1.2));
        m_interval[f]->setWhiskerWidth(6);
        if (f > 0) {
            m_simulated[f]->removeFromLegend();
            m_measured[f]->removeFromLegend();
            m_interval[f]->removeFromLegend();
        }
        rect->setRangeDrag(Qt::Vertical);
        rect->setRangeZoom(Qt::Vertical);
    }

    auto *charts = new QHBoxLayout(m_charts);
    charts->setContentsMargins(0, 0, 0, 0);
    charts->addWidget(m_cdfPlot, 1);
    charts->addWidget(m_replicaPlot, 1);
    for (QCustomPlot *plot : {m_cdfPlot, m_replicaPlot})
        plot->setMinimumSize(240, 200);

    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->addWidget(m_summary);
    outer->addWidget(m_charts, 1);
    clearRun();
}

void ServedRunView::setPlan(const std::optional<ShownPlan> &shown, CostModelKind costModel)
{
    m_shown = shown;
    m_costModel = costModel;
    m_open->setEnabled(m_shown.has_value());
    if (m_run)
        compare();
}

bool ServedRunView::showRun(const ServingMeasurement &measured, const QString &source)
{
    m_run = measured;
    m_source = source;
    m_save->setEnabled(true);
    compare();
    return m_comparison.has_value();
}

bool ServedRunView::openFile(const QString &path)
{
    auto loaded = loadServingMeasurement(QFile::encodeName(path).toStdString());
    if (!loaded) {
        // The run shown before goes: what is shown is the file asked for, or nothing.
        m_run.reset();
        m_save->setEnabled(false);
        showRefusal(QString::fromStdString(loaded.error().message));
        return false;
    }
    return showRun(*loaded, path);
}

Status ServedRunView::saveFile(const QString &path)
{
    if (!m_run)
        return badInput("no serving run to save");
    const std::string file = QFile::encodeName(path).toStdString();
    const std::string text = writeServingMeasurement(*m_run) + "\n";
    // What Open would refuse is not written.
    if (auto readBack = parseServingMeasurement(text, file); !readBack)
        return readBack.error();
    if (Status written = writeFileAtomic(file, text); !written)
        return written;
    m_source = path; // the run is now that file, as if opened from it
    if (m_comparison)
        showComparison();
    return okStatus();
}

void ServedRunView::clearRun()
{
    m_run.reset();
    m_save->setEnabled(false);
    m_source.clear();
    m_comparison.reset();
    m_summary->clear();
    setChartsShown(false);
}

QString ServedRunView::message() const
{
    return m_summary->text();
}

bool ServedRunView::hasContent() const
{
    return !m_summary->text().isEmpty();
}

void ServedRunView::setChartsShown(bool shown)
{
    m_charts->setVisible(shown);
    Q_EMIT contentChanged();
}

void ServedRunView::showRefusal(const QString &why)
{
    m_comparison.reset();
    m_summary->setText(tr("The serving run is not shown: %1").arg(why));
    setChartsShown(false);
}

void ServedRunView::compare()
{
    if (!m_run)
        return;
    if (!m_shown || m_shown->plan.workload.mode != Mode::Infer) {
        showRefusal(tr("show the serving plan it ran first."));
        return;
    }
    const CostModel costModel(m_costModel);
    auto compared
        = runtime::compareServedRun(*m_run, m_source.toStdString(), *m_shown->problem, costModel,
                                    m_shown->plan, tr("the shown plan").toStdString());
    if (!compared) {
        showRefusal(QString::fromStdString(compared.error().message));
        return;
    }
    m_comparison = std::move(compared).value();
    showComparison();
}

void ServedRunView::showComparison()
{
    const ServingMeasurement &m = *m_run;
    const ServingComparison &c = *m_comparison;
    const ServingSummary &s = m.summary;
    const QString warmup
        = s.warmup > 0 ? tr("the first %1 are warm-up, left out of the figures.").arg(s.warmup)
                       : tr("none was warm-up.");
    QString text = tr("Serving run %1 (%2, scale %3, batch %4): %5 requests, %6 completed, %7 "
                      "failed; %8")
                       .arg(QFileInfo(m_source).fileName(),
                            QString::fromStdString(std::string(
                                backendName(m.run.backend, BackendSpelling::Measurement))))
                       .arg(m.run.scale)
                       .arg(m.run.batch)
                       .arg(s.requests)
                       .arg(s.completed)
                       .arg(s.failed)
                       .arg(warmup);
    text += QLatin1Char('\n')
            + tr("SLO attainment (%1): measured %2, simulated %3 (90 %: %4–%5). Latency p50: "
                 "measured %6, simulated %7; p99: measured %8, simulated %9.")
                  .arg(ResultsText::duration(m.run.sloS),
                       ResultsText::percent(c.attainment.measured),
                       ResultsText::percent(c.attainment.simulated),
                       ResultsText::percent(c.attainment.low),
                       ResultsText::percent(c.attainment.high),
                       ResultsText::duration(c.latencyP50S.measured), withInterval(c.latencyP50S),
                       ResultsText::duration(c.latencyP99S.measured), withInterval(c.latencyP99S));
    for (const ServedReplica &r : m.replicas)
        if (r.failed > 0)
            text += QLatin1Char('\n')
                    + tr("%1: %2 of its requests failed: %3")
                          .arg(ResultsText::pipelineName(Mode::Infer, r.replica))
                          .arg(r.failed)
                          .arg(QString::fromStdString(r.failure));
    if (m.run.backend == BackendKind::Gloo)
        text += QLatin1Char('\n')
                + tr("The run used CPU ranks: the simulation predicts them only with a cluster "
                     "that describes them (an imported CPU probe, then calibration).");
    m_summary->setText(text);
    m_summary->setToolTip(m_source);

    // A log axis: a simulation off by orders of magnitude (a CPU run against a GPU cluster)
    // stays readable beside the run, and a close one is as close.
    const std::array<std::pair<QCPGraph *, const std::vector<ServedRequest> *>, 4> curves{
        {{m_measuredCdf, &m.requests},
         {m_simulatedCdf, &c.simulatedRequests},
         {m_lowCdf, &c.simulatedLowRequests},
         {m_highCdf, &c.simulatedHighRequests}}};
    std::vector<std::pair<std::vector<double>, int>> latencies;
    double shortestS = m.run.sloS > 0 ? m.run.sloS : 1.0;
    double longestS = m.run.sloS;
    for (const auto &[graph, requests] : curves) {
        latencies.push_back(measuredLatencies(*requests));
        const std::vector<double> &sorted = latencies.back().first;
        if (!sorted.empty()) {
            shortestS = std::min(shortestS, std::max(sorted.front(), 1e-9));
            longestS = std::max(longestS, sorted.back());
        }
    }
    const double leftS = shortestS / 1.5;
    const double rightS = std::max(longestS, shortestS) * 1.5;
    for (std::size_t i = 0; i < curves.size(); ++i)
        setCdf(curves[i].first, latencies[i], leftS, rightS);
    m_sloLine->data()->clear();
    m_sloLine->removeFromLegend();
    if (m.run.sloS > 0) {
        m_sloLine->setData({m.run.sloS, m.run.sloS}, {0.0, 100.0}, true);
        m_sloLine->setName(tr("SLO (%1)").arg(ResultsText::duration(m.run.sloS)));
        m_sloLine->addToLegend();
    }
    m_cdfPlot->xAxis->setRange(leftS, rightS);
    m_cdfPlot->yAxis->setRange(0, 105);
    m_cdfPlot->replot();

    QStringList labels;
    QVector<double> keys;
    for (const ReplicaServingComparison &r : c.replicas) {
        keys << double(keys.size());
        labels << QString::number(r.replica);
    }
    for (int f = 0; f < FigureCount; ++f) {
        const auto figure = Figure(f);
        double highest = 0;
        for (const ReplicaServingComparison &r : c.replicas)
            highest = std::max({highest, figureOf(r, figure).high, figureOf(r, figure).measured});
        // Milliseconds for what takes less than a second, so that ticks read "12", not "0.012".
        const double scale = highest < 1 ? 1e3 : 1;
        QVector<double> simulated;
        QVector<double> measured;
        QVector<double> below;
        QVector<double> above;
        for (const ReplicaServingComparison &r : c.replicas) {
            const SimulatedBeside &b = figureOf(r, figure);
            simulated << b.simulated * scale;
            measured << b.measured * scale;
            below << std::max(b.simulated - b.low, 0.0) * scale;
            above << std::max(b.high - b.simulated, 0.0) * scale;
        }
        m_simulated[f]->setData(keys, simulated, true);
        m_measured[f]->setData(keys, measured, true);
        m_interval[f]->setData(below, above);
        QCPAxis *bottom = m_rects[f]->axis(QCPAxis::atBottom);
        QCPAxis *left = m_rects[f]->axis(QCPAxis::atLeft);
        setCategoryAxis(bottom, labels);
        bottom->setLabel(tr("%1, by replica").arg(figureName(figure)));
        left->setLabel(scale > 1 ? tr("ms") : tr("s"));
        left->setRange(0, highest > 0 ? highest * scale * 1.1 : 1);
    }
    m_replicaPlot->replot();
    setChartsShown(true);
}

} // namespace hetplan::gui
