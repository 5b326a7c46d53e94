#include "results/calibrator.h"

#include "core/io/catalog_json.h"
#include "core/io/measurement_json.h"
#include "model/cluster_model.h"
#include "results/breakdown_chart.h"
#include "results/results_panel.h"
#include "runtime/worker/measured_run.h"

#include <QAction>
#include <QFileDialog>
#include <QMessageBox>

namespace hetplan::gui {
namespace {

// The run's totals (compare_measured's first rows) of the first run, as three breakdowns.
BreakdownChart::RunComparison comparisonOf(const Calibration &c)
{
    BreakdownChart::RunComparison out;
    const std::string run = c.phases.empty() ? std::string() : c.phases.front().run;
    const std::pair<const char *, double Breakdown::*> parts[] = {{"compute", &Breakdown::computeS},
                                                                  {"tp_comm", &Breakdown::tpCommS},
                                                                  {"pp_comm", &Breakdown::ppCommS},
                                                                  {"dp_comm", &Breakdown::dpCommS},
                                                                  {"bubble", &Breakdown::bubbleS}};
    for (const PhaseFit &p : c.phases)
        for (const auto &[name, field] : parts)
            if (p.run == run && p.what == name) {
                out.predicted.*field = p.before;
                out.measured.*field = p.measured;
                out.calibrated.*field = p.after;
            }
    return out;
}

} // namespace

Calibrator::Calibrator(ResultsPanel *results, ClusterModel *model, QWidget *dialogParent)
    : QObject(results)
    , m_results(results)
    , m_model(model)
    , m_dialogParent(dialogParent)
    , m_action(new QAction(tr("&Calibrate from Measurement…"), this))
    , m_lastRunAction(new QAction(tr("Calibrate from &Last Run"), this))
{
    m_lastRunAction->setEnabled(false);
    m_lastRunAction->setStatusTip(
        tr("Fit the cluster's figures to the run the last launch measured, and re-plan"));
    connect(m_lastRunAction, &QAction::triggered, this, [this] {
        if (m_lastRun)
            calibrateFromRun(*m_lastRun);
    });
    m_action->setStatusTip(tr("Fit the cluster's figures to measured runs of the shown plan"));
    connect(m_action, &QAction::triggered, this, &Calibrator::chooseFiles);
    connect(this, &Calibrator::failed, this, [this](const QString &message) {
        if (m_dialogParent && m_dialogParent->isVisible())
            QMessageBox::warning(m_dialogParent, tr("Calibrate"), message);
    });
}

void Calibrator::chooseFiles()
{
    const QStringList paths
        = QFileDialog::getOpenFileNames(m_dialogParent, tr("Measurements of the shown plan"),
                                        QString(), tr("Measurements (*.json);;All files (*)"));
    if (!paths.isEmpty())
        calibrateFromFiles(paths);
}

bool Calibrator::calibrateFromFiles(const QStringList &paths)
{
    std::vector<Measurement> measured;
    std::vector<std::string> sources;
    for (const QString &path : paths) {
        auto loaded = loadMeasurement(path.toStdString());
        if (!loaded)
            return fail(QString::fromStdString(loaded.error().message));
        measured.push_back(std::move(loaded).value());
        sources.push_back(path.toStdString());
    }
    return calibrateRuns(measured, sources);
}

void Calibrator::setLastRun(const Measurement &measured)
{
    m_lastRun = measured;
    m_lastRunAction->setEnabled(true);
}

bool Calibrator::calibrateFromRun(const Measurement &measured)
{
    return calibrateRuns({measured}, {tr("the last launch").toStdString()});
}

bool Calibrator::calibrateRuns(const std::vector<Measurement> &measured,
                               const std::vector<std::string> &sources)
{
    const auto &shown = m_results->shownPlan();
    if (!shown || shown->plan.workload.mode != Mode::Train)
        return fail(tr("Calibration needs the training plan the runs were made from: plan it "
                       "first, then calibrate."));
    std::vector<CalibrationRun> runs;
    for (size_t i = 0; i < measured.size(); ++i) {
        auto run
            = runtime::measuredRun(shown->plan, shown->problem->model, measured[i], sources[i]);
        if (!run)
            return fail(QString::fromStdString(run.error().message));
        runs.push_back(std::move(run).value());
    }
    auto calibration = calibrate(m_model->cluster(), builtinGpuCatalog(), runs);
    if (!calibration)
        return fail(QString::fromStdString(calibration.error().message));
    if (Status applied = m_model->applyCalibration(calibration->cluster); !applied)
        return fail(QString::fromStdString(applied.error().message));
    m_last = std::move(calibration).value();
    m_results->breakdownChart()->setRunComparison(comparisonOf(*m_last));
    m_results->planAction()->trigger();
    Q_EMIT calibrated(
        tr("Calibrated from %n run(s): rms error of the phase times %1 → %2", "", int(runs.size()))
            .arg(m_last->rmsLogErrorBefore, 0, 'f', 3)
            .arg(m_last->rmsLogErrorAfter, 0, 'f', 3));
    return true;
}

bool Calibrator::fail(const QString &message)
{
    Q_EMIT failed(message);
    return false;
}

} // namespace hetplan::gui
