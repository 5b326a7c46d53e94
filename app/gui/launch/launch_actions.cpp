#include "launch/launch_actions.h"

#include "core/cost/measured_comparison.h"
#include "core/io/files.h"
#include "core/io/formats.h"
#include "launch/hosts_dialog.h"
#include "launch/hosts_mapping.h"
#include "launch/launch_panel.h"
#include "launch/measured_view.h"
#include "model/cluster_model.h"
#include "model/document.h"
#include "results/results_panel.h"

#include <QAction>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QMainWindow>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
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
    connect(m_hostsAction, &QAction::triggered, this, &LaunchActions::editHosts);
    connect(m_launchAction, &QAction::triggered, this, &LaunchActions::launch);

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

bool LaunchActions::editHosts()
{
    // The plan's cluster when a plan is shown (it is what Launch runs), else the canvas.
    const Cluster cluster = m_results->shownPlan()
                                ? m_results->shownPlan()->problem->topology.cluster()
                                : m_document->clusterModel()->cluster();
    HostsDialog dialog(cluster, m_document->hosts(), m_window);
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
        && !editHosts())
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
    m_launched = shown;
    int ranks = 0;
    for (const Pipeline &pipeline : shown.plan.pipelines)
        for (const Stage &stage : pipeline.stages)
            ranks += int(stage.gpus.size());
    m_jobDescription = tr("%n rank(s) on %1", nullptr, ranks)
                           .arg(QString::fromStdString(topology.cluster().name));
    m_panel->startJob(m_jobDescription);
    m_panelDock->show();
    m_panelDock->raise();
    m_controller->start(spec);
}

void LaunchActions::probe()
{
    if (m_controller->isRunning())
        return;
    const Cluster &cluster = m_document->clusterModel()->cluster();
    const std::optional<HostsFile> hosts = hostsFor(cluster);
    if (!hosts)
        return;
    m_jobDescription = tr("Probe of %1").arg(QString::fromStdString(cluster.name));
    m_panel->startJob(m_jobDescription);
    m_panelDock->show();
    m_panelDock->raise();
    m_controller->startProbe(baseSpec(*hosts), {});
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
    if (Status s = writeFileAtomic(QFile::encodeName(path).toStdString(), text); !s)
        QMessageBox::warning(m_window, tr("Save Probe"), QString::fromStdString(s.error().message));
}

void LaunchActions::askHostKeys(const std::vector<LaunchController::UnknownKey> &keys)
{
    for (const LaunchController::UnknownKey &key : keys) {
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
    m_panel->startJob(m_jobDescription);
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
    if (phase != JobPhase::Done || !m_controller->measurement() || !m_launched)
        return;
    m_lastMeasurement = m_controller->measurement();
    m_measured->showRun(
        *m_lastMeasurement,
        compareMeasured(m_launched->plan, m_launched->evaluation, *m_lastMeasurement));
    m_measuredDock->show();
    m_measuredDock->raise();
    Q_EMIT measurementArrived(*m_lastMeasurement);
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
