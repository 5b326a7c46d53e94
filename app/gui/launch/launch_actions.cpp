#include "launch/launch_actions.h"

#include "core/calibrate/run_prediction.h"
#include "core/cost/cost_model.h"
#include "core/io/files.h"
#include "core/io/formats.h"
#include "core/plan/rank_layout.h"
#include "launch/hosts_dialog.h"
#include "launch/hosts_mapping.h"
#include "launch/launch_panel.h"
#include "launch/measured_view.h"
#include "launch/preflight_step.h"
#include "model/cluster_model.h"
#include "model/document.h"
#include "results/results_panel.h"
#include "results/served_run_view.h"
#include "results/serving_view.h"
#include "runtime/launcher/ssh_session.h"
#include "runtime/worker/measured_run.h"

#include <QAction>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QMainWindow>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTimer>

#include <algorithm>

namespace hetplan::gui {

namespace {

const QString kKnownHostsKey = QStringLiteral("launch/knownHostsFile");

QDockWidget *makeDock(const QString &title, const QString &objectName, QWidget *content,
                      QMainWindow *window)
{
    auto *dock = new QDockWidget(title, window);
    dock->setObjectName(objectName); // the saveState() key
    dock->setWidget(content);
    window->addDockWidget(Qt::BottomDockWidgetArea, dock);
    // Beside the plan, where the results are.
    if (auto *plan = window->findChild<QDockWidget *>(QStringLiteral("results.plan")))
        window->tabifyDockWidget(plan, dock);
    return dock;
}

// `hosts` with the entries of `changed` replacing (or joining) those of the same machine.
HostsFile merged(HostsFile hosts, const HostsFile &changed)
{
    for (const HostEntry &entry : changed.hosts) {
        auto it = std::find_if(hosts.hosts.begin(), hosts.hosts.end(),
                               [&](const HostEntry &e) { return e.machine == entry.machine; });
        if (it != hosts.hosts.end())
            *it = entry;
        else
            hosts.hosts.push_back(entry);
    }
    return hosts;
}

QString destination(const HostEntry &entry)
{
    return QString::fromStdString(destinationOf(sshTarget(entry)));
}

// The plan's ranks where the launcher will start them: numbered as hetplan-worker numbers them
// (core/plan/rank_layout.h), each on its machine's SSH destination.
std::vector<LaunchLog::RankPlace> jobRanks(const Plan &plan, const Topology &topology,
                                           const HostsFile &hosts)
{
    std::vector<std::string> hostOfMachine;
    for (const Machine &machine : topology.cluster().machines) {
        const HostEntry *entry = hosts.find(machine.name);
        hostOfMachine.push_back(entry ? destination(*entry).toStdString() : std::string());
    }
    std::vector<LaunchLog::RankPlace> ranks;
    for (const RankPlacement &p : rankLayout(plan, topology, hostOfMachine))
        ranks.push_back(
            {p.rank, QString::fromStdString(p.machineName), QString::fromStdString(p.host)});
    return ranks;
}

// A probe's ranks: one per destination, in the order of the hosts file, named after its first
// machine (LaunchJob::probe).
std::vector<LaunchLog::RankPlace> probeRanks(const HostsFile &hosts)
{
    std::vector<LaunchLog::RankPlace> ranks;
    QStringList seen;
    for (const HostEntry &entry : hosts.hosts) {
        const QString host = destination(entry);
        if (seen.contains(host))
            continue;
        seen.push_back(host);
        ranks.push_back({int(ranks.size()), QString::fromStdString(entry.machine), host});
    }
    return ranks;
}

} // namespace

LaunchActions::LaunchActions(QMainWindow *window, QMenu *toolsMenu, Document *document,
                             ResultsPanel *results)
    : QObject(window)
    , m_window(window)
    , m_document(document)
    , m_results(results)
    , m_controller(new LaunchController(this))
    , m_panel(new LaunchPanel(window))
    , m_measured(new MeasuredView(window))
    , m_panelDock(makeDock(tr("Launch"), QStringLiteral("launch.panel"), m_panel, window))
    , m_measuredDock(
          makeDock(tr("Measured"), QStringLiteral("launch.measured"), m_measured, window))
    , m_hostsAction(new QAction(tr("&Hosts…"), this))
    , m_launchAction(new QAction(tr("&Launch…"), this))
    , m_probeAction(new QAction(tr("&Probe Cluster…"), this))
    , m_preflight(new PreflightStep(window, document->clusterModel(), results, m_panel))
{
    m_hostsAction->setObjectName(QStringLiteral("hostsAction"));
    m_hostsAction->setStatusTip(tr("Map each machine to the SSH host it runs on"));
    m_launchAction->setObjectName(QStringLiteral("launchAction"));
    m_launchAction->setStatusTip(tr("Run the shown plan on its hosts over SSH and measure it"));
    toolsMenu->addAction(m_hostsAction);
    toolsMenu->addAction(m_launchAction);
    m_probeAction->setObjectName(QStringLiteral("probeAction"));
    m_probeAction->setStatusTip(
        tr("Measure the hosts' GPUs and links with hetplan-probe and save the probe file"));
    toolsMenu->addAction(m_probeAction);
    connect(m_probeAction, &QAction::triggered, this, &LaunchActions::probe);
    connect(m_hostsAction, &QAction::triggered, this, [this] { editHosts(); });
    connect(m_launchAction, &QAction::triggered, this, &LaunchActions::launch);
    connect(m_preflight, &PreflightStep::launchChosen, this, &LaunchActions::startRun);

    connect(m_panel, &LaunchPanel::cancelRequested, m_controller, &LaunchController::cancel);
    connect(m_controller, &LaunchController::phaseChanged, m_panel, &LaunchPanel::setPhase);
    connect(m_controller, &LaunchController::eventsArrived, m_panel, &LaunchPanel::addEvents);
    // Asked after the runner's finished() has returned, so a relaunch starts afresh.
    connect(m_controller, &LaunchController::unknownHostKeys, this,
            [this](const std::vector<LaunchController::UnknownKey> &keys) {
                QTimer::singleShot(0, this, [this, keys] { askHostKeys(keys); });
            });
    connect(m_controller, &LaunchController::ended, this, &LaunchActions::onEnded);
    connect(m_controller, &LaunchController::started, this, &LaunchActions::updateActions);
    connect(m_results, &ResultsPanel::planShown, this, &LaunchActions::updateActions);
    connect(m_results, &ResultsPanel::planShown, this, [this] {
        const auto &shown = m_results->shownPlan();
        const bool serving = shown && shown->plan.workload.mode == Mode::Infer;
        m_panel->setServingPlan(serving,
                                serving ? shown->plan.workload.infer.requestRatePerS : 0.0);
    });
    connect(m_document, &Document::projectReplaced, this, [this] {
        // The measurement belongs to the project it was made for.
        m_measured->clear();
        updateActions();
    });
    updateActions();
}

LaunchActions::~LaunchActions() = default;

QString LaunchActions::knownHostsFile()
{
    return QSettings().value(kKnownHostsKey).toString();
}

void LaunchActions::setKnownHostsFile(const QString &path)
{
    QSettings().setValue(kKnownHostsKey, path);
}

void LaunchActions::updateActions()
{
    m_launchAction->setEnabled(m_results->shownPlan().has_value() && !m_controller->isRunning());
    m_probeAction->setEnabled(!m_controller->isRunning());
}

bool LaunchActions::editHosts(HostsProblem problem)
{
    // The plan's cluster when a plan is shown (it is what Launch runs), else the canvas.
    const Cluster cluster = m_results->shownPlan()
                                ? m_results->shownPlan()->problem->topology.cluster()
                                : m_document->clusterModel()->cluster();
    HostsDialog dialog(cluster, m_document->hosts(), m_window);
    if (problem == HostsProblem::Show)
        (void)dialog.validate();
    if (dialog.exec() != QDialog::Accepted)
        return false;
    const HostsFile hosts = dialog.hosts();
    m_document->setHosts(merged(m_document->hosts(), hosts));
    // The canvas's "SSH host" of each machine follows the host it now maps to.
    ClusterModel *model = m_document->clusterModel();
    for (const HostEntry &entry : hosts.hosts) {
        const ItemId id = model->nodeByName(entry.machine);
        const Machine *machine = id ? model->machine(id) : nullptr;
        if (machine && machine->host != entry.host) {
            Machine changed = *machine;
            changed.host = entry.host;
            (void)model->updateMachine(id, changed);
        }
    }
    return true;
}

std::optional<HostsFile> LaunchActions::hostsFor(const Cluster &cluster)
{
    if (!checkHostsForCluster(hostsForCluster(cluster, m_document->hosts()), cluster)
        && !editHosts(HostsProblem::Show))
        return std::nullopt;
    return hostsForCluster(cluster, m_document->hosts());
}

LaunchSpec LaunchActions::baseSpec(const HostsFile &hosts)
{
    LaunchSpec spec;
    spec.hosts = hosts;
    spec.knownHostsFile = knownHostsFile().toStdString();
    return spec;
}

void LaunchActions::launch()
{
    if (!m_results->shownPlan() || m_controller->isRunning())
        return;
    const ShownPlan shown = *m_results->shownPlan();
    const Topology &topology = shown.problem->topology;
    const std::optional<HostsFile> hosts = hostsFor(topology.cluster());
    if (!hosts)
        return;

    LaunchSpec spec = baseSpec(*hosts);
    spec.planText = writePlan(shown.plan, topology);
    spec.planName = tr("the plan shown").toStdString(); // it has no file: messages name it so
    spec.clusterText = writeCluster(topology.cluster());
    spec.modelText = writeModel(shown.problem->model);
    spec.scale = m_panel->scale();
    spec.iterations = m_panel->iterations();
    if (shown.plan.workload.mode == Mode::Infer) {
        spec.serving = m_panel->serving();
        spec.seed = m_panel->seed();
    }
    m_launched = shown;
    m_runSpec = spec;
    m_runRanks = jobRanks(shown.plan, topology, *hosts);
    m_panelDock->show();
    m_panelDock->raise();
    if (!m_panel->preflightFirst()) {
        startRun();
        return;
    }
    // The same ranks on the same hosts, each checking its groups' links (docs/launcher.md,
    // "Pre-flight"); the run follows when the person chooses it.
    m_jobDescription = tr("Pre-flight of %n rank(s) on %1", nullptr, int(m_runRanks.size()))
                           .arg(QString::fromStdString(topology.cluster().name));
    m_panel->startJob(m_jobDescription, m_runRanks);
    // At the plan's own message sizes: a scaled rehearsal would check messages `scale` times
    // smaller than the plan sends (the pre-flight builds no model, so scale 1 costs nothing).
    LaunchSpec preflight = spec;
    preflight.scale = 1;
    m_controller->startPreflight(preflight, PreflightOptions{});
}

void LaunchActions::startRun()
{
    if (!m_launched || m_controller->isRunning())
        return;
    // Host keys accepted for the pre-flight hold for its run.
    if (m_controller->isPreflight())
        m_runSpec.confirmedFingerprints = m_controller->spec().confirmedFingerprints;
    m_jobDescription
        = tr("%n rank(s) on %1", nullptr, int(m_runRanks.size()))
              .arg(QString::fromStdString(m_launched->problem->topology.cluster().name));
    m_panel->startJob(m_jobDescription, m_runRanks);
    m_panelDock->show();
    m_panelDock->raise();
    if (m_launched->plan.workload.mode == Mode::Infer)
        m_controller->startServe(m_runSpec);
    else
        m_controller->start(m_runSpec);
}

void LaunchActions::probe()
{
    if (m_controller->isRunning())
        return;
    const Cluster &cluster = m_document->clusterModel()->cluster();
    const std::optional<HostsFile> hosts = hostsFor(cluster);
    if (!hosts)
        return;
    // The project's own model at its workload's shapes (docs/probe.md), sent as a model file so
    // that every host reads the same model.
    const Project project = m_document->project();
    auto model = project.model();
    if (!model) {
        QMessageBox::warning(m_window, tr("Probe Cluster"),
                             QString::fromStdString(model.error().message));
        return;
    }
    ProbeCommand measure;
    m_probeModel = std::make_unique<QTemporaryDir>();
    measure.model
        = QFile::encodeName(m_probeModel->filePath(QStringLiteral("model.json"))).toStdString();
    if (Status s = writeFileAtomic(measure.model, writeModel(*model)); !s) {
        QMessageBox::warning(m_window, tr("Probe Cluster"),
                             QString::fromStdString(s.error().message));
        return;
    }
    if (project.workload.mode == Mode::Train) {
        measure.seqLen = project.workload.train.seqLen;
        measure.microBatch = project.workload.train.microBatchSizes.empty()
                                 ? measure.microBatch
                                 : project.workload.train.microBatchSizes.front();
    }
    m_jobDescription = tr("Probe of %1").arg(QString::fromStdString(cluster.name));
    m_panel->startJob(m_jobDescription, probeRanks(*hosts));
    m_panel->addJobLine(tr("probing with the GEMM shapes of %1 (micro-batch %2, sequence %3)")
                            .arg(QString::fromStdString(model->name))
                            .arg(measure.microBatch)
                            .arg(measure.seqLen));
    m_panelDock->show();
    m_panelDock->raise();
    m_controller->startProbe(baseSpec(*hosts), measure);
}

void LaunchActions::saveProbe(const std::string &text)
{
    const QString path = QFileDialog::getSaveFileName(
        m_window, tr("Save Probe"),
        QString::fromStdString(m_document->clusterModel()->cluster().name)
            + QStringLiteral(".probe.json"),
        tr("Probe files (*.probe.json);;All files (*)"));
    if (path.isEmpty())
        return;
    if (Status s = writeFileAtomic(QFile::encodeName(path).toStdString(), text); !s) {
        QMessageBox::warning(m_window, tr("Save Probe"), QString::fromStdString(s.error().message));
        return;
    }
    m_panel->addJobLine(tr("probe file saved to %1").arg(path));
}

void LaunchActions::askHostKeys(const std::vector<LaunchController::UnknownKey> &keys)
{
    for (const LaunchController::UnknownKey &key : keys) {
        m_panel->addJobLine(tr("%1 offered the %2 key %3, which the known hosts file lacks: "
                               "waiting for you to accept or reject it")
                                .arg(QString::fromStdString(key.destination),
                                     QString::fromStdString(key.keyType),
                                     QString::fromStdString(key.fingerprint)));
        QMessageBox box(QMessageBox::Question, tr("Unknown Host Key"),
                        tr("The host %1 is not in your known hosts file.")
                            .arg(QString::fromStdString(key.destination)),
                        QMessageBox::NoButton, m_window);
        box.setObjectName(QStringLiteral("hostKeyDialog"));
        box.setInformativeText(
            tr("Its %1 key has the fingerprint\n%2\n\nAccept it only if the host's "
               "administrator confirms this fingerprint; it is then added to the known hosts "
               "file.")
                .arg(QString::fromStdString(key.keyType), QString::fromStdString(key.fingerprint)));
        box.setTextInteractionFlags(Qt::TextSelectableByMouse);
        QPushButton *accept = box.addButton(tr("&Accept"), QMessageBox::AcceptRole);
        accept->setObjectName(QStringLiteral("acceptHostKey"));
        QPushButton *reject = box.addButton(tr("&Reject"), QMessageBox::RejectRole);
        reject->setObjectName(QStringLiteral("rejectHostKey"));
        box.setDefaultButton(reject);
        box.exec();
        if (box.clickedButton() != accept) {
            m_panel->endJob(JobPhase::Cancelled,
                            tr("The host key of %1 was rejected; nothing was started.")
                                .arg(QString::fromStdString(key.destination)));
            updateActions();
            return;
        }
    }
    for (const LaunchController::UnknownKey &key : keys)
        m_panel->addJobLine(tr("accepted the %1 key %2 of %3; connecting again")
                                .arg(QString::fromStdString(key.keyType),
                                     QString::fromStdString(key.fingerprint),
                                     QString::fromStdString(key.destination)));
    m_controller->relaunchTrusting(keys);
}

void LaunchActions::onEnded(JobPhase phase, const QString &error)
{
    m_panel->endJob(phase, error);
    updateActions();
    if (phase == JobPhase::Done && m_controller->probeText()) {
        saveProbe(*m_controller->probeText());
        return;
    }
    if (phase == JobPhase::Done && m_controller->preflightReport() && m_launched) {
        m_preflight->showReport(*m_controller->preflightReport(),
                                m_launched->problem->topology.cluster());
        return;
    }
    if (m_controller->servedMeasurement() && m_launched) {
        showServed(*m_controller->servedMeasurement());
        return;
    }
    if (phase != JobPhase::Done || !m_controller->measurement() || !m_launched)
        return;
    m_lastMeasurement = m_controller->measurement();
    // Beside the prediction of the run as it trained (its scale, sequence length, precision),
    // as `evaluate --measured` compares it, not the plan at full size.
    std::vector<Comparison> rows;
    const std::string source = tr("the launched run").toStdString();
    if (auto run = runtime::measuredRun(m_launched->plan, m_launched->problem->model,
                                        *m_lastMeasurement, source))
        rows = compareRun(m_launched->problem->topology, CostModel(m_results->costModel()), *run);
    else
        m_panel->addJobLine(QString::fromStdString(run.error().message));
    m_measured->showRun(*m_lastMeasurement, rows);
    m_measuredDock->show();
    m_measuredDock->raise();
    Q_EMIT measurementArrived(*m_lastMeasurement);
}

void LaunchActions::showServed(const ServingMeasurement &measured)
{
    // Beside the simulation of the same requests, in the Serving tab (docs/app-launch.md,
    // "Serving runs"); failed requests say why there.
    ServedRunView *view = m_results->servingView()->servedRunView();
    if (!view->showRun(measured, tr("the launched run")))
        m_panel->addJobLine(view->message());
    const ServingSummary &summary = measured.summary;
    m_panel->addJobLine(
        tr("served %1 of %2 requests").arg(summary.completed).arg(summary.requests));
    ServingView *serving = m_results->servingView();
    for (QWidget *w = serving->parentWidget(); w; w = w->parentWidget())
        if (auto *tabs = qobject_cast<QTabWidget *>(w)) {
            for (int i = 0; i < tabs->count(); ++i)
                if (tabs->widget(i) == serving || tabs->widget(i)->isAncestorOf(serving))
                    tabs->setCurrentIndex(i);
            break;
        }
    if (auto *dock = m_window->findChild<QDockWidget *>(QStringLiteral("results.charts"))) {
        dock->show();
        dock->raise();
    }
}

bool LaunchActions::confirmClose()
{
    if (!m_controller->isRunning())
        return true;
    const auto answer
        = QMessageBox::question(m_window, tr("Job Running"),
                                tr("A launched job is still running. Stop every rank and quit?"),
                                QMessageBox::Yes | QMessageBox::No, QMessageBox::No);
    return answer == QMessageBox::Yes;
}

void LaunchActions::stopAndWait()
{
    m_controller->cancelAndWait();
}

} // namespace hetplan::gui
