#pragma once

#include "core/launch/preflight_report.h"
#include "core/model/cluster.h"

#include <QObject>
#include <QPointer>

class QMainWindow;

namespace hetplan::gui {

class ClusterModel;
class LaunchPanel;
class PreflightDialog;
class ResultsPanel;

// The launch flow's Pre-flight step once the report is in (docs/app-launch.md, "Pre-flight"):
// the table in the Job pane and in a dialog, the canvas's links coloured (reported()), and the
// person's choice: launch anyway, cancel, or fold the measured pairs into the cluster and
// re-plan as one undo step.
class PreflightStep : public QObject
{
    Q_OBJECT

public:
    PreflightStep(QMainWindow *window, ClusterModel *model, ResultsPanel *results,
                  LaunchPanel *panel);

    // The job's report on the plan it checked, whose cluster is `checked`; the dialog opens
    // window-modal, and its choice follows as launchChosen(), a fold, or nothing.
    void showReport(const PreflightReport &report, const Cluster &checked);
    // The open dialog; null when none is open.
    PreflightDialog *dialog() const;
    // Fold: the report's measured pairs into the cluster, and the re-plan, as one undo step.
    // False, with a message, when there is nothing to fold or the cluster refuses it.
    bool fold(const PreflightReport &report);

Q_SIGNALS:
    void reported(const hetplan::PreflightReport &report);
    void launchChosen();

private:
    void say(const QString &text);

    QMainWindow *m_window;
    ClusterModel *m_model;
    ResultsPanel *m_results;
    LaunchPanel *m_panel;
    QPointer<PreflightDialog> m_dialog;
};

} // namespace hetplan::gui
