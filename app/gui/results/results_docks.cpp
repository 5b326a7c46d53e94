#include "results/results_docks.h"

#include "results/breakdown_chart.h"
#include "results/compare_model.h"
#include "results/compare_view.h"
#include "results/convergence_chart.h"
#include "results/memory_chart.h"
#include "results/plan_view.h"
#include "results/problems_view.h"
#include "results/serving_view.h"
#include "results/stale_banner.h"
#include "results/sweep_view.h"
#include "results/timeline_chart.h"
#include "results/whatif_panel.h"

#include <QDockWidget>
#include <QHBoxLayout>
#include <QLabel>
#include <QMainWindow>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QStatusBar>
#include <QTabWidget>

namespace hetplan::gui {

namespace {

QDockWidget *addDock(QMainWindow *window, const QString &title, const QString &objectName,
                     QWidget *widget, Qt::DockWidgetArea area)
{
    auto *dock = new QDockWidget(title, window);
    dock->setObjectName(objectName); // saveState()/restoreState() key
    dock->setWidget(widget);
    window->addDockWidget(area, dock);
    return dock;
}

} // namespace

ResultsDocks::ResultsDocks(QMainWindow *window, QObject *owner)
{
    planView = new PlanView;
    auto *planScroll = new QScrollArea;
    planScroll->setWidget(planView);
    planScroll->setWidgetResizable(true);
    planScroll->setBackgroundRole(QPalette::Base);

    charts = new QTabWidget;
    breakdown = new BreakdownChart;
    memory = new MemoryChart;
    timeline = new TimelineChart;
    convergence = new ConvergenceChart;
    serving = new ServingView;
    charts->addTab(breakdown, tr("Breakdown"));
    charts->addTab(memory, tr("Memory"));
    charts->addTab(timeline, tr("Timeline"));
    charts->addTab(convergence, tr("Convergence"));
    charts->addTab(serving, tr("Serving"));
    // Beside the other charts, at the dock's full width: in the What if panel it was cut off.
    sweep = new SweepView;
    charts->addTab(sweep, tr("Sweep"));

    whatIf = new WhatIfPanel;
    compareModel = new CompareModel(owner);
    compareView = new CompareView(compareModel);
    problems = new ProblemsView;

    planBanner = new StaleBanner;
    chartsBanner = new StaleBanner;
    planDock = addDock(window, tr("Plan"), QStringLiteral("results.plan"),
                       StaleBanner::above(planBanner, planScroll), Qt::BottomDockWidgetArea);
    chartsDock = addDock(window, tr("Charts"), QStringLiteral("results.charts"),
                         StaleBanner::above(chartsBanner, charts), Qt::BottomDockWidgetArea);
    compareDock = addDock(window, tr("Compare"), QStringLiteral("results.compare"), compareView,
                          Qt::BottomDockWidgetArea);
    problemsDock = addDock(window, tr("Problems"), QStringLiteral("results.problems"), problems,
                           Qt::BottomDockWidgetArea);
    addDock(window, tr("What if"), QStringLiteral("results.whatif"), whatIf,
            Qt::RightDockWidgetArea);
    window->splitDockWidget(planDock, chartsDock, Qt::Horizontal);
    window->tabifyDockWidget(planDock, compareDock);
    window->tabifyDockWidget(planDock, problemsDock);
    planDock->raise();

    auto *progress = new QWidget;
    auto *row = new QHBoxLayout(progress);
    row->setContentsMargins(0, 0, 0, 0);
    progressLabel = new QLabel;
    progressBar = new QProgressBar;
    progressBar->setMaximumWidth(160);
    progressBar->setTextVisible(false);
    cancelButton = new QPushButton(tr("Cancel"));
    row->addWidget(progressLabel);
    row->addWidget(progressBar);
    row->addWidget(cancelButton);
    window->statusBar()->addPermanentWidget(progress);
}

QCustomPlot *ResultsDocks::currentPlot() const
{
    if (charts->currentWidget() == serving)
        return serving->latencyPlot();
    if (charts->currentWidget() == sweep)
        return sweep->plot();
    return qobject_cast<QCustomPlot *>(charts->currentWidget());
}

} // namespace hetplan::gui
