// The window's menus, toolbar and recent files.
#include "canvas/cluster_view.h"
#include "core/catalog/catalog.h"
#include "mainwindow.h"
#include "model/cluster_model.h"
#include "model/document.h"
#include "results/results_panel.h"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QFileInfo>
#include <QMenu>
#include <QMenuBar>
#include <QSettings>
#include <QToolBar>
#include <QToolButton>
#include <QUndoStack>

namespace hetplan::gui {

namespace {

const QString kRecentKey = QStringLiteral("recentFiles");
constexpr int kMaxRecentFiles = 8;

QIcon icon(const char *name)
{
    return QIcon(QStringLiteral(":/icons/") + QLatin1String(name) + QStringLiteral(".svg"));
}

} // namespace

void MainWindow::createActions()
{
    const auto make = [this](const QString &text, const QIcon &icon, const QKeySequence &shortcut,
                             void (MainWindow::*slot)()) {
        auto *action = new QAction(icon, text, this);
        action->setShortcut(shortcut);
        connect(action, &QAction::triggered, this, slot);
        return action;
    };
    m_newAction = make(tr("&New"), icon("new"), QKeySequence::New, &MainWindow::newProject);
    m_openAction = make(tr("&Open…"), icon("open"), QKeySequence::Open, &MainWindow::open);
    m_saveAction = new QAction(icon("save"), tr("&Save"), this);
    m_saveAction->setShortcut(QKeySequence::Save);
    connect(m_saveAction, &QAction::triggered, this, [this] { save(); });
    m_saveAsAction = new QAction(tr("Save &As…"), this);
    m_saveAsAction->setShortcut(QKeySequence::SaveAs);
    connect(m_saveAsAction, &QAction::triggered, this, [this] { saveAs(); });
    m_importAction = make(tr("&Import Cluster…"), {}, {}, &MainWindow::importCluster);
    m_exportAction = make(tr("&Export Cluster…"), {}, {}, &MainWindow::exportCluster);
    m_importMeasurementsAction = new QAction(tr("Import &Measurements…"), this);
    connect(m_importMeasurementsAction, &QAction::triggered, this,
            [this] { importMeasurements(false); });
    m_importMeasurementFolderAction = new QAction(tr("Import Measurement &Folder…"), this);
    connect(m_importMeasurementFolderAction, &QAction::triggered, this,
            [this] { importMeasurements(true); });
    m_settingsAction = make(tr("Se&ttings…"), icon("settings"), QKeySequence::Preferences,
                            &MainWindow::showSettings);
    m_settingsAction->setMenuRole(QAction::PreferencesRole);
    m_quitAction = new QAction(tr("&Quit"), this);
    m_quitAction->setShortcut(QKeySequence::Quit);
    m_quitAction->setMenuRole(QAction::QuitRole);
    connect(m_quitAction, &QAction::triggered, this, &QWidget::close);

    QUndoStack *stack = m_document->clusterModel()->undoStack();
    m_undoAction = stack->createUndoAction(this, tr("&Undo"));
    m_undoAction->setIcon(icon("undo"));
    m_undoAction->setShortcut(QKeySequence::Undo);
    m_redoAction = stack->createRedoAction(this, tr("&Redo"));
    m_redoAction->setIcon(icon("redo"));
    m_redoAction->setShortcut(QKeySequence::Redo);
}

void MainWindow::createMenus()
{
    m_fileMenu = menuBar()->addMenu(tr("&File"));
    m_fileMenu->addAction(m_newAction);
    m_fileMenu->addAction(m_openAction);
    m_examplesMenu = m_fileMenu->addMenu(tr("Open E&xample"));
    for (const Example &e : bundledExamples()) {
        if (e.kind != ExampleKind::Cluster)
            continue;
        const QString name = QString::fromStdString(e.name);
        connect(m_examplesMenu->addAction(name), &QAction::triggered, this, [this, name] {
            if (maybeSave())
                openExample(name);
        });
    }
    m_recentMenu = m_fileMenu->addMenu(tr("Open &Recent"));
    updateRecentMenu();
    m_fileMenu->addSeparator();
    m_fileMenu->addAction(m_saveAction);
    m_fileMenu->addAction(m_saveAsAction);
    m_fileMenu->addSeparator();
    m_fileMenu->addAction(m_importAction);
    m_fileMenu->addAction(m_importMeasurementsAction);
    m_fileMenu->addAction(m_importMeasurementFolderAction);
    m_fileMenu->addAction(m_exportAction);
    m_fileMenu->addSeparator();
    m_fileMenu->addAction(m_settingsAction);
    m_fileMenu->addSeparator();
    m_fileMenu->addAction(m_quitAction);

    using A = ClusterView::Action;
    m_editMenu = menuBar()->addMenu(tr("&Edit"));
    m_editMenu->addAction(m_undoAction);
    m_editMenu->addAction(m_redoAction);
    m_editMenu->addSeparator();
    for (A a : {A::Cut, A::Copy, A::Paste, A::Duplicate, A::AddCopies, A::Delete})
        m_editMenu->addAction(m_view->action(a));
    m_editMenu->addSeparator();
    m_editMenu->addAction(m_view->action(A::SelectAll));
    m_editMenu->addAction(m_view->action(A::LinkTool));

    m_viewMenu = menuBar()->addMenu(tr("&View"));
    for (A a : {A::ZoomIn, A::ZoomOut, A::FitToWindow})
        m_viewMenu->addAction(m_view->action(a));
    m_viewMenu->addSeparator();
    m_viewMenu->addAction(m_view->action(A::AutoLayout));
    m_viewMenu->addSeparator();
    m_panelsMenu = m_viewMenu->addMenu(tr("&Panels"));
    for (QDockWidget *dock : {m_paletteDock, m_inspectorDock, m_workloadDock})
        m_panelsMenu->addAction(dock->toggleViewAction());
}

void MainWindow::createToolBar()
{
    QToolBar *bar = addToolBar(tr("Main"));
    bar->setObjectName(QStringLiteral("mainToolBar"));
    bar->addAction(m_newAction);
    bar->addAction(m_openAction);
    bar->addAction(m_saveAction);
    bar->addSeparator();
    bar->addAction(m_undoAction);
    bar->addAction(m_redoAction);
    bar->addSeparator();
    using A = ClusterView::Action;
    for (A a : {A::ZoomIn, A::ZoomOut, A::FitToWindow, A::AutoLayout, A::LinkTool})
        bar->addAction(m_view->action(a));
    bar->addSeparator();
    QAction *plan = m_results->planAction();
    plan->setIcon(icon("plan"));
    bar->addAction(plan);
    // The one button a first-time user must find: its name beside the icon.
    if (auto *button = qobject_cast<QToolButton *>(bar->widgetForAction(plan)))
        button->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_panelsMenu->addAction(bar->toggleViewAction());
}

void MainWindow::addRecentFile(const QString &path)
{
    QSettings settings;
    QStringList files = settings.value(kRecentKey).toStringList();
    files.removeAll(path);
    files.prepend(path);
    while (files.size() > kMaxRecentFiles)
        files.removeLast();
    settings.setValue(kRecentKey, files);
    updateRecentMenu();
}

void MainWindow::updateRecentMenu()
{
    m_recentMenu->clear();
    const QStringList files = QSettings().value(kRecentKey).toStringList();
    for (const QString &path : files) {
        QAction *action = m_recentMenu->addAction(QFileInfo(path).fileName());
        action->setToolTip(path);
        action->setEnabled(QFileInfo::exists(path));
        connect(action, &QAction::triggered, this, [this, path] {
            if (maybeSave())
                openFile(path);
        });
    }
    m_recentMenu->addSeparator();
    QAction *clear = m_recentMenu->addAction(tr("&Clear Menu"));
    clear->setEnabled(!files.isEmpty());
    connect(clear, &QAction::triggered, this, [this] {
        QSettings().remove(kRecentKey);
        updateRecentMenu();
    });
}

} // namespace hetplan::gui
