#pragma once

#include "core/cost/cost_model.h"
#include "core/cost/cost_support.h"

namespace hetplan {

// HexGen Appendix B, Table 1 (inference): per stage compute eq. 4 (parameter scan over the
// slowest memory bandwidth m_d plus FLOPs over the slowest peak c_d), TP comm eq. 5, PP comm
// eq. 6 to the next stage, memory eq. 7. b_t is the request batch, s_in the prompt and s_out
// the output length; 12H² parameters per layer, as the paper writes.
const StageTerms &hexGenInferenceTerms();

// `hexgen-paper`. Inference by HexGen Appendix B; training by HexiScale Appendix A (HexGen
// has no training model), the same formulas as `hexiscale-paper`.
class HexGenPaperModel final : public CostModel
{
public:
    CostModelKind kind() const override { return CostModelKind::HexGenPaper; }
    // HexGen keeps TP on one machine by search heuristic (§4.2), not as a cost-model rule.
    std::string tpGroupProblem(const Problem &, std::span<const int>) const override { return {}; }
    Evaluation evaluate(const Problem &problem, const Plan &plan) const override;
    StageEstimate estimateStage(const Problem &problem, const StageQuery &stage) const override;
    double hopS(const Problem &problem, const StageQuery &from,
                const StageQuery &to) const override;
    double objectiveS(const Problem &problem, const Plan &plan) const override;
};

} // namespace hetplan
