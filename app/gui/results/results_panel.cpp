#include "results/results_panel.h"

#include "canvas/cluster_scene.h"
#include "core/catalog/catalog.h"
#include "core/cost/validator.h"
#include "core/io/cluster_check.h"
#include "core/serving/plan_serving.h"
#include "model/document.h"
#include "results/breakdown_chart.h"
#include "results/compare_model.h"
#include "results/compare_view.h"
#include "results/convergence_chart.h"
#include "results/exporters.h"
#include "results/memory_chart.h"
#include "results/plan_view.h"
#include "results/planner_settings.h"
#include "results/planner_settings_dialog.h"
#include "results/planning_controller.h"
#include "results/serving_view.h"
#include "results/stale_banner.h"
#include "results/sweep_view.h"
#include "results/timeline_chart.h"
#include "results/whatif_panel.h"

#include <QAction>
#include <QActionGroup>
#include <QDockWidget>
#include <QEvent>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>

#include <algorithm>
#include <utility>

namespace hetplan::gui {

ResultsPanel::ResultsPanel(ClusterModel *clusterModel, QMainWindow *window, QAction *menuBefore)
    : QObject(window)
    , m_clusterModel(clusterModel)
    , m_window(window)
    , m_controller(new PlanningController(this))
{
    buildViews();
    buildMenu(menuBefore);
    connect(m_controller, &PlanningController::progressChanged, this, &ResultsPanel::onProgress);
    connect(m_controller, &PlanningController::plannerFinished, this,
            &ResultsPanel::onPlannerFinished);
    connect(m_controller, &PlanningController::finished, this, &ResultsPanel::onFinished);
    connect(m_clusterModel, &ClusterModel::clusterChanged, this, &ResultsPanel::onClusterChanged);
    m_replanTimer = new QTimer(this);
    m_replanTimer->setSingleShot(true);
    m_replanTimer->setInterval(500); // one re-plan for a burst of edits
    connect(m_replanTimer, &QTimer::timeout, this, [this] {
        if (m_freshness.outOfDate() && !m_controller->isRunning())
            plan();
    });
    m_window->installEventFilter(this);
    setRunning(false);
    onClusterChanged();
}

ResultsPanel::~ResultsPanel()
{
    m_controller->cancelAndWait();
}

QDockWidget *ResultsPanel::addDock(const QString &title, const QString &objectName, QWidget *widget,
                                   Qt::DockWidgetArea area)
{
    auto *dock = new QDockWidget(title, m_window);
    dock->setObjectName(objectName); // saveState()/restoreState() key
    dock->setWidget(widget);
    m_window->addDockWidget(area, dock);
    return dock;
}

void ResultsPanel::buildViews()
{
    m_planView = new PlanView;
    auto *planScroll = new QScrollArea;
    planScroll->setWidget(m_planView);
    planScroll->setWidgetResizable(true);
    planScroll->setBackgroundRole(QPalette::Base);

    m_charts = new QTabWidget;
    m_breakdown = new BreakdownChart;
    m_memory = new MemoryChart;
    m_timeline = new TimelineChart;
    m_convergence = new ConvergenceChart;
    m_serving = new ServingView;
    m_charts->addTab(m_breakdown, tr("Breakdown"));
    m_charts->addTab(m_memory, tr("Memory"));
    m_charts->addTab(m_timeline, tr("Timeline"));
    m_charts->addTab(m_convergence, tr("Convergence"));
    m_charts->addTab(m_serving, tr("Serving"));
    // Beside the other charts, at the dock's full width: in the What if panel it was cut off.
    m_sweep = new SweepView;
    m_charts->addTab(m_sweep, tr("Sweep"));

    m_whatIf = new WhatIfPanel;
    m_compareModel = new CompareModel(this);
    m_compareView = new CompareView(m_compareModel);
    m_problems = new ProblemsView;

    m_planBanner = new StaleBanner;
    m_chartsBanner = new StaleBanner;
    m_planDock = addDock(tr("Plan"), QStringLiteral("results.plan"),
                         StaleBanner::above(m_planBanner, planScroll), Qt::BottomDockWidgetArea);
    m_chartsDock = addDock(tr("Charts"), QStringLiteral("results.charts"),
                           StaleBanner::above(m_chartsBanner, m_charts), Qt::BottomDockWidgetArea);
    QDockWidget *charts = m_chartsDock;
    m_compareDock = addDock(tr("Compare"), QStringLiteral("results.compare"), m_compareView,
                            Qt::BottomDockWidgetArea);
    m_problemsDock = addDock(tr("Problems"), QStringLiteral("results.problems"), m_problems,
                             Qt::BottomDockWidgetArea);
    addDock(tr("What if"), QStringLiteral("results.whatif"), m_whatIf, Qt::RightDockWidgetArea);
    m_window->splitDockWidget(m_planDock, charts, Qt::Horizontal);
    m_window->tabifyDockWidget(m_planDock, m_compareDock);
    m_window->tabifyDockWidget(m_planDock, m_problemsDock);
    m_planDock->raise();

    auto *progress = new QWidget;
    auto *row = new QHBoxLayout(progress);
    row->setContentsMargins(0, 0, 0, 0);
    m_progressLabel = new QLabel;
    m_progressBar = new QProgressBar;
    m_progressBar->setMaximumWidth(160);
    m_progressBar->setTextVisible(false);
    m_cancelButton = new QPushButton(tr("Cancel"));
    row->addWidget(m_progressLabel);
    row->addWidget(m_progressBar);
    row->addWidget(m_cancelButton);
    m_window->statusBar()->addPermanentWidget(progress);

    connect(m_cancelButton, &QPushButton::clicked, this, &ResultsPanel::cancel);
    connect(m_planView, &PlanView::stageSelected, this, &ResultsPanel::onStageSelected);
    connect(m_problems, &ProblemsView::culpritSelected, this, &ResultsPanel::onCulprit);
    connect(m_compareView, &CompareView::outcomeChosen, this, [this](int index) {
        const auto &outcomes = m_compareModel->outcomes();
        const PlanRequest *request = m_controller->request();
        if (index < int(outcomes.size()) && outcomes[size_t(index)].search && request) {
            const PlanSearch &s = *outcomes[size_t(index)].search;
            showPlan({std::make_shared<const Problem>(request->problem), s.plan, s.evaluation});
            // The status line follows the plan on show, not the run's best.
            m_progressLabel->setText(
                tr("%1 · %2").arg(QString::fromUtf8(plannerName(outcomes[size_t(index)].planner)),
                                  plannedText(request->problem, request->costModel, s)));
        }
    });
    connect(m_whatIf, &WhatIfPanel::showPlanRequested, this, &ResultsPanel::showPlan);
    for (StaleBanner *banner : {m_planBanner, m_chartsBanner}) {
        connect(banner, &StaleBanner::reevaluateRequested, this, &ResultsPanel::reevaluate);
        connect(banner, &StaleBanner::replanRequested, this, &ResultsPanel::plan);
    }
}

void ResultsPanel::buildMenu(QAction *menuBefore)
{
    m_menu = new QMenu(tr("&Plan"), m_window);
    if (menuBefore)
        m_window->menuBar()->insertMenu(menuBefore, m_menu);
    else
        m_window->menuBar()->addMenu(m_menu);
    m_planAction = m_menu->addAction(tr("&Plan"), this, &ResultsPanel::plan);
    m_planAction->setShortcut(Qt::Key_F5);
    m_planAction->setStatusTip(tr("Search for the best plan with the chosen planner"));
    m_compareAction
        = m_menu->addAction(tr("&Compare all planners"), this, &ResultsPanel::compareAll);
    m_compareAction->setShortcut(Qt::CTRL | Qt::Key_F5);
    m_cancelAction = m_menu->addAction(tr("C&ancel"), this, &ResultsPanel::cancel);
    m_cancelAction->setShortcut(Qt::SHIFT | Qt::Key_F5);
    m_menu->addSeparator();

    QMenu *planners = m_menu->addMenu(tr("P&lanner"));
    m_plannerGroup = new QActionGroup(this);
    QAction *automatic = planners->addAction(tr("Default for the workload"));
    automatic->setCheckable(true);
    automatic->setChecked(true);
    m_plannerGroup->addAction(automatic);
    connect(automatic, &QAction::triggered, this, [this] {
        setPlanner(std::nullopt);
        Q_EMIT choicesChanged();
    });
    planners->addSeparator();
    for (PlannerKind kind : {PlannerKind::HexiScale, PlannerKind::Metis, PlannerKind::Holmes,
                             PlannerKind::HexGen, PlannerKind::Megatron, PlannerKind::Exhaustive}) {
        QAction *action = planners->addAction(QString::fromUtf8(plannerName(kind)));
        action->setCheckable(true);
        action->setData(int(kind));
        m_plannerGroup->addAction(action);
        connect(action, &QAction::triggered, this, [this, kind] {
            setPlanner(kind);
            Q_EMIT choicesChanged();
        });
    }

    QMenu *costModels = m_menu->addMenu(tr("C&ost model"));
    m_costModelGroup = new QActionGroup(this);
    for (CostModelKind kind : allCostModels()) {
        QAction *action = costModels->addAction(QString::fromUtf8(costModelName(kind)));
        action->setCheckable(true);
        action->setChecked(kind == m_costModel);
        action->setData(int(kind));
        m_costModelGroup->addAction(action);
        connect(action, &QAction::triggered, this, [this, kind] {
            setCostModel(kind);
            Q_EMIT choicesChanged();
        });
    }
    m_settingsAction = m_menu->addAction(tr("Planner &Settings…"), this, [this] {
        PlannerSettingsDialog(m_planner.value_or(defaultPlanner(m_workload.mode)), m_window).exec();
    });
    m_settingsAction->setObjectName(QStringLiteral("plannerSettingsAction"));
    m_menu->addSeparator();
    m_exportActions
        << m_menu->addAction(tr("Export plan &file…"), this, &ResultsPanel::exportPlan)
        << m_menu->addAction(tr("Export plan &view as image…"), this, [this] { exportImage(true); })
        << m_menu->addAction(tr("Export &chart as image…"), this, [this] { exportImage(false); })
        << m_menu->addAction(tr("Export &breakdown as CSV…"), this, &ResultsPanel::exportCsv);
}

void ResultsPanel::followDocument(Document *document)
{
    const auto takeSettings = [this, document] {
        const Project project = document->project();
        if (auto model = project.model())
            setModel(*model);
        setWorkload(project.workload);
        // A planner for the other mode (training vs inference) falls back to the default.
        const std::vector<PlannerKind> fitting = plannersFor(project.workload.mode);
        const bool fits
            = std::find(fitting.begin(), fitting.end(), project.planner) != fitting.end();
        setPlanner(fits ? std::optional(project.planner) : std::nullopt);
        setCostModel(project.costModel);
        updateFreshness();
    };
    takeSettings();
    showLastPlan(document->project());
    connect(document, &Document::settingsChanged, this, takeSettings);
    connect(document, &Document::projectReplaced, this, [this, document] {
        clearResults();
        showLastPlan(document->project());
    });
    connect(this, &ResultsPanel::choicesChanged, document, [this, document] {
        if (m_planner)
            document->setPlanner(*m_planner);
        document->setCostModel(m_costModel);
    });
    connect(this, &ResultsPanel::planShown, document, [this, document] {
        if (m_shown)
            document->setLastPlan(m_shown->plan, m_shown->problem->topology.cluster(),
                                  m_shownOrigin);
    });
}

void ResultsPanel::connectScene(ClusterScene *scene)
{
    connect(this, &ResultsPanel::gpusSelected, scene, [scene](const QStringList &gpuNames) {
        std::vector<std::string> names;
        for (const QString &name : gpuNames)
            names.push_back(name.toStdString());
        scene->setHighlightedGpus(names);
    });
    connect(scene, &ClusterScene::selectionChangedIds, this, &ResultsPanel::highlightMachines);
    connect(this, &ResultsPanel::culpritSelected, scene, [scene](const QString &, ItemId id) {
        if (id != 0)
            scene->setSelectedIds({id});
    });
}

void ResultsPanel::highlightMachines(const std::vector<ItemId> &ids)
{
    QStringList gpus;
    for (ItemId id : ids)
        if (const Machine *machine = m_clusterModel->machine(id))
            for (int i = 0; i < machine->count; ++i)
                gpus << QStringLiteral("%1:%2").arg(QString::fromStdString(machine->name)).arg(i);
    m_planView->highlightGpus(gpus);
}

void ResultsPanel::setModel(const ModelSpec &model)
{
    m_model = model;
    setRunning(m_controller->isRunning());
}

void ResultsPanel::setWorkload(const Workload &workload)
{
    m_workload = workload;
}

void ResultsPanel::setPlanner(std::optional<PlannerKind> planner)
{
    m_planner = planner;
    for (QAction *action : m_plannerGroup->actions())
        action->setChecked(planner ? action->data() == QVariant(int(*planner))
                                   : !action->data().isValid());
}

void ResultsPanel::setCostModel(CostModelKind costModel)
{
    m_costModel = costModel;
    for (QAction *action : m_costModelGroup->actions())
        action->setChecked(action->data() == QVariant(int(costModel)));
}

Result<Problem> ResultsPanel::currentProblem() const
{
    if (!m_model)
        return badInput("no model chosen: choose the model to plan for");
    auto topology = Topology::build(m_clusterModel->cluster(), GpuCatalog::builtin());
    if (!topology)
        return topology.error();
    // Said once here rather than once per planner of "compare all".
    if (Status gpus = checkHasGpus(*topology); !gpus)
        return gpus.error();
    return Problem{std::move(topology).value(), *m_model, m_workload};
}

void ResultsPanel::plan()
{
    m_runOrigin = Document::PlanOrigin::Person;
    start({m_planner.value_or(defaultPlanner(m_workload.mode))});
}

void ResultsPanel::planUnasked()
{
    m_runOrigin = Document::PlanOrigin::Unasked;
    start({m_planner.value_or(defaultPlanner(m_workload.mode))});
}

void ResultsPanel::compareAll()
{
    m_runOrigin = Document::PlanOrigin::Person;
    start(plannersFor(m_workload.mode));
}

void ResultsPanel::start(std::vector<PlannerKind> planners)
{
    auto problem = currentProblem();
    if (!problem) {
        const Cluster &cluster = m_clusterModel->cluster();
        std::vector<ResultIssue> issues = clusterIssues(cluster);
        if (issues.empty())
            issues.push_back(failureIssue(cluster, problem.error()));
        m_problems->setIssues(issues);
        m_problemsDock->raise();
        return;
    }
    m_compareModel->clear();
    m_convergence->reset();
    if (planners.size() > 1)
        m_compareDock->raise();
    PlanRequest request;
    request.problem = std::move(problem).value();
    request.costModel = m_costModel;
    const PlannerSettings settings = PlannerSettings::load();
    for (PlannerKind kind : planners)
        request.plannerOptions[kind] = settings.options(kind);
    request.options = request.plannerOptions[planners.front()];
    request.planners = std::move(planners);
    m_controller->start(std::move(request));
    m_replanTimer->stop();
    setRunning(true);
}

void ResultsPanel::cancel()
{
    m_controller->cancel();
}

void ResultsPanel::setRunning(bool running)
{
    m_planAction->setEnabled(!running && m_model);
    m_compareAction->setEnabled(!running && m_model);
    m_cancelAction->setEnabled(running);
    m_cancelButton->setVisible(running);
    m_progressBar->setVisible(running);
    if (!m_model)
        m_planAction->setToolTip(tr("Choose a model first"));
    for (QAction *action : m_exportActions)
        action->setEnabled(m_shown.has_value());
}

void ResultsPanel::onClusterChanged()
{
    // Each run builds its own snapshot, and the plan on show keeps the cluster it was planned
    // on; what changes is whether that is still the cluster as drawn.
    updateFreshness();
}

void ResultsPanel::onProgress()
{
    const PlanRequest *request = m_controller->request();
    const PlanningProgress p = m_controller->progress();
    if (!request || p.plannerIndex < 0 || m_discardRun)
        return;
    const PlannerKind kind = request->planners[size_t(p.plannerIndex)];
    const QString name = QString::fromUtf8(plannerName(kind));
    m_convergence->setTrace(p.plannerIndex, kind, p.trace);
    QString text = tr("%1: iteration %2").arg(name).arg(p.iteration);
    // Not the result yet: the final line (onFinished) is the plan that is then shown.
    if (p.bestEvaluation)
        text += tr(" · best so far %1, MFU %2")
                    .arg(ResultsText::duration(p.bestEvaluation->iterationS),
                         ResultsText::percent(p.bestEvaluation->mfu));
    else
        text += tr(" · nothing fits yet");
    m_progressLabel->setText(text);
    showProgressFraction(*request, p);
}

void ResultsPanel::showProgressFraction(const PlanRequest &request, const PlanningProgress &p)
{
    // A bound known in advance (a time limit, an iteration count) fills the bar; without one
    // it only moves from planner to planner, so a single planner gets a busy indicator.
    const PlannerOptions &options = request.optionsFor(request.planners[size_t(p.plannerIndex)]);
    double done = -1;
    if (options.timeLimitS > 0)
        done = p.elapsedS / options.timeLimitS;
    if (options.maxIterations > 0)
        done = std::max(done, double(p.iteration) / options.maxIterations);
    const int planners = int(request.planners.size());
    if (done < 0 && planners == 1) {
        m_progressBar->setRange(0, 0);
        return;
    }
    constexpr int kStepsPerPlanner = 1000;
    m_progressBar->setRange(0, planners * kStepsPerPlanner);
    m_progressBar->setValue(p.plannerIndex * kStepsPerPlanner
                            + int(std::clamp(done, 0.0, 1.0) * kStepsPerPlanner));
}

void ResultsPanel::onPlannerFinished(int index)
{
    const PlannerOutcome &outcome = m_controller->outcomes()[size_t(index)];
    m_compareModel->setOutcome(index, outcome);
    if (outcome.search)
        m_convergence->setTrace(index, outcome.planner, outcome.search->trace);
}

void ResultsPanel::onFinished(bool cancelled)
{
    setRunning(m_controller->isRunning());
    if (std::exchange(m_discardRun, false)) {
        m_progressLabel->clear();
        return;
    }
    const PlanRequest *request = m_controller->request();
    const PlannerOutcome *best = nullptr;
    for (const PlannerOutcome &outcome : m_controller->outcomes())
        if (outcome.search
            && (!best
                || outcome.search->evaluation.iterationS < best->search->evaluation.iterationS))
            best = &outcome;
    if (!best || !request) {
        m_progressLabel->setText(cancelled ? tr("Cancelled before any plan was found")
                                           : tr("No plan found"));
        showFailures();
        return;
    }
    const PlanSearch &s = *best->search;
    m_shownOrigin = m_runOrigin;
    showPlan({std::make_shared<const Problem>(request->problem), s.plan, s.evaluation});
    m_shownOrigin = Document::PlanOrigin::Person;
    setFiguresText(plannedText(request->problem, request->costModel, s));
}

QString ResultsPanel::plannedText(const Problem &problem, CostModelKind costModel,
                                  const PlanSearch &search)
{
    const Evaluation &e = search.evaluation;
    if (problem.workload.mode != Mode::Infer)
        return (search.stoppedEarly ? tr("Stopped: best plan so far %1, MFU %2")
                                    : tr("Planned: %1 per iteration, MFU %2"))
            .arg(ResultsText::duration(e.iterationS), ResultsText::percent(e.mfu));
    // An inference plan's iterationS is its slowest replica's request latency.
    const ServingFigures serving
        = e.serving ? *e.serving : servePlan(problem, *makeCostModel(costModel), search.plan);
    return (search.stoppedEarly ? tr("Stopped: best plan so far: slowest replica %1, SLO "
                                     "attainment %2")
                                : tr("Planned: slowest replica %1, SLO attainment %2"))
        .arg(ResultsText::duration(e.iterationS), ResultsText::percent(serving.attainment));
}

void ResultsPanel::showFailures()
{
    const PlanRequest *request = m_controller->request();
    std::vector<ResultIssue> issues;
    for (const PlannerOutcome &outcome : m_controller->outcomes())
        if (outcome.error)
            issues.push_back(failureIssue(request->problem.topology.cluster(), *outcome.error,
                                          QString::fromUtf8(plannerName(outcome.planner))
                                              + QStringLiteral(": ")
                                              + CompareModel::failureText(*outcome.error)));
    m_problems->setIssues(issues);
    m_problemsDock->raise();
    if (!m_shown)
        m_planView->clear(issues.empty() ? tr("No plan found") : issues.front().message);
}

void ResultsPanel::showPlan(ShownPlan next)
{
    m_shown = std::move(next);
    const ShownPlan &shown = *m_shown;
    m_planView->setPlan(shown);
    m_breakdown->setPlan(shown);
    m_memory->setPlan(shown);
    const bool serving = shown.plan.workload.mode == Mode::Infer;
    if (serving) {
        m_timeline->clear(tr("Inference plans have no 1F1B schedule"));
        m_serving->setPlan(shown, m_costModel);
    } else {
        m_timeline->setPlan(shown);
        m_serving->clear();
    }
    // Each mode shows only the charts that mean something for it.
    m_charts->setTabVisible(m_charts->indexOf(m_serving), serving);
    m_charts->setTabVisible(m_charts->indexOf(m_timeline), !serving);
    auto kind = plannerKindFromName(shown.plan.planner);
    const PlannerKind planner
        = kind ? *kind : m_planner.value_or(defaultPlanner(shown.plan.workload.mode));
    m_whatIf->setBase(shown, m_costModel, planner);
    m_sweep->setBase(shown, m_costModel, planner);
    setRunning(m_controller->isRunning());
    // Its figures in the status line, whoever showed it (a run says more once it ends).
    m_figuresText = figuresText(shown);
    updateFreshness();
    Q_EMIT planShown();
}

void ResultsPanel::onStageSelected(const QStringList &gpuNames)
{
    QList<ItemId> machines;
    for (const QString &gpu : gpuNames) {
        const ItemId id
            = m_clusterModel->nodeByName(gpu.section(QLatin1Char(':'), 0, 0).toStdString());
        if (id != 0 && !machines.contains(id))
            machines << id;
    }
    Q_EMIT gpusSelected(gpuNames, machines);
}

void ResultsPanel::highlightGpus(const QStringList &gpuNames)
{
    m_planView->highlightGpus(gpuNames);
}

void ResultsPanel::onCulprit(const ResultIssue &issue)
{
    ItemId id = 0;
    switch (issue.culprit) {
    case ResultIssue::Culprit::Machine:
    case ResultIssue::Culprit::Switch:
        id = m_clusterModel->nodeByName(issue.culpritName.toStdString());
        break;
    case ResultIssue::Culprit::Link: {
        const std::vector<ItemId> links = m_clusterModel->linkIds();
        if (issue.index >= 0 && issue.index < int(links.size()))
            id = links[size_t(issue.index)];
        break;
    }
    case ResultIssue::Culprit::None:
        return;
    }
    Q_EMIT culpritSelected(issue.culpritName, id);
}

void ResultsPanel::exportPlan()
{
    if (!m_shown)
        return;
    const QString path = QFileDialog::getSaveFileName(m_window, tr("Export plan"), QString(),
                                                      tr("Plan files (*.plan.json *.json)"));
    if (path.isEmpty())
        return;
    if (const Status written = exportPlanFile(path, *m_shown); !written)
        QMessageBox::warning(m_window, tr("Export plan"),
                             QString::fromStdString(written.error().message));
}

void ResultsPanel::exportImage(bool planView)
{
    if (!m_shown)
        return;
    const QString path = QFileDialog::getSaveFileName(
        m_window, planView ? tr("Export plan view") : tr("Export chart"), QString(),
        tr("PNG image (*.png);;SVG drawing (*.svg);;PDF (*.pdf)"));
    if (path.isEmpty())
        return;
    QCustomPlot *plot = qobject_cast<QCustomPlot *>(m_charts->currentWidget());
    if (m_charts->currentWidget() == m_serving)
        plot = m_serving->latencyPlot();
    else if (m_charts->currentWidget() == m_sweep)
        plot = m_sweep->plot();
    const Status written
        = planView || !plot ? exportPlanView(path, m_planView) : exportChart(path, plot);
    if (!written)
        QMessageBox::warning(m_window, tr("Export image"),
                             QString::fromStdString(written.error().message));
}

void ResultsPanel::exportCsv()
{
    if (!m_shown)
        return;
    const QString path = QFileDialog::getSaveFileName(m_window, tr("Export breakdown"), QString(),
                                                      tr("CSV (*.csv)"));
    if (path.isEmpty())
        return;
    if (const Status written = exportBreakdownCsv(path, *m_shown); !written)
        QMessageBox::warning(m_window, tr("Export breakdown"),
                             QString::fromStdString(written.error().message));
}

bool ResultsPanel::eventFilter(QObject *watched, QEvent *event)
{
    // The window hides once its close is accepted; a close the person takes back (Cancel in
    // "Save them first?") leaves planning running. A minimised window's hide comes from the
    // window system (spontaneous) and keeps it running too. The planners notice within
    // milliseconds, so no background work outlives the window.
    if (watched == m_window && event->type() == QEvent::Hide && !event->spontaneous()) {
        m_controller->cancelAndWait();
        m_whatIf->replanner()->cancelAndWait();
    }
    return QObject::eventFilter(watched, event);
}

} // namespace hetplan::gui
