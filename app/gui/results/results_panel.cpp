#include "results/results_panel.h"

#include "core/cost/validator.h"
#include "core/io/catalog_json.h"
#include "core/io/cluster_check.h"
#include "core/serving/plan_serving.h"
#include "model/document.h"
#include "results/breakdown_chart.h"
#include "results/compare_model.h"
#include "results/compare_view.h"
#include "results/convergence_chart.h"
#include "results/memory_chart.h"
#include "results/plan_view.h"
#include "results/planner_settings.h"
#include "results/planning_controller.h"
#include "results/serving_view.h"
#include "results/stale_banner.h"
#include "results/sweep_view.h"
#include "results/timeline_chart.h"
#include "results/whatif_panel.h"

#include <QEvent>
#include <QLabel>
#include <QMainWindow>
#include <QProgressBar>
#include <QPushButton>
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
    , m_docks(window, this)
    , m_menu(this, m_docks, window, menuBefore)
{
    connectViews();
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

void ResultsPanel::connectViews()
{
    connect(m_docks.cancelButton, &QPushButton::clicked, this, &ResultsPanel::cancel);
    connect(m_docks.planView, &PlanView::stageSelected, this, &ResultsPanel::onStageSelected);
    connect(m_docks.problems, &ProblemsView::culpritSelected, this, &ResultsPanel::onCulprit);
    connect(m_docks.compareView, &CompareView::outcomeChosen, this, [this](int index) {
        const auto &outcomes = m_docks.compareModel->outcomes();
        const PlanRequest *request = m_controller->request();
        if (index < int(outcomes.size()) && outcomes[size_t(index)].search && request) {
            const PlanSearch &s = *outcomes[size_t(index)].search;
            showPlan({std::make_shared<const Problem>(request->problem), s.plan, s.evaluation});
            // The status line follows the plan on show, not the run's best.
            m_docks.progressLabel->setText(
                tr("%1 · %2").arg(QString::fromUtf8(plannerName(outcomes[size_t(index)].planner)),
                                  plannedText(request->problem, request->costModel, s)));
        }
    });
    connect(m_docks.whatIf, &WhatIfPanel::showPlanRequested, this, &ResultsPanel::showPlan);
    for (StaleBanner *banner : {m_docks.planBanner, m_docks.chartsBanner}) {
        connect(banner, &StaleBanner::reevaluateRequested, this, &ResultsPanel::reevaluate);
        connect(banner, &StaleBanner::replanRequested, this, &ResultsPanel::plan);
    }
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
    m_menu.showPlanner(planner);
}

void ResultsPanel::setCostModel(CostModelKind costModel)
{
    m_costModel = costModel;
    m_menu.showCostModel(costModel);
}

void ResultsPanel::choosePlanner(std::optional<PlannerKind> planner)
{
    setPlanner(planner);
    Q_EMIT choicesChanged();
}

void ResultsPanel::chooseCostModel(CostModelKind costModel)
{
    setCostModel(costModel);
    Q_EMIT choicesChanged();
}

PlannerKind ResultsPanel::plannerToRun() const
{
    return m_planner.value_or(defaultPlanner(m_workload.mode));
}

Result<Problem> ResultsPanel::currentProblem() const
{
    if (!m_model)
        return badInput("no model chosen: choose the model to plan for");
    auto topology = Topology::build(m_clusterModel->cluster(), builtinGpuCatalog());
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
    start({plannerToRun()});
}

void ResultsPanel::planUnasked()
{
    m_runOrigin = Document::PlanOrigin::Unasked;
    start({plannerToRun()});
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
        m_docks.problems->setIssues(issues);
        m_docks.problemsDock->raise();
        return;
    }
    m_docks.compareModel->clear();
    m_docks.convergence->reset();
    if (planners.size() > 1)
        m_docks.compareDock->raise();
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
    m_menu.setRunning(running, m_model.has_value(), m_shown.has_value());
    m_docks.cancelButton->setVisible(running);
    m_docks.progressBar->setVisible(running);
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
    m_docks.convergence->setTrace(p.plannerIndex, kind, p.trace);
    QString text = tr("%1: iteration %2").arg(name).arg(p.iteration);
    // Not the result yet: the final line (onFinished) is the plan that is then shown.
    if (p.bestEvaluation)
        text += tr(" · best so far %1, MFU %2")
                    .arg(ResultsText::duration(p.bestEvaluation->iterationS),
                         ResultsText::percent(p.bestEvaluation->mfu));
    else
        text += tr(" · nothing fits yet");
    m_docks.progressLabel->setText(text);
    showProgressFraction(*request, p);
}

void ResultsPanel::showProgressFraction(const PlanRequest &request, const PlanningProgress &p) const
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
        m_docks.progressBar->setRange(0, 0);
        return;
    }
    constexpr int kStepsPerPlanner = 1000;
    m_docks.progressBar->setRange(0, planners * kStepsPerPlanner);
    m_docks.progressBar->setValue(p.plannerIndex * kStepsPerPlanner
                                  + int(std::clamp(done, 0.0, 1.0) * kStepsPerPlanner));
}

void ResultsPanel::onPlannerFinished(int index)
{
    const PlannerOutcome &outcome = m_controller->outcomes()[size_t(index)];
    m_docks.compareModel->setOutcome(index, outcome);
    if (outcome.search)
        m_docks.convergence->setTrace(index, outcome.planner, outcome.search->trace);
}

void ResultsPanel::onFinished(bool cancelled)
{
    setRunning(m_controller->isRunning());
    if (std::exchange(m_discardRun, false)) {
        m_docks.progressLabel->clear();
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
        m_docks.progressLabel->setText(cancelled ? tr("Cancelled before any plan was found")
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
    if (problem.workload.mode != Mode::Infer) {
        QString text = (search.stoppedEarly ? tr("Stopped: best plan so far %1, MFU %2")
                                            : tr("Planned: %1 per iteration, MFU %2"))
                           .arg(ResultsText::durationWithInterval(e.iterationS, e.interval),
                                ResultsText::percent(e.mfu));
        if (const QString note = ResultsText::extrapolationNote(e.interval); !note.isEmpty())
            text += QLatin1Char('\n') + note;
        // The GPUs the plan leaves idle and why, as `hetplan-cli plan` reports them
        // (docs/planners.md, "Idle GPUs").
        const std::string idle = describeIdleGpus(search, problem.topology);
        if (!idle.empty())
            text += QLatin1Char('\n') + QString::fromStdString(idle).trimmed();
        return text;
    }
    // An inference plan's iterationS is its slowest replica's request latency.
    const ServingFigures serving
        = e.serving ? *e.serving : servePlan(problem, *makeCostModel(costModel), search.plan);
    QString text = (search.stoppedEarly ? tr("Stopped: best plan so far: slowest replica %1, SLO "
                                             "attainment %2")
                                        : tr("Planned: slowest replica %1, SLO attainment %2"))
                       .arg(ResultsText::durationWithInterval(e.iterationS, e.interval),
                            ResultsText::percent(serving.attainment));
    if (const QString note = ResultsText::extrapolationNote(e.interval); !note.isEmpty())
        text += QLatin1Char('\n') + note;
    return text;
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
    m_docks.problems->setIssues(issues);
    m_docks.problemsDock->raise();
    if (!m_shown)
        m_docks.planView->clear(issues.empty() ? tr("No plan found") : issues.front().message);
}

void ResultsPanel::showPlan(ShownPlan next)
{
    m_shown = std::move(next);
    const ShownPlan &shown = *m_shown;
    m_docks.planView->setPlan(shown);
    m_docks.breakdown->setPlan(shown);
    m_docks.memory->setPlan(shown);
    const bool serving = shown.plan.workload.mode == Mode::Infer;
    if (serving) {
        m_docks.timeline->clear(tr("Inference plans have no 1F1B schedule"));
        m_docks.serving->setPlan(shown, m_costModel);
    } else {
        m_docks.timeline->setPlan(shown);
        m_docks.serving->clear();
    }
    // Each mode shows only the charts that mean something for it.
    m_docks.charts->setTabVisible(m_docks.charts->indexOf(m_docks.serving), serving);
    m_docks.charts->setTabVisible(m_docks.charts->indexOf(m_docks.timeline), !serving);
    auto kind = plannerKindFromName(shown.plan.planner);
    const PlannerKind planner
        = kind ? *kind : m_planner.value_or(defaultPlanner(shown.plan.workload.mode));
    m_docks.whatIf->setBase(shown, m_costModel, planner);
    m_docks.sweep->setBase(shown, m_costModel, planner);
    setRunning(m_controller->isRunning());
    // Its figures in the status line, whoever showed it (a run says more once it ends).
    m_figuresText = figuresText(shown);
    updateFreshness();
    Q_EMIT planShown();
}

bool ResultsPanel::eventFilter(QObject *watched, QEvent *event)
{
    // The window hides once its close is accepted; a close the person takes back (Cancel in
    // "Save them first?") leaves planning running. A minimised window's hide comes from the
    // window system (spontaneous) and keeps it running too. The planners notice within
    // milliseconds, so no background work outlives the window.
    if (watched == m_window && event->type() == QEvent::Hide && !event->spontaneous()) {
        m_controller->cancelAndWait();
        m_docks.whatIf->replanner()->cancelAndWait();
    }
    return QObject::eventFilter(watched, event);
}

} // namespace hetplan::gui
