#include "results/sweep_view.h"

#include "results/chart_support.h"
#include "results/qcustomplot_include.h"
#include "tasks/background_runner.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

#include <cmath>

namespace hetplan::gui {

SweepView::SweepView(QWidget *parent)
    : QWidget(parent)
    , m_runner(new BackgroundRunner(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto *controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Sweep:")));
    m_targetBox = new QComboBox;
    m_targetBox->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    controls->addWidget(m_targetBox);
    m_runButton = new QPushButton(tr("Run sweep"));
    controls->addWidget(m_runButton);
    // On the controls' row: a line of its own would take the height the chart needs.
    m_status = new QLabel;
    controls->addWidget(m_status, 1);
    layout->addLayout(controls);

    m_plot = new QCustomPlot;
    setUpChart(m_plot, tr("Bandwidth sweep"));
    m_plot->xAxis->setScaleType(QCPAxis::stLogarithmic);
    m_plot->xAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    m_plot->xAxis->setLabel(tr("bandwidth (GB/s)"));
    m_plot->yAxis->setLabel(tr("iteration time (s)"));
    m_plot->yAxis2->setVisible(true);
    m_plot->yAxis2->setLabel(tr("MFU (%)"));
    const auto addLine
        = [this](QCPAxis *valueAxis, const QString &name, QColor color, Qt::PenStyle style) {
              QCPGraph *graph = m_plot->addGraph(m_plot->xAxis, valueAxis);
              graph->setName(name);
              graph->setPen(QPen(color, 2, style));
              graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 5));
          };
    addLine(m_plot->yAxis, tr("Current plan"), QColor(0x4c, 0x72, 0xb0), Qt::DashLine);
    addLine(m_plot->yAxis, tr("Re-planned"), QColor(0x4c, 0x72, 0xb0), Qt::SolidLine);
    addLine(m_plot->yAxis2, tr("MFU, re-planned"), QColor(0xdd, 0x84, 0x52), Qt::SolidLine);
    // With the controls' row, no taller than the other charts: the Charts dock keeps its height.
    m_plot->setMinimumHeight(190);
    layout->addWidget(m_plot, 1);

    connect(m_runButton, &QPushButton::clicked, this, [this] {
        if (isRunning())
            cancel();
        else
            startSweep(m_targetBox->currentIndex());
    });
    connect(m_runner, &BackgroundRunner::progressValueChanged, this, [this](int done) {
        m_status->setText(tr("Computed %1 of %2 points…").arg(done).arg(kPoints));
    });
    connect(m_runner, &BackgroundRunner::finished, this, &SweepView::onFinished);
    clear();
}

SweepView::~SweepView()
{
    m_runner->cancelAndWait();
}

bool SweepView::isRunning() const
{
    return m_runner->isRunning();
}

void SweepView::cancel()
{
    m_runner->cancel();
}

void SweepView::clear()
{
    cancel();
    ++m_baseGeneration; // a sweep still stopping belongs to the old base: its points are dropped
    m_base.reset();
    m_targets.clear();
    m_points.clear();
    m_targetBox->clear();
    m_runButton->setEnabled(false);
    m_status->clear();
    showPoints();
}

void SweepView::setBase(const ShownPlan &shown, CostModelKind costModel, PlannerKind planner)
{
    clear();
    m_base = shown;
    m_costModel = costModel;
    m_planner = planner;
    const Cluster &cluster = shown.problem->topology.cluster();
    m_targets = bandwidthTargets(cluster);
    for (const BandwidthTarget &target : m_targets)
        m_targetBox->addItem(ResultsText::targetName(cluster, target));
    m_runButton->setEnabled(!m_targets.empty());
}

void SweepView::startSweep(int targetIndex)
{
    if (!m_base || targetIndex < 0 || targetIndex >= int(m_targets.size()) || isRunning())
        return;
    const BandwidthTarget target = m_targets[size_t(targetIndex)];
    const Cluster &cluster = m_base->problem->topology.cluster();
    m_targetName = ResultsText::targetName(cluster, target);
    // kPoints bandwidths, evenly spaced on a log scale from 0.1× to 10× of the drawn value.
    const double drawnGBps = drawnBandwidthGBps(cluster, target);
    std::vector<double> bandwidths;
    bandwidths.reserve(kPoints);
    for (int i = 0; i < kPoints; ++i)
        bandwidths.push_back(drawnGBps * std::pow(10.0, -1.0 + 2.0 * i / (kPoints - 1)));

    SweepRequest request{m_planner, {}, {target}, std::move(bandwidths)};
    m_sweepGeneration = m_baseGeneration;
    m_runner->start<std::vector<SweepPoint>>(
        [problem = m_base->problem, plan = m_base->plan, costModel = m_costModel,
         request = std::move(request)](QPromise<std::vector<SweepPoint>> &promise,
                                       const std::stop_token &stop) {
            const std::unique_ptr<CostModel> model = makeCostModel(costModel);
            int done = 0;
            promise.addResult(
                sweepBandwidth(*problem, *model, plan, request, stop,
                               [&](const SweepPoint &) { promise.setProgressValue(++done); }));
        });
    m_runButton->setText(tr("Cancel sweep"));
    m_status->setText(tr("Computing…"));
}

void SweepView::onFinished(bool cancelled)
{
    m_runButton->setText(tr("Run sweep"));
    if (m_sweepGeneration != m_baseGeneration)
        return;
    const QFuture<std::vector<SweepPoint>> future = m_runner->future<std::vector<SweepPoint>>();
    m_points = future.resultCount() > 0 ? future.result() : std::vector<SweepPoint>{};
    m_status->setText(
        cancelled ? tr("Sweep stopped; points computed: %1").arg(m_points.size())
                  : tr("Sweep of %1 done; points: %2").arg(m_targetName).arg(m_points.size()));
    showPoints();
    Q_EMIT sweepFinished();
}

void SweepView::showPoints()
{
    QVector<double> keys;
    QVector<double> current;
    QVector<double> replanned;
    QVector<double> mfu;
    for (const SweepPoint &p : m_points) {
        if (!std::isfinite(p.currentPlanS) && !p.replannedS)
            continue;
        keys << p.bandwidthGBps;
        current << (std::isfinite(p.currentPlanS) ? p.currentPlanS : qQNaN());
        replanned << (p.replannedS ? *p.replannedS : qQNaN());
        mfu << (p.replannedS ? 100 * p.replannedMfu : qQNaN());
    }
    m_plot->graph(0)->setData(keys, current, true);
    m_plot->graph(1)->setData(keys, replanned, true);
    m_plot->graph(2)->setData(keys, mfu, true);
    setChartPlaceholder(m_plot, keys.isEmpty() ? tr("Choose a link and run a sweep") : QString());
    if (!keys.isEmpty()) {
        m_plot->rescaleAxes();
        m_plot->yAxis->setRangeLower(0);
        m_plot->yAxis->setRangeUpper(m_plot->yAxis->range().upper * 1.1);
        m_plot->yAxis2->setRange(0, std::max(m_plot->yAxis2->range().upper * 1.1, 1.0));
        setChartTitle(m_plot, tr("Bandwidth sweep: %1").arg(m_targetName));
    }
    m_plot->replot();
}

} // namespace hetplan::gui
