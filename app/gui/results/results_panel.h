#pragma once

#include "core/cost/cost_model.h"
#include "core/model/model_spec.h"
#include "core/model/workload.h"
#include "core/planners/planner.h"
#include "model/cluster_model.h"
#include "model/document.h"
#include "results/plan_freshness.h"
#include "results/problems_view.h"
#include "results/results_docks.h"
#include "results/results_menu.h"
#include "results/results_text.h"
#include "results/shown_plan.h"

#include <QList>
#include <QObject>

#include <optional>

class QAction;
class QLabel;
class QMainWindow;
class QTimer;

namespace hetplan::gui {

class BreakdownChart;
class ClusterScene;
class Document;
class CompareModel;
class CompareView;
class ConvergenceChart;
class MemoryChart;
class PlanView;
class PlanningController;
struct PlanRequest;
struct PlanningProgress;
class ServingView;
class SweepView;
class StaleBanner;
class TimelineChart;
class WhatIfPanel;

// The results half of the window: planning in the background, the plan, its charts, the
// what-if sliders and the planner comparison. The main window creates one and hands it the
// model and workload; it adds its docks, a "Plan" menu and a progress area to the window.
// Planning works on a snapshot of the cluster, so the cluster can be edited meanwhile.
class ResultsPanel : public QObject
{
    Q_OBJECT

public:
    // The Plan menu goes before `menuBefore` (e.g. Help's menu action), else at the end.
    ResultsPanel(ClusterModel *clusterModel, QMainWindow *window, QAction *menuBefore = nullptr);
    ~ResultsPanel() override;

    // Takes model, workload, planner and cost model from the document and keeps following
    // it; the Plan menu's choices and each plan shown go back into it. New and Open clear
    // every figure of the previous project and show the new one's saved plan, if any, as it
    // was made (marked out of date where the project has changed since).
    void followDocument(Document *document);
    // Selection both ways with the canvas: a stage's GPUs are highlighted on the cards, a
    // selected machine highlights its stages, a clicked problem selects its culprit.
    void connectScene(ClusterScene *scene) const;

    void setModel(const ModelSpec &model);
    void setWorkload(const Workload &workload);
    // Empty: the workload's default planner (defaultPlanner(mode)).
    void setPlanner(std::optional<PlannerKind> planner);
    void setCostModel(CostModelKind costModel);

    // What Plan would run: the cluster as it is now, the model and the workload.
    Result<Problem> currentProblem() const;
    std::optional<PlannerKind> planner() const { return m_planner; }
    CostModelKind costModel() const { return m_costModel; }
    // The planner Plan runs: the chosen one, else the workload's default.
    PlannerKind plannerToRun() const;

    const std::optional<ShownPlan> &shownPlan() const { return m_shown; }
    // How the shown plan's inputs differ from what Plan would use now (results_freshness.cpp).
    const PlanFreshness &freshness() const { return m_freshness; }
    // Default off: an out-of-date plan waits for Re-evaluate or Re-plan.
    void setReplanAfterEdits(bool replan);
    // By value: `shown` may live in a view that showing it clears (What if's re-planned plan).
    void showPlan(ShownPlan next);

    // Views and actions, for the window's own layout choices and for tests.
    PlanningController *controller() const { return m_controller; }
    PlanView *planView() const { return m_docks.planView; }
    BreakdownChart *breakdownChart() const { return m_docks.breakdown; }
    MemoryChart *memoryChart() const { return m_docks.memory; }
    TimelineChart *timelineChart() const { return m_docks.timeline; }
    ConvergenceChart *convergenceChart() const { return m_docks.convergence; }
    ServingView *servingView() const { return m_docks.serving; }
    WhatIfPanel *whatIfPanel() const { return m_docks.whatIf; }
    SweepView *sweepView() const { return m_docks.sweep; }
    CompareModel *compareModel() const { return m_docks.compareModel; }
    CompareView *compareView() const { return m_docks.compareView; }
    ProblemsView *problemsView() const { return m_docks.problems; }
    StaleBanner *planBanner() const { return m_docks.planBanner; }
    StaleBanner *chartsBanner() const { return m_docks.chartsBanner; }
    QMenu *planMenu() const { return m_menu.menu(); }
    QAction *planAction() const { return m_menu.planAction(); }
    QAction *plannerSettingsAction() const { return m_menu.settingsAction(); }
    QLabel *progressLabel() const { return m_docks.progressLabel; }

public Q_SLOTS:
    void plan();
    // Plan, for a plan nobody asked for yet (the one the app opens on): finding it is no
    // change to the document.
    void planUnasked();
    void compareAll();
    // The shown plan, evaluated for the cluster, model and workload as they are now; why
    // not in the Problems list when it no longer fits them.
    void reevaluate();
    void cancel();
    // The Plan menu's choices: as setPlanner and setCostModel, and said by choicesChanged.
    void choosePlanner(std::optional<hetplan::PlannerKind> planner);
    void chooseCostModel(hetplan::CostModelKind costModel);
    // A selection on the canvas: highlight the stages holding these GPUs ("A:0").
    void highlightGpus(const QStringList &gpuNames) const;
    // The same for whole machines (a canvas selection): every GPU of each.
    void highlightMachines(const std::vector<hetplan::gui::ItemId> &ids);

Q_SIGNALS:
    // A stage was selected in the plan view: its GPUs, and the machines that hold them.
    void gpusSelected(const QStringList &gpuNames, const QList<hetplan::gui::ItemId> &machines);
    // A problem was clicked: select this machine, switch or link on the canvas.
    void culpritSelected(const QString &name, hetplan::gui::ItemId id);
    void planShown();
    // The Plan menu changed the planner or the cost model.
    void choicesChanged();

private:
    void connectViews();
    void showLastPlan(const Project &project);
    void clearResults();
    void updateFreshness();
    std::vector<ResultIssue> currentIssues() const;
    // The status line's figures of the shown plan; marked while it is out of date.
    void setFiguresText(const QString &text);
    QString figuresText(const ShownPlan &shown) const;
    void start(std::vector<PlannerKind> planners);
    void onClusterChanged();
    void onProgress();
    void showProgressFraction(const PlanRequest &request, const PlanningProgress &progress) const;
    void onPlannerFinished(int index);
    void onFinished(bool cancelled);
    // The status line for a finished search: training per iteration and MFU, inference the
    // slowest replica and SLO attainment.
    static QString plannedText(const Problem &problem, CostModelKind costModel,
                               const PlanSearch &search);
    void onStageSelected(const QStringList &gpuNames);
    void onCulprit(const ResultIssue &issue);
    void setRunning(bool running);
    void showFailures();
    bool eventFilter(QObject *watched, QEvent *event) override;

    ClusterModel *m_clusterModel; // Not owned.
    QMainWindow *m_window;        // Not owned; our parent.
    std::optional<ModelSpec> m_model;
    Workload m_workload;
    std::optional<PlannerKind> m_planner;
    CostModelKind m_costModel = CostModelKind::HetPlan;
    std::optional<ShownPlan> m_shown;
    Document::PlanOrigin m_shownOrigin = Document::PlanOrigin::Person;
    Document::PlanOrigin m_runOrigin = Document::PlanOrigin::Person;
    bool m_discardRun = false; // the running search is for a project no longer open
    PlanFreshness m_freshness;
    QString m_figuresText;
    bool m_replanAfterEdits = false;
    QTimer *m_replanTimer = nullptr;

    PlanningController *m_controller = nullptr;
    ResultsDocks m_docks;
    ResultsMenu m_menu;
};

} // namespace hetplan::gui
