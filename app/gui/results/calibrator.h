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

class ClusterModel;
class ResultsPanel;

// Tools ▸ Calibrate from measurement… and the launch flow's "calibrate from this run"
// (docs/calibration.md): fits the cluster to runs of the shown plan, applies the fitted
// figures as one undoable edit, re-plans, and puts predicted, measured and calibrated beside
// each other in the breakdown chart.
class Calibrator : public QObject
{
    Q_OBJECT

public:
    Calibrator(ResultsPanel *results, ClusterModel *model, QWidget *dialogParent);

    QAction *action() const { return m_action; }
    // Tools ▸ Calibrate from Last Run: enabled once a launch measured a run (setLastRun).
    QAction *lastRunAction() const { return m_lastRunAction; }
    // The last calibration made, for the report and tests.
    const std::optional<Calibration> &last() const { return m_last; }

public Q_SLOTS:
    // A run of the shown plan (the launch's measurement). Returns false, with `failed`, when
    // there is no plan, the run is not of it, or nothing can be fitted.
    bool calibrateFromRun(const hetplan::Measurement &measured);
    // Measurement files of runs of the shown plan.
    bool calibrateFromFiles(const QStringList &paths);
    // The launch's measurement, kept for Calibrate from Last Run.
    void setLastRun(const hetplan::Measurement &measured);

Q_SIGNALS:
    void calibrated(const QString &summary);
    void failed(const QString &message);

private:
    void chooseFiles();
    bool calibrateRuns(const std::vector<Measurement> &measured,
                       const std::vector<std::string> &sources);
    bool fail(const QString &message);

    ResultsPanel *m_results;
    ClusterModel *m_model;
    QWidget *m_dialogParent;
    QAction *m_action;
    QAction *m_lastRunAction;
    std::optional<Measurement> m_lastRun;
    std::optional<Calibration> m_last;
};

} // namespace hetplan::gui
