#include "results/calibrator.h"

#include "core/cost/measured_plan.h"
#include "core/io/catalog_json.h"
#include "core/io/measurement_json.h"
#include "model/cluster_model.h"
#include "results/breakdown_chart.h"
#include "results/calibration_preview.h"
#include "results/results_panel.h"
#include "results/shown_plan_command.h"
#include "runtime/worker/measured_run.h"
#include "tasks/background_runner.h"

#include <QAction>
#include <QFileDialog>
#include <QMessageBox>

namespace hetplan::gui {
namespace {

// The run's totals (compareMeasured's first rows) of the first run, as three breakdowns.
BreakdownChart::RunComparison comparisonOf(const Calibration &c)
{
    BreakdownChart::RunComparison out;
    const std::string run = c.phases.empty() ? std::string() : c.phases.front().run;
    for (const PhaseFit &p : c.phases)
        for (const Phase phase : kBreakdownPhases)
            if (p.run == run && p.key == PhaseKey::ofRun(phase)) {
                out.predicted.*phaseField(phase) = p.before;
                out.measured.*phaseField(phase) = p.measured;
                out.calibrated.*phaseField(phase) = p.after;
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
    , m_runner(new BackgroundRunner(this))
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
    connect(m_runner, &BackgroundRunner::finished, this, &Calibrator::onFinished);
    connect(this, &Calibrator::failed, this, [this](const QString &message) {
        if (m_dialogParent && m_dialogParent->isVisible())
            QMessageBox::warning(m_dialogParent, tr("Calibrate"), message);
    });
}

CalibrationPreview *Calibrator::preview() const
{
    return m_preview;
}

void Calibrator::cancel()
{
    m_runner->cancel();
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
    updateActions();
}

bool Calibrator::calibrateFromRun(const Measurement &measured)
{
    return calibrateRuns({measured}, {tr("the last launch").toStdString()});
}

bool Calibrator::calibrateRuns(const std::vector<Measurement> &measured,
                               const std::vector<std::string> &sources)
{
    if (m_running)
        return fail(tr("A calibration is still running; wait for it to finish."));
    const auto &shown = m_results->shownPlan();
    if (!shown || shown->plan.workload.mode != Mode::Train)
        return fail(tr("Calibration needs the training plan the runs were made from: plan it "
                       "first, then calibrate."));
    std::vector<CalibrationRun> runs;
    m_warning.clear();
    for (size_t i = 0; i < measured.size(); ++i) {
        // A run of another plan is refused, naming both (docs/runtime.md, "Comparing with
        // the prediction"); one without a digest is fitted with a warning.
        auto samePlan
            = checkMeasuredPlan(measured[i], sources[i], shown->plan, shown->problem->topology,
                                tr("the shown plan").toStdString());
        if (!samePlan)
            return fail(QString::fromStdString(samePlan.error().message));
        if (!samePlan->empty())
            m_warning += QString::fromStdString(*samePlan) + u'\n';
        auto run
            = runtime::measuredRun(shown->plan, shown->problem->model, measured[i], sources[i]);
        if (!run)
            return fail(QString::fromStdString(run.error().message));
        runs.push_back(std::move(run).value());
    }
    m_warning = m_warning.trimmed();
    m_planBefore = shown;
    m_costModel = m_results->costModel();
    m_fittedFrom = m_model->cluster();
    m_runCount = int(runs.size());
    m_running = true;
    m_runner->start<Result<Calibration>>(
        [cluster = m_fittedFrom, runs = std::move(runs)](QPromise<Result<Calibration>> &promise,
                                                         const std::stop_token &stop) {
            promise.addResult(calibrate(cluster, builtinGpuCatalog(), runs, {}, stop));
        });
    updateActions();
    Q_EMIT started();
    return true;
}

void Calibrator::onFinished(bool cancelled)
{
    m_running = false;
    updateActions();
    const QFuture<Result<Calibration>> future = m_runner->future<Result<Calibration>>();
    if (cancelled || future.resultCount() == 0) {
        fail(tr("Calibration was stopped; the cluster is as it was."));
        return;
    }
    Result<Calibration> calibration = future.result();
    if (!calibration) {
        fail(QString::fromStdString(calibration.error().message));
        return;
    }
    // An edit made while the fit ran is kept: the fit is of the cluster before it.
    if (m_model->cluster() != m_fittedFrom) {
        fail(tr("The cluster changed while calibrating, so the fit is not applied; calibrate "
                "again to fit the cluster as it is now."));
        return;
    }
    showPreview(std::move(calibration).value());
}

void Calibrator::showPreview(Calibration calibration)
{
    // The shown plan as it is predicted now and on the calibrated cluster.
    double afterS = 0;
    if (auto topology = Topology::build(calibration.cluster, builtinGpuCatalog())) {
        const Problem problem{*topology, m_planBefore->problem->model,
                              m_planBefore->problem->workload};
        afterS = CostModel(m_costModel).evaluate(problem, m_planBefore->plan).iterationS;
    }
    m_previewed = std::move(calibration);
    m_running = true;
    updateActions();
    auto *preview
        = new CalibrationPreview(*m_previewed, m_fittedFrom, m_planBefore->evaluation.iterationS,
                                 afterS, m_warning, m_dialogParent);
    preview->setAttribute(Qt::WA_DeleteOnClose);
    m_preview = preview;
    connect(preview, &QDialog::finished, this, [this](int result) {
        m_running = false;
        updateActions();
        if (result == QDialog::Accepted) {
            apply();
        } else {
            m_previewed.reset();
            Q_EMIT discarded();
        }
    });
    preview->open();
    Q_EMIT previewReady();
}

void Calibrator::apply()
{
    Calibration calibration = std::move(*m_previewed);
    m_previewed.reset();
    if (m_model->cluster() != m_fittedFrom) {
        fail(tr("The cluster changed while the preview was open, so the fit is not applied; "
                "calibrate again to fit the cluster as it is now."));
        return;
    }
    if (calibration.cluster == m_fittedFrom) {
        // No figure ran or was identified: nothing to apply, nothing to undo.
        m_last = std::move(calibration);
        Q_EMIT calibrated(tr("Calibration changed no figure of the cluster; see the preview for "
                             "why."));
        return;
    }
    // One undo step: the cluster's figures and the re-plan.
    const Status applied = editAndReplan(
        m_results, m_model, tr("Calibrate from measurement"), calibration.cluster,
        [](ClusterModel *model, const Cluster &next) { return model->applyCalibration(next); });
    if (!applied) {
        fail(QString::fromStdString(applied.error().message));
        return;
    }
    m_last = std::move(calibration);
    m_results->breakdownChart()->setRunComparison(comparisonOf(*m_last));
    Q_EMIT calibrated(
        tr("Calibrated from %n run(s): rms error of the phase times %1 → %2", "", m_runCount)
            .arg(m_last->rmsLogErrorBefore, 0, 'f', 3)
            .arg(m_last->rmsLogErrorAfter, 0, 'f', 3));
}

void Calibrator::updateActions()
{
    m_action->setEnabled(!m_running);
    m_lastRunAction->setEnabled(!m_running && m_lastRun.has_value());
}

bool Calibrator::fail(const QString &message)
{
    Q_EMIT failed(message);
    return false;
}

} // namespace hetplan::gui
