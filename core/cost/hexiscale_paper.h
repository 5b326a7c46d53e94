#pragma once

#include "core/cost/cost_model.h"
#include "core/cost/cost_support.h"

namespace hetplan {

// HexiScale Appendix A as DESIGN.md states it (training). The paper assumes activation
// recomputation and bf16/fp16 elements throughout; the workload's recompute, optimizer and
// sharding settings do not enter its formulas. c is the peak tflops of the slowest GPU (the
// paper's c_d), not the achieved rate.
const StageTerms &hexiScaleTrainingTerms();

// `hexiscale-paper`. Training by HexiScale Appendix A; inference by HexGen Appendix B
// (HexiScale has no inference model), the same formulas as `hexgen-paper`.
class HexiScalePaperModel final : public CostModel
{
public:
    CostModelKind kind() const override { return CostModelKind::HexiScalePaper; }
    // The paper places no restriction on TP groups.
    std::string tpGroupProblem(const Problem &, std::span<const int>) const override { return {}; }
    Evaluation evaluate(const Problem &problem, const Plan &plan) const override;
    StageEstimate estimateStage(const Problem &problem, const StageQuery &stage) const override;
    double hopS(const Problem &problem, const StageQuery &from,
                const StageQuery &to) const override;
    double objectiveS(const Problem &problem, const Plan &plan) const override;
};

} // namespace hetplan
