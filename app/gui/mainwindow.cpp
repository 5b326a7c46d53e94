#include "mainwindow.h"

#include "canvas/cluster_scene.h"
#include "canvas/cluster_view.h"
#include "canvas/palette.h"
#include "canvas/verdict_legend.h"
#include "core/io/catalog_json.h"
#include "help/help_menu.h"
#include "inspector/inspector.h"
#include "launch/launch_actions.h"
#include "launch/preflight_step.h"
#include "measurement_import.h"
#include "model/cluster_model.h"
#include "model/cluster_names.h"
#include "model/document.h"
#include "panels/workload_panel.h"
#include "results/calibrator.h"
#include "results/results_panel.h"
#include "results/served_run_view.h"
#include "results/serving_view.h"
#include "settings_dialog.h"

#include <QCloseEvent>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QLocale>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QScrollArea>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>
#include <QUndoStack>

namespace hetplan::gui {

namespace {

const QString kGeometryKey = QStringLiteral("window/geometry");
const QString kStateKey = QStringLiteral("window/state");
constexpr int kStatusMessageMs = 8000;

QDockWidget *makeDock(const QString &title, const QString &objectName, QWidget *content,
                      QWidget *parent)
{
    auto *dock = new QDockWidget(title, parent);
    dock->setObjectName(objectName); // the saveState() key
    dock->setWidget(content);
    return dock;
}

// Σ GPUs × peak TFLOPS, types resolved as the topology does (the cluster's own first).
double totalTflops(const Cluster &cluster)
{
    double total = 0;
    for (const Machine &m : cluster.machines) {
        const GpuType *type = nullptr;
        for (const GpuType &t : cluster.gpuTypes)
            if (sameTypeName(t.name, m.gpu))
                type = &t;
        if (!type)
            type = builtinGpuCatalog().find(m.gpu);
        if (type)
            total += m.count * type->tflops;
    }
    return total;
}

} // namespace

MainWindow::MainWindow(QWidget *parent)
    : QMainWindow(parent)
    , m_document(new Document)
{
    setWindowIcon(QIcon(QStringLiteral(":/icons/hetplan.svg")));
    m_document->setAutosaveInterval(SettingsDialog::autosaveIntervalS());
    ClusterModel *model = m_document->clusterModel();

    m_scene = new ClusterScene(model, this);
    m_view = new ClusterView(m_scene, this);
    setCentralWidget(m_view);

    m_palette = new Palette(this);
    m_paletteDock = makeDock(tr("Palette"), QStringLiteral("palette"), m_palette, this);
    addDockWidget(Qt::LeftDockWidgetArea, m_paletteDock);

    m_inspector = new Inspector(model, this);
    m_inspectorDock = makeDock(tr("Inspector"), QStringLiteral("inspector"), m_inspector, this);
    addDockWidget(Qt::RightDockWidgetArea, m_inspectorDock);
    connect(m_scene, &ClusterScene::selectionChangedIds, m_inspector, &Inspector::setSelection);

    m_workloadPanel = new WorkloadPanel(m_document, this);
    auto *workloadScroll = new QScrollArea(this);
    workloadScroll->setWidget(m_workloadPanel);
    workloadScroll->setWidgetResizable(true);
    workloadScroll->setFrameShape(QFrame::NoFrame);
    m_workloadDock = makeDock(tr("Workload"), QStringLiteral("workload"), workloadScroll, this);
    addDockWidget(Qt::RightDockWidgetArea, m_workloadDock);
    connect(m_palette, &Palette::templateActivated, this, [this](const Cluster &fragment) {
        (void)m_scene->insertFragmentAt(fragment,
                                        m_view->mapToScene(m_view->viewport()->rect().center()));
    });

    m_totals = new QLabel(this);
    statusBar()->addPermanentWidget(m_totals);
    m_measurementImport = new MeasurementImport(m_document, this);

    createActions();
    createMenus();
    // The results half adds its docks, the Plan menu after View and its progress area.
    m_results = new ResultsPanel(model, this);
    m_results->followDocument(m_document);
    m_results->setReplanAfterEdits(SettingsDialog::replanAfterEdits());
    m_results->connectScene(m_scene);
    // After Export Cluster…: the Serving tab's run (docs/app-launch.md, "Serving runs").
    m_fileMenu->insertAction(
        m_fileMenu->actions().at(m_fileMenu->actions().indexOf(m_settingsAction) - 1),
        m_results->servingView()->servedRunView()->saveAction());
    createToolBar();
    m_launch = new LaunchActions(this, toolsMenu(), m_document, m_results);
    connect(m_launch, &LaunchActions::measurementArrived, this, &MainWindow::measurementArrived);
    connect(m_launch->preflightStep(), &PreflightStep::reported, new VerdictLegend(m_view),
            &VerdictLegend::showReport);
    for (QDockWidget *dock : {m_launch->panelDock(), m_launch->measuredDock()})
        m_panelsMenu->addAction(dock->toggleViewAction());
    m_calibrator = new Calibrator(m_results, model, this);
    toolsMenu()->addAction(m_calibrator->action());
    toolsMenu()->addAction(m_calibrator->lastRunAction());
    connect(m_launch, &LaunchActions::measurementArrived, m_calibrator, &Calibrator::setLastRun);
    connect(m_calibrator, &Calibrator::calibrated, this, [this](const QString &summary) {
        statusBar()->showMessage(summary, kStatusMessageMs);
    });
    menuBar()->addMenu(new HelpMenu(this));
    arrangeDocks();

    connect(model, &ClusterModel::clusterChanged, this, &MainWindow::updateStatus);
    connect(model, &ClusterModel::editRefused, this, [this](const QString &message) {
        statusBar()->showMessage(message, kStatusMessageMs);
    });
    for (auto signal : {&ClusterScene::pasteRefused, &ClusterScene::linkHint})
        connect(m_scene, signal, this, [this](const QString &message) {
            statusBar()->showMessage(message, kStatusMessageMs);
        });
    connect(m_document, &Document::modifiedChanged, this, &MainWindow::updateTitle);
    connect(m_document, &Document::filePathChanged, this, &MainWindow::updateTitle);
    connect(m_document, &Document::projectReplaced, this, [this] {
        updateTitle();
        // After the new items are laid out in the view.
        QTimer::singleShot(0, m_view, &ClusterView::showOpened);
    });

    resize(1280, 800);
    QSettings settings;
    restoreGeometry(settings.value(kGeometryKey).toByteArray());
    restoreState(settings.value(kStateKey).toByteArray());
    updateTitle();
    updateStatus();
    // The window's last child, so that QObject deletes it after everything that reads it (the
    // canvas and the panels touch the model while they are torn down).
    m_document->setParent(this);
}

MainWindow::~MainWindow() = default;

void MainWindow::addPanelDock(QDockWidget *dock, Qt::DockWidgetArea area)
{
    addDockWidget(area, dock);
    m_panelsMenu->addAction(dock->toggleViewAction());
}

QMenu *MainWindow::toolsMenu()
{
    if (!m_toolsMenu)
        m_toolsMenu = menuBar()->addMenu(tr("&Tools"));
    return m_toolsMenu;
}

const std::optional<Measurement> &MainWindow::lastMeasurement() const
{
    return m_launch->lastMeasurement();
}

void MainWindow::bringToFront(QWidget *widget)
{
    for (QWidget *w = widget; w; w = w->parentWidget()) {
        // A tab's page sits in the QTabWidget's internal stack.
        QWidget *stack = w->parentWidget();
        auto *tabs = stack ? qobject_cast<QTabWidget *>(stack->parentWidget()) : nullptr;
        if (tabs && tabs->indexOf(w) >= 0)
            tabs->setCurrentWidget(w);
        if (auto *dock = qobject_cast<QDockWidget *>(w)) {
            dock->show();
            dock->raise();
        }
    }
}

void MainWindow::arrangeDocks()
{
    // First-start layout; restoreState() brings back the person's own. The canvas keeps the
    // middle. The results are tabs below it, the plan in front, at full width for long
    // pipelines. On the right, one tab each for the selection, the workload and the what-if
    // sliders, which keeps the plan in view while a slider moves.
    const auto dock = [this](const char *objectName) {
        QDockWidget *found = findChild<QDockWidget *>(QLatin1String(objectName));
        Q_ASSERT(found);
        return found;
    };
    QDockWidget *plan = dock("results.plan");
    const QList<QDockWidget *> bottom
        = {plan, dock("results.charts"), dock("results.compare"), dock("results.problems")};
    QDockWidget *whatIf = dock("results.whatif");
    // Tall panels scroll rather than push the window past its default size.
    for (QDockWidget *d : {whatIf, dock("results.compare")}) {
        auto *scroll = new QScrollArea;
        scroll->setWidget(d->widget());
        scroll->setWidgetResizable(true);
        scroll->setFrameShape(QFrame::NoFrame);
        // The what-if rows fit beside the vertical scroll bar; the comparison table may scroll.
        if (d == whatIf)
            scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
        d->setWidget(scroll);
    }
    for (QDockWidget *d : bottom.mid(1))
        tabifyDockWidget(plan, d);
    tabifyDockWidget(m_inspectorDock, m_workloadDock);
    tabifyDockWidget(m_inspectorDock, whatIf);
    plan->raise();
    m_workloadDock->raise();
    for (QDockWidget *d : bottom + QList<QDockWidget *>{whatIf})
        m_panelsMenu->addAction(d->toggleViewAction());
    // Selecting on the canvas brings its editor forward.
    connect(m_scene, &ClusterScene::selectionChangedIds, this,
            [this](const std::vector<ItemId> &ids) {
                if (!ids.empty())
                    m_inspectorDock->raise();
            });

    resizeDocks({m_paletteDock, m_inspectorDock}, {200, 460}, Qt::Horizontal);
    resizeDocks({plan}, {1}, Qt::Vertical); // as low as the charts allow
}

void MainWindow::updateTitle()
{
    setWindowTitle(tr("%1[*] — HetPlan").arg(m_document->displayName()));
    setWindowModified(m_document->isModified());
    setWindowFilePath(m_document->filePath());
}

void MainWindow::updateStatus()
{
    const Cluster &c = m_document->clusterModel()->cluster();
    int gpus = 0;
    for (const Machine &m : c.machines)
        gpus += m.count;
    m_totals->setText(tr("%n GPU(s)", nullptr, gpus) + QStringLiteral("  ·  ")
                      + tr("%n machine(s)", nullptr, int(c.machines.size()))
                      + QStringLiteral("  ·  ")
                      + tr("%1 TFLOPS").arg(QLocale().toString(totalTflops(c), 'f', 0)));
}

void MainWindow::showError(const QString &title, const QString &message)
{
    QMessageBox::warning(this, title, message);
}

bool MainWindow::maybeSave()
{
    if (!m_document->isModified())
        return true;
    const auto answer = QMessageBox::warning(
        this, tr("Unsaved Changes"),
        tr("“%1” has unsaved changes. Save them first?").arg(m_document->displayName()),
        QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    if (answer == QMessageBox::Save)
        return save();
    if (answer == QMessageBox::Discard) {
        m_document->discardAutosave();
        return true;
    }
    return false;
}

void MainWindow::offerRecovery(const QString &filePath)
{
    const auto autosave = Document::recoverableAutosave(filePath);
    if (!autosave)
        return;
    const auto answer = QMessageBox::question(
        this, tr("Recover Unsaved Changes"),
        filePath.isEmpty()
            ? tr("HetPlan was closed with unsaved changes in an untitled project. Recover them?")
            : tr("HetPlan was closed with unsaved changes to “%1”. Recover them?")
                  .arg(QFileInfo(filePath).fileName()),
        QMessageBox::Yes | QMessageBox::No, QMessageBox::Yes);
    if (answer != QMessageBox::Yes) {
        QFile::remove(*autosave);
        return;
    }
    if (Status s = m_document->recover(*autosave, filePath); !s)
        showError(tr("Recover Unsaved Changes"), QString::fromStdString(s.error().message));
}

bool MainWindow::openFile(const QString &path)
{
    if (Status s = m_document->open(path); !s) {
        showError(tr("Open"), QString::fromStdString(s.error().message));
        return false;
    }
    addRecentFile(m_document->filePath());
    offerRecovery(m_document->filePath());
    return true;
}

bool MainWindow::openExample(const QString &name)
{
    if (Status s = m_document->openExample(name); !s) {
        showError(tr("Open Example"), QString::fromStdString(s.error().message));
        return false;
    }
    return true;
}

void MainWindow::openStartDocument()
{
    openExample(QStringLiteral("case-study"));
    offerRecovery({});
    planAtStart();
}

void MainWindow::planAtStart()
{
    if (!m_results->shownPlan())
        m_results->planUnasked();
}

void MainWindow::newProject()
{
    if (maybeSave())
        m_document->newProject();
}

void MainWindow::open()
{
    if (!maybeSave())
        return;
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open"), QString(), tr("HetPlan projects and clusters (*.json);;All files (*)"));
    if (!path.isEmpty())
        openFile(path);
}

bool MainWindow::save()
{
    if (m_document->filePath().isEmpty())
        return saveAs();
    if (Status s = m_document->save(m_document->filePath()); !s) {
        showError(tr("Save"), QString::fromStdString(s.error().message));
        return false;
    }
    statusBar()->showMessage(tr("Saved %1").arg(m_document->filePath()), kStatusMessageMs);
    return true;
}

bool MainWindow::saveAs()
{
    QString path = QFileDialog::getSaveFileName(
        this, tr("Save As"), m_document->displayName() + QStringLiteral(".hetplan.json"),
        tr("HetPlan projects (*.hetplan.json);;All files (*)"));
    if (path.isEmpty())
        return false;
    if (Status s = m_document->save(path); !s) {
        showError(tr("Save As"), QString::fromStdString(s.error().message));
        return false;
    }
    addRecentFile(m_document->filePath());
    return true;
}

void MainWindow::importCluster()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Import Cluster"), QString(),
                                                      tr("Cluster files (*.json);;All files (*)"));
    if (path.isEmpty())
        return;
    if (Status s = m_document->importCluster(path); !s)
        showError(tr("Import Cluster"), QString::fromStdString(s.error().message));
}

void MainWindow::importMeasurements(bool folder)
{
    if (m_measurementImport->isRunning() || !maybeSave())
        return;
    QStringList paths;
    if (folder) {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Import Measurements"));
        if (!dir.isEmpty())
            paths << dir;
    } else {
        paths = QFileDialog::getOpenFileNames(
            this, tr("Import Measurements"), QString(),
            tr("Measurements (*.json *.log *.txt *.out);;All files (*)"));
    }
    m_measurementImport->importPaths(paths);
}

void MainWindow::exportCluster()
{
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export Cluster"),
        QString::fromStdString(m_document->clusterModel()->cluster().name)
            + QStringLiteral(".cluster.json"),
        tr("Cluster files (*.cluster.json);;All files (*)"));
    if (path.isEmpty())
        return;
    if (Status s = m_document->exportCluster(path); !s)
        showError(tr("Export Cluster"), QString::fromStdString(s.error().message));
}

void MainWindow::showSettings()
{
    SettingsDialog dialog(this);
    if (dialog.exec() == QDialog::Accepted) {
        m_document->setAutosaveInterval(SettingsDialog::autosaveIntervalS());
        m_results->setReplanAfterEdits(SettingsDialog::replanAfterEdits());
    }
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    // Both questions first: a person who cancels the second keeps the job running.
    if (!m_launch->confirmClose() || !maybeSave()) {
        event->ignore();
        return;
    }
    m_launch->stopAndWait();
    m_document->discardAutosave();
    QSettings settings;
    settings.setValue(kGeometryKey, saveGeometry());
    settings.setValue(kStateKey, saveState());
    event->accept();
}

} // namespace hetplan::gui
