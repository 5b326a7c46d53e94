#include "results/plan_freshness.h"

#include "core/cost/validator.h"
#include "core/io/catalog_json.h"
#include "core/io/project_json.h"

#include <memory>

namespace hetplan::gui {

namespace {

// Every GPU name of the plan, in plan order, once.
QStringList planGpuNames(const ShownPlan &shown)
{
    QStringList names;
    for (const Pipeline &pipeline : shown.plan.pipelines)
        for (const Stage &stage : pipeline.stages)
            for (const QString &name : ResultsText::gpuNames(shown.problem->topology, stage.gpus))
                if (!names.contains(name))
                    names << name;
    return names;
}

} // namespace

QString PlanFreshness::reasons() const
{
    QStringList what;
    if (clusterChanged)
        what << tr("the cluster");
    if (modelChanged)
        what << tr("the model");
    if (workloadChanged)
        what << tr("the workload");
    if (costModelChanged)
        what << tr("the cost model");
    if (what.isEmpty())
        return {};
    const QString last = what.takeLast();
    const QString list = what.isEmpty() ? last : tr("%1 and %2").arg(what.join(tr(", ")), last);
    return tr("%1 changed since this plan was made").arg(list);
}

QString PlanFreshness::missingGpuText() const
{
    QStringList machines;
    for (const QString &gpu : missingGpus)
        if (const QString machine = gpu.section(QLatin1Char(':'), 0, 0);
            !machines.contains(machine))
            machines << machine;
    return tr("%1 (machine(s) %2)").arg(missingGpus.join(tr(", ")), machines.join(tr(", ")));
}

PlanFreshness PlanFreshness::of(const ShownPlan &shown, const PlanInputs &now)
{
    PlanFreshness f;
    const Cluster &madeFor = shown.problem->topology.cluster();
    f.clusterChanged = !samePlanningCluster(madeFor, *now.cluster);
    f.modelChanged = !now.model || !(*now.model == shown.problem->model);
    f.workloadChanged = !(now.workload == shown.problem->workload);
    f.costModelChanged = planCostModel(shown.plan, now.costModel) != now.costModel;
    if (f.clusterChanged) {
        auto topology = Topology::build(*now.cluster, builtinGpuCatalog());
        for (const QString &name : planGpuNames(shown))
            if (!topology || !topology->findGpu(name.toStdString()))
                f.missingGpus << name;
    }
    return f;
}

CostModelKind planCostModel(const Plan &plan, CostModelKind fallback)
{
    const auto kind = costModelKindFromName(plan.costModel);
    return kind ? *kind : fallback;
}

Result<ShownPlan> reevaluatePlan(const ShownPlan &shown, Problem now, CostModelKind costModel)
{
    const Topology &from = shown.problem->topology;
    Plan plan = shown.plan;
    QStringList missing;
    for (Pipeline &pipeline : plan.pipelines)
        for (Stage &stage : pipeline.stages)
            for (int &gpu : stage.gpus) {
                const std::optional<int> found = now.topology.findGpu(from.gpu(gpu).name);
                if (found)
                    gpu = *found;
                else if (const QString name = QString::fromStdString(from.gpu(gpu).name);
                         !missing.contains(name))
                    missing << name;
            }
    if (!missing.isEmpty())
        return badInput(
            PlanFreshness::tr("the plan uses GPUs the cluster no longer has (%1); re-plan")
                .arg(missing.join(PlanFreshness::tr(", ")))
                .toStdString());
    const std::unique_ptr<CostModel> model = makeCostModel(costModel);
    plan.workload = now.workload;
    plan.model = now.model.name;
    plan.cluster = now.topology.cluster().name;
    plan.costModel = std::string(model->name());
    if (const std::vector<PlanIssue> issues = validatePlan(now, plan, model.get()); !issues.empty())
        return badInput(PlanFreshness::tr("the plan does not fit what is planned now (%1); re-plan")
                            .arg(QString::fromStdString(issues.front().message))
                            .toStdString());
    Evaluation evaluation = model->evaluate(now, plan);
    plan.estimate = evaluation;
    return ShownPlan{std::make_shared<const Problem>(std::move(now)), std::move(plan),
                     std::move(evaluation)};
}

} // namespace hetplan::gui
