// ResultsPanel: whether the plan on show is still the plan of what is drawn, and what the
// results show when the project is replaced or reopened.
#include "core/cost/validator.h"
#include "core/io/catalog_json.h"
#include "results/breakdown_chart.h"
#include "results/chart_support.h"
#include "results/compare_model.h"
#include "results/convergence_chart.h"
#include "results/memory_chart.h"
#include "results/plan_view.h"
#include "results/planning_controller.h"
#include "results/results_panel.h"
#include "results/serving_view.h"
#include "results/stale_banner.h"
#include "results/sweep_view.h"
#include "results/timeline_chart.h"
#include "results/whatif_panel.h"

#include <QDockWidget>
#include <QLabel>
#include <QTimer>

namespace hetplan::gui {

void ResultsPanel::setReplanAfterEdits(bool replan)
{
    m_replanAfterEdits = replan;
    if (!replan)
        m_replanTimer->stop();
}

void ResultsPanel::clearResults()
{
    // A search still running is for the project that was open; its plan is not shown.
    if (m_controller->isRunning()) {
        m_discardRun = true;
        m_controller->cancel();
    }
    m_replanTimer->stop();
    m_shown.reset();
    m_docks.planView->clear();
    m_docks.breakdown->clear();
    m_docks.memory->clear();
    m_docks.timeline->clear();
    m_docks.serving->clear();
    m_docks.convergence->reset();
    m_docks.whatIf->clear();
    m_docks.sweep->clear();
    m_docks.compareModel->clear();
    m_docks.problems->setIssues({});
    setFiguresText({});
    updateFreshness();
}

void ResultsPanel::showLastPlan(const Project &project)
{
    // The saved plan as it was made: on the cluster, for the model and the workload it was
    // made for, so its figures are the ones saved with it. Whether that is still what is
    // drawn is for updateFreshness() to say.
    if (!project.lastPlan)
        return;
    const Plan &plan = *project.lastPlan;
    auto topology = Topology::build(project.planCluster(), builtinGpuCatalog());
    Result<ModelSpec> model = project.model();
    if (model && model->name != plan.model)
        if (const ModelSpec *madeFor = builtinModelCatalog().find(plan.model))
            model = *madeFor;
    if (!topology || !model)
        return;
    auto problem = std::make_shared<const Problem>(
        Problem{std::move(topology).value(), std::move(model).value(), plan.workload});
    const std::unique_ptr<CostModel> costModel = makeCostModel(planCostModel(plan, m_costModel));
    if (!validatePlan(*problem, plan, costModel.get()).empty())
        return;
    const Evaluation evaluation = costModel->evaluate(*problem, plan);
    m_shownOrigin = Document::PlanOrigin::Unasked;
    showPlan({problem, plan, evaluation});
    m_shownOrigin = Document::PlanOrigin::Person;
}

QString ResultsPanel::figuresText(const ShownPlan &shown) const
{
    PlanSearch search;
    search.plan = shown.plan;
    search.evaluation = shown.evaluation;
    return plannedText(*shown.problem, planCostModel(shown.plan, m_costModel), search);
}

void ResultsPanel::setFiguresText(const QString &text)
{
    m_figuresText = text;
    if (m_controller->isRunning())
        return; // the progress line has the floor until the search ends
    m_docks.progressLabel->setText(
        m_freshness.outOfDate() && !text.isEmpty() ? tr("Out of date: %1").arg(text) : text);
}

std::vector<ResultIssue> ResultsPanel::currentIssues() const
{
    std::vector<ResultIssue> issues = clusterIssues(m_clusterModel->cluster());
    if (!m_freshness.missingGpus.isEmpty())
        issues.push_back({tr("The plan on show uses GPUs the cluster no longer has: %1. Re-plan "
                             "for the cluster as drawn.")
                              .arg(m_freshness.missingGpuText()),
                          ResultIssue::Culprit::None,
                          -1,
                          {}});
    return issues;
}

void ResultsPanel::updateFreshness()
{
    m_freshness = m_shown ? PlanFreshness::of(
                      *m_shown, {&m_clusterModel->cluster(), m_model, m_workload, m_costModel})
                          : PlanFreshness{};
    const bool outOfDate = m_freshness.outOfDate();
    m_docks.planBanner->setFreshness(m_freshness);
    m_docks.chartsBanner->setFreshness(m_freshness);
    m_docks.planDock->setWindowTitle(outOfDate ? tr("Plan (out of date)") : tr("Plan"));
    m_docks.chartsDock->setWindowTitle(outOfDate ? tr("Charts (out of date)") : tr("Charts"));
    for (QCustomPlot *plot :
         {static_cast<QCustomPlot *>(m_docks.breakdown), static_cast<QCustomPlot *>(m_docks.memory),
          static_cast<QCustomPlot *>(m_docks.timeline), m_docks.serving->latencyPlot(),
          m_docks.serving->attainmentPlot(), m_docks.sweep->plot()})
        setChartOutOfDate(plot, outOfDate);
    if (!m_controller->isRunning()) {
        setFiguresText(m_figuresText);
        m_docks.problems->setIssues(currentIssues());
    }
    if (outOfDate && m_replanAfterEdits && !m_controller->isRunning())
        m_replanTimer->start();
}

void ResultsPanel::reevaluate()
{
    if (!m_shown || m_controller->isRunning())
        return;
    auto problem = currentProblem();
    Result<ShownPlan> next = problem
                                 ? reevaluatePlan(*m_shown, std::move(problem).value(), m_costModel)
                                 : Result<ShownPlan>(problem.error());
    if (!next) {
        std::vector<ResultIssue> issues = currentIssues();
        issues.push_back(failureIssue(m_clusterModel->cluster(), next.error()));
        m_docks.problems->setIssues(issues);
        m_docks.problemsDock->raise();
        return;
    }
    showPlan(std::move(next).value());
}

} // namespace hetplan::gui
