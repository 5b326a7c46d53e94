#pragma once

#include "core/cost/measurement.h"

#include <QMainWindow>

#include <optional>

class QAction;
class QDockWidget;
class QLabel;
class QMenu;

namespace hetplan::gui {

class Calibrator;
class ClusterScene;
class ClusterView;
class Document;
class Inspector;
class MeasurementImport;
class LaunchActions;
class Palette;
class ResultsPanel;
class WorkloadPanel;

// The designer's window: the canvas in the middle, the palette on the left, the inspector
// and the workload on the right, File / Edit / View menus, and the document's life cycle
// (open, save, autosave, recovery, asking before unsaved work is lost).
//
// The results half (a ResultsPanel: planning, plan views, charts, what-if) adds its docks, the
// Plan menu and a progress area; the window arranges its docks around the canvas.
class MainWindow : public QMainWindow
{
    Q_OBJECT

public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    Document *document() const { return m_document; }
    ClusterScene *scene() const { return m_scene; }
    ClusterView *view() const { return m_view; }
    QMenu *viewMenu() const { return m_viewMenu; }
    ResultsPanel *results() const { return m_results; }
    MeasurementImport *measurementImport() const { return m_measurementImport; }
    // Tools ▸ Calibrate from measurement…; the launch flow calls its calibrateFromRun().
    Calibrator *calibrator() const { return m_calibrator; }
    // Docks of other parts of the app: placed in `area` and listed in View ▸ Panels.
    void addPanelDock(QDockWidget *dock, Qt::DockWidgetArea area);
    // The Tools menu (before Help), created on first use by the parts that add to it.
    QMenu *toolsMenu();
    // Tools › Hosts and Launch, the Launch and Measured docks.
    LaunchActions *launch() const { return m_launch; }
    // The measurement of the last launched job that finished, for calibrating from it.
    const std::optional<Measurement> &lastMeasurement() const;
    // Shows the dock and the tab that hold `widget` (e.g. a results chart).
    static void bringToFront(QWidget *widget);

    // Opens a project or cluster file, offering a newer autosave; on error shows why and
    // keeps the current document. Returns whether the file is now open.
    bool openFile(const QString &path);
    bool openExample(const QString &name);
    // At start without a file: the case study, or an untitled document's autosave. Either way
    // the start plan follows (see planAtStart()).
    void openStartDocument();
    // The start plan: when the open document shows no plan, plans it in the background with
    // its planner, so the app opens on a result. Does not block; the plan replaces the view
    // when it is found, as if Plan had been pressed.
    void planAtStart();

Q_SIGNALS:
    // A launched job finished and measured its run (lastMeasurement() holds it).
    void measurementArrived(const hetplan::Measurement &measurement);

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    // mainwindow_actions.cpp
    void createActions();
    void createMenus();
    void createToolBar();
    void updateRecentMenu();
    void addRecentFile(const QString &path);

    void newProject();
    void open();
    bool save();
    bool saveAs();
    void importCluster();
    // File › Import Measurements: files, or a folder (docs/import.md).
    void importMeasurements(bool folder);
    void exportCluster();
    void showSettings();
    // Asks what to do with unsaved changes; false: the person cancelled.
    bool maybeSave();
    void showError(const QString &title, const QString &message);
    void updateTitle();
    void updateStatus();
    void offerRecovery(const QString &filePath);
    void arrangeDocks();

    Document *m_document; // Owned (QObject child), as are the widgets below.
    ClusterScene *m_scene;
    ClusterView *m_view;
    Palette *m_palette;
    Inspector *m_inspector;
    WorkloadPanel *m_workloadPanel;
    ResultsPanel *m_results;
    LaunchActions *m_launch = nullptr;
    Calibrator *m_calibrator = nullptr;
    QDockWidget *m_paletteDock;
    QDockWidget *m_inspectorDock;
    QDockWidget *m_workloadDock;
    QLabel *m_totals;
    MeasurementImport *m_measurementImport;

    QMenu *m_fileMenu = nullptr;
    QMenu *m_editMenu = nullptr;
    QMenu *m_viewMenu = nullptr;
    QMenu *m_panelsMenu = nullptr;
    QMenu *m_examplesMenu = nullptr;
    QMenu *m_recentMenu = nullptr;
    QMenu *m_toolsMenu = nullptr;
    QAction *m_newAction = nullptr;
    QAction *m_openAction = nullptr;
    QAction *m_saveAction = nullptr;
    QAction *m_saveAsAction = nullptr;
    QAction *m_importAction = nullptr;
    QAction *m_exportAction = nullptr;
    QAction *m_importMeasurementsAction = nullptr;
    QAction *m_importMeasurementFolderAction = nullptr;
    QAction *m_settingsAction = nullptr;
    QAction *m_quitAction = nullptr;
    QAction *m_undoAction = nullptr;
    QAction *m_redoAction = nullptr;
};

} // namespace hetplan::gui
