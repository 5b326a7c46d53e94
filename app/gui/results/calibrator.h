#pragma once

#include "core/calibrate/calibration.h"
#include "core/cost/measurement.h"

#include <QObject>
#include <QStringList>

#include <optional>
#include <vector>

class QAction;
class QWidget;

namespace hetplan::gui {

class BackgroundRunner;
class ClusterModel;
class ResultsPanel;

// Tools ▸ Calibrate from measurement… and the launch flow's "calibrate from this run"
// (docs/calibration.md): fits the cluster to runs of the shown plan in the background, applies
// the fitted figures as one undoable edit, asks the results panel to re-plan, and puts
// predicted, measured and calibrated beside each other in the breakdown chart.
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
    bool isRunning() const { return m_running; }

public Q_SLOTS:
    // Starts fitting to a run of the shown plan (the launch's measurement); calibrated() or
    // failed() follows. Returns false, with failed(), when it cannot start: no plan, the run is
    // not of it, or a calibration is still running.
    bool calibrateFromRun(const hetplan::Measurement &measured);
    // The same for measurement files of runs of the shown plan.
    bool calibrateFromFiles(const QStringList &paths);
    // The launch's measurement, kept for Calibrate from Last Run.
    void setLastRun(const hetplan::Measurement &measured);
    // Stops the fit; the cluster stays as it is and failed() says so.
    void cancel();

Q_SIGNALS:
    void started();
    void calibrated(const QString &summary);
    void failed(const QString &message);

private:
    void chooseFiles();
    bool calibrateRuns(const std::vector<Measurement> &measured,
                       const std::vector<std::string> &sources);
    void onFinished(bool cancelled);
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
    int m_runCount = 0;   // of the running fit, for its summary
    Cluster m_fittedFrom; // the cluster the running fit started from
};

} // namespace hetplan::gui
