#pragma once

#include "core/base/result.h"
#include "core/cost/cost_parameters.h"
#include "core/cost/problem.h"
#include "core/cost/stage_query.h"
#include "core/plan/estimate.h"

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hetplan {

struct Plan;
class StageTerms;

enum class CostModelKind {
    HetPlan,        // "hetplan": the realistic default (docs/cost-models.md)
    HexiScalePaper, // "hexiscale-paper": HexiScale Appendix A as printed
    HexGenPaper,    // "hexgen-paper": HexGen Appendix B (inference; training uses Appendix A)
};

std::string_view costModelName(CostModelKind kind);
Result<CostModelKind> costModelKindFromName(std::string_view name); // error lists valid names
std::vector<CostModelKind> allCostModels();

// A named cost model: one evaluation (1F1B pipelines plus DP sync for training, one batch
// through each serving replica for inference) over the terms its kind chooses per mode
// (docs/cost-models.md, "How the code is layered"). Every planner and view uses the same
// instance for one comparison, so results are on equal terms. Cheap to copy.
class CostModel
{
public:
    // `parameters` are the `hetplan` model's figures; the paper models have none.
    explicit CostModel(CostModelKind kind = CostModelKind::HetPlan,
                       const HetPlanParameters &parameters = HetPlanParameters{});

    CostModelKind kind() const { return m_kind; }
    std::string_view name() const { return costModelName(m_kind); }
    const HetPlanParameters &parameters() const { return m_parameters; }

    // Empty when a TP group on these GPUs is allowed, else why not (for the validator).
    // The paper models allow any group; the realistic one wants one machine and tp | heads.
    std::string tpGroupProblem(const Problem &problem, std::span<const int> gpus) const;
    bool allowsTpGroup(const Problem &problem, std::span<const int> gpus) const
    {
        return tpGroupProblem(problem, gpus).empty();
    }

    // Full evaluation: times, breakdown, memory of every used GPU, MFU, cost. Assumes the plan
    // is structurally valid (see validatePlan); memory overflow is reported, not rejected.
    Evaluation evaluate(const Problem &problem, const Plan &plan) const;

    // Planner building blocks: one stage per micro-batch (timing plus memory of its most
    // loaded GPU; the stage's own dp is taken as the replica count, since planners do not know
    // the rest yet), and the hop between two stages (forward activation plus backward
    // gradient, per micro-batch).
    StageEstimate estimateStage(const Problem &problem, const StageQuery &stage) const;
    double hopS(const Problem &problem, const StageQuery &from, const StageQuery &to) const;

    // What searches minimise: the iteration time (training) or the slowest replica's
    // latency (inference); +infinity when the plan does not fit in memory. The fast path of
    // evaluate(): the same figure without filling an Evaluation.
    double objectiveS(const Problem &problem, const Plan &plan) const;

private:
    const StageTerms &termsFor(const Problem &problem) const;
    // Training: 1F1B closed form per pipeline (HexiScale eq. 9 with the max over all stages),
    // iteration = slowest pipeline + DP sync. Inference: each pipeline is a serving replica;
    // latency = Σ stage (compute + TP) + Σ hops (HexGen §4.2), the objective the slowest
    // replica. With `out`, each fills the whole Evaluation; without, returns the objective.
    double evaluateTraining(const Problem &problem, const Plan &plan, Evaluation *out) const;
    double evaluateInference(const Problem &problem, const Plan &plan, Evaluation *out) const;

    CostModelKind m_kind;
    HetPlanParameters m_parameters;
    std::shared_ptr<const StageTerms> m_training;
    std::shared_ptr<const StageTerms> m_inference;
};

std::unique_ptr<CostModel> makeCostModel(CostModelKind kind);

} // namespace hetplan
