#pragma once

#include "core/base/result.h"
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

enum class CostModelKind {
    HetPlan,        // "hetplan": the realistic default (docs/cost-models.md)
    HexiScalePaper, // "hexiscale-paper": HexiScale Appendix A as printed
    HexGenPaper,    // "hexgen-paper": HexGen Appendix B (inference; training uses Appendix A)
};

std::string_view costModelName(CostModelKind kind);
Result<CostModelKind> costModelKindFromName(std::string_view name); // error lists valid names
std::vector<CostModelKind> allCostModels();

// A named cost model. Every planner and view uses the same instance for one comparison,
// so results are on equal terms.
class CostModel
{
public:
    virtual ~CostModel() = default;

    virtual CostModelKind kind() const = 0;
    std::string_view name() const { return costModelName(kind()); }

    // Empty when a TP group on these GPUs is allowed, else why not (for the validator).
    // The paper models allow any group; the realistic one wants one machine and tp | heads.
    virtual std::string tpGroupProblem(const Problem &problem, std::span<const int> gpus) const = 0;
    bool allowsTpGroup(const Problem &problem, std::span<const int> gpus) const
    {
        return tpGroupProblem(problem, gpus).empty();
    }

    // Full evaluation: times, breakdown, memory of every used GPU, MFU, cost. Assumes the plan
    // is structurally valid (see validatePlan); memory overflow is reported, not rejected.
    virtual Evaluation evaluate(const Problem &problem, const Plan &plan) const = 0;

    // Planner building blocks: one stage per micro-batch, and the hop between two stages
    // (forward activation plus backward gradient, per micro-batch).
    virtual StageEstimate estimateStage(const Problem &problem, const StageQuery &stage) const = 0;
    virtual double hopS(const Problem &problem, const StageQuery &from,
                        const StageQuery &to) const = 0;

    // What searches minimise: the iteration time (training) or the slowest replica's
    // latency (inference); +infinity when the plan does not fit in memory.
    virtual double objectiveS(const Problem &problem, const Plan &plan) const;
};

std::unique_ptr<CostModel> makeCostModel(CostModelKind kind);

} // namespace hetplan
