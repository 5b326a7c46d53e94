#pragma once

#include "core/cost/measurement.h"
#include "core/serving/serving_measurement.h"
#include "launch/launch_controller.h"
#include "launch/launch_log.h"
#include "results/shown_plan.h"

#include <QObject>
#include <QString>

#include <memory>
#include <optional>

class QAction;
class QDockWidget;
class QMainWindow;
class QMenu;
class QTemporaryDir;

namespace hetplan::gui {

class Document;
class LaunchPanel;
class MeasuredView;
class PreflightStep;
class ResultsPanel;

// The window's launching part (docs/app-launch.md): Tools › Hosts, Launch and Probe Cluster, the
// Launch dock with the job's status and logs, and the Measured dock with
// the last run beside the prediction. It asks for hosts that are missing, for unknown host
// keys, and before quitting while a job runs.
class LaunchActions : public QObject
{
    Q_OBJECT

public:
    // Whether the Hosts dialog opens with the table's first problem shown.
    enum class HostsProblem { Hide, Show };

    LaunchActions(QMainWindow *window, QMenu *toolsMenu, Document *document, ResultsPanel *results);
    ~LaunchActions() override;

    // Asks whether to stop a running job before the window closes. False: keep the window open.
    bool confirmClose();
    // Closing: stops every rank of a running job and waits until they are gone.
    void stopAndWait();

    // Where host keys are checked (empty: ~/.ssh/known_hosts), kept in the settings.
    static QString knownHostsFile();
    static void setKnownHostsFile(const QString &path);

    const std::optional<Measurement> &lastMeasurement() const { return m_lastMeasurement; }

    QAction *hostsAction() const { return m_hostsAction; }
    QAction *launchAction() const { return m_launchAction; }
    QAction *probeAction() const { return m_probeAction; }
    LaunchController *controller() const { return m_controller; }
    LaunchPanel *panel() const { return m_panel; }
    PreflightStep *preflightStep() const { return m_preflight; }
    MeasuredView *measuredView() const { return m_measured; }
    QDockWidget *panelDock() const { return m_panelDock; }
    QDockWidget *measuredDock() const { return m_measuredDock; }

public Q_SLOTS:
    // Opens the Hosts dialog; true when the person accepted it (the mapping is saved). Launch
    // and Probe open it showing why the mapping cannot run yet.
    bool editHosts(HostsProblem problem = HostsProblem::Hide);
    void launch();
    // Tools › Probe Cluster: hetplan-probe on the hosts of every machine of the canvas, the
    // probe file saved where the person chooses.
    void probe();

Q_SIGNALS:
    void measurementArrived(const hetplan::Measurement &measurement);

private:
    void updateActions();
    void askHostKeys(const std::vector<LaunchController::UnknownKey> &keys);
    void onEnded(JobPhase phase, const QString &error);
    // A serving job's requests, in the Serving tab beside the simulation.
    void showServed(const ServingMeasurement &measured);
    // The training run of the spec Launch made (after its pre-flight, if any).
    void startRun();
    void saveProbe(const std::string &text);
    // The hosts of `cluster`'s machines, asking for missing ones; nullopt: the person cancelled.
    std::optional<HostsFile> hostsFor(const Cluster &cluster);
    static LaunchSpec baseSpec(const HostsFile &hosts);

    QMainWindow *m_window;
    Document *m_document;
    ResultsPanel *m_results;
    LaunchController *m_controller;
    LaunchPanel *m_panel;
    MeasuredView *m_measured;
    QDockWidget *m_panelDock;
    QDockWidget *m_measuredDock;
    QAction *m_hostsAction;
    QAction *m_launchAction;
    QAction *m_probeAction;
    PreflightStep *m_preflight;
    std::optional<ShownPlan> m_launched; // the plan of the running or last job
    LaunchSpec m_runSpec;                // what Launch runs, once its pre-flight is through
    std::vector<LaunchLog::RankPlace> m_runRanks;
    QString m_jobDescription;
    std::optional<Measurement> m_lastMeasurement;
    std::unique_ptr<QTemporaryDir> m_probeModel; // the model file the running probe reads
};

} // namespace hetplan::gui
