#pragma once

#include "core/calibrate/calibration.h"
#include "core/cost/cost_model.h"
#include "core/cost/measurement.h"
#include "results/shown_plan.h"

#include <QObject>
#include <QPointer>
#include <QStringList>

#include <memory>
#include <optional>
#include <vector>

class QAction;
class QWidget;

namespace hetplan::gui {

class BackgroundRunner;
class CalibrationPreview;
class ClusterModel;
class ResultsPanel;

// Tools ▸ Calibrate from measurement… and the launch flow's "calibrate from this run"
// (docs/calibration.md, "In the app"): refuses a measurement of another plan than the shown
// one, fits the cluster to the runs in the background, shows what would change in a preview,
// and on Apply makes the fitted figures and the re-plan one undoable edit (undo restores the
// cluster and the plan shown before), putting predicted, measured and calibrated beside each
// other in the breakdown chart.
class Calibrator : public QObject
{
    Q_OBJECT

public:
    Calibrator(ResultsPanel *results, ClusterModel *model, QWidget *dialogParent);

    QAction *action() const { return m_action; }
    // Tools ▸ Calibrate from Last Run: enabled once a launch measured a run (setLastRun).
    QAction *lastRunAction() const { return m_lastRunAction; }
    // The last calibration applied, for the report and tests.
    const std::optional<Calibration> &last() const { return m_last; }
    // From the start of a fit until its preview is closed.
    bool isRunning() const { return m_running; }
    // The open preview of a finished fit; null when none is open.
    CalibrationPreview *preview() const;

public Q_SLOTS:
    // Starts fitting to a run of the shown plan (the launch's measurement); previewReady() or
    // failed() follows, then calibrated() on Apply or discarded() on Cancel. Returns false, with
    // failed(), when it cannot start: no plan, the run is not of it (its plan digest), or a
    // calibration is still running.
    bool calibrateFromRun(const hetplan::Measurement &measured);
    // The same for measurement files of runs of the shown plan.
    bool calibrateFromFiles(const QStringList &paths);
    // The launch's measurement, kept for Calibrate from Last Run.
    void setLastRun(const hetplan::Measurement &measured);
    // Stops the fit; the cluster stays as it is and failed() says so.
    void cancel();

Q_SIGNALS:
    void started();
    void previewReady();
    void calibrated(const QString &summary);
    void discarded();
    void failed(const QString &message);

private:
    void chooseFiles();
    bool calibrateRuns(const std::vector<Measurement> &measured,
                       const std::vector<std::string> &sources);
    void onFinished(bool cancelled);
    void showPreview(Calibration calibration);
    void apply();
    void updateActions();
    bool fail(const QString &message);

    ResultsPanel *m_results;
    ClusterModel *m_model;
    QWidget *m_dialogParent;
    QAction *m_action;
    QAction *m_lastRunAction;
    BackgroundRunner *m_runner;
    std::optional<Measurement> m_lastRun;
    std::optional<Calibration> m_last;
    // From the start of a fit until its finished() is handled (the result applied or refused),
    // so no second fit starts in between.
    bool m_running = false;
    int m_runCount = 0;                    // of the running fit, for its summary
    Cluster m_fittedFrom;                  // the cluster the running fit started from
    std::optional<ShownPlan> m_planBefore; // the plan shown when the fit started
    CostModelKind m_costModel = CostModelKind::HetPlan;
    QString m_warning; // about the runs (a measurement without a plan digest), for the preview
    std::optional<Calibration> m_previewed;
    QPointer<CalibrationPreview> m_preview;
};

} // namespace hetplan::gui
