#pragma once

#include "core/cost/cost_model.h"
#include "results/results_text.h"
#include "results/shown_plan.h"

#include <QCoreApplication>
#include <QString>
#include <QStringList>

#include <optional>

namespace hetplan::gui {

// What Plan would plan now: the cluster as drawn and the document's choices.
struct PlanInputs
{
    const Cluster *cluster = nullptr; // Not owned.
    std::optional<ModelSpec> model;
    Workload workload;
    CostModelKind costModel = CostModelKind::HetPlan;
};

// How the shown plan's inputs (the cluster, model, workload and cost model it was made for)
// differ from what Plan would use now. Computed by comparison, so an undo back to the plan's
// inputs makes the plan current again.
struct PlanFreshness
{
    Q_DECLARE_TR_FUNCTIONS(hetplan::gui::PlanFreshness)

public:
    bool clusterChanged = false; // for planning: positions, hosts and names do not count
    bool modelChanged = false;
    bool workloadChanged = false;
    bool costModelChanged = false;
    QStringList missingGpus; // GPUs of the plan that the cluster no longer has ("C:1")

    bool outOfDate() const
    {
        return clusterChanged || modelChanged || workloadChanged || costModelChanged;
    }
    // "the cluster and the workload changed since this plan was made".
    QString reasons() const;
    // "C:0, C:1 (machine C)", for the Problems list.
    QString missingGpuText() const;

    static PlanFreshness of(const ShownPlan &shown, const PlanInputs &now);
};

// The cost model a plan was made with, from its provenance; `fallback` when it names none.
CostModelKind planCostModel(const Plan &plan, CostModelKind fallback);

// The shown plan on the cluster as it is now (its GPUs found again by name), evaluated for
// `now`'s model and workload. Fails, saying why in words a person can act on, when the
// plan's GPUs are gone or it does not fit the new workload or model (then only a re-plan
// helps).
Result<ShownPlan> reevaluatePlan(const ShownPlan &shown, Problem now, CostModelKind costModel);

} // namespace hetplan::gui
