#pragma once

#include <QCoreApplication>

class QCustomPlot;
class QDockWidget;
class QLabel;
class QMainWindow;
class QObject;
class QProgressBar;
class QPushButton;
class QTabWidget;

namespace hetplan::gui {

class BreakdownChart;
class CompareModel;
class CompareView;
class ConvergenceChart;
class MemoryChart;
class PlanView;
class ProblemsView;
class ServingView;
class StaleBanner;
class SweepView;
class TimelineChart;
class WhatIfPanel;

// The widgets of the results half and where they sit in the window: the plan, the charts, the
// comparison and the problems below the canvas, What if on the right, the progress row in the
// status bar. ResultsPanel decides what they show. The window owns every widget.
struct ResultsDocks
{
    // The texts are the panel's, in its translation context.
    Q_DECLARE_TR_FUNCTIONS(hetplan::gui::ResultsPanel)

public:
    // Adds the docks and the progress row to `window`; `owner` parents the compare model.
    ResultsDocks(QMainWindow *window, QObject *owner);

    // The plot on the Charts dock's current tab, for exporting it; null when it has none.
    QCustomPlot *currentPlot() const;

    PlanView *planView = nullptr;
    QTabWidget *charts = nullptr;
    BreakdownChart *breakdown = nullptr;
    MemoryChart *memory = nullptr;
    TimelineChart *timeline = nullptr;
    ConvergenceChart *convergence = nullptr;
    ServingView *serving = nullptr;
    WhatIfPanel *whatIf = nullptr;
    SweepView *sweep = nullptr;
    CompareModel *compareModel = nullptr;
    CompareView *compareView = nullptr;
    ProblemsView *problems = nullptr;
    QDockWidget *planDock = nullptr;
    QDockWidget *chartsDock = nullptr;
    StaleBanner *planBanner = nullptr;
    StaleBanner *chartsBanner = nullptr;
    QDockWidget *problemsDock = nullptr;
    QDockWidget *compareDock = nullptr;
    QProgressBar *progressBar = nullptr;
    QLabel *progressLabel = nullptr;
    QPushButton *cancelButton = nullptr;
};

} // namespace hetplan::gui
