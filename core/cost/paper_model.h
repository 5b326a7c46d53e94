#pragma once

#include "core/cost/terms_model.h"

namespace hetplan {

// The papers' own cost models, as printed: training by HexiScale Appendix A, inference by
// HexGen Appendix B. Neither paper models the other mode, so `hexiscale-paper` and
// `hexgen-paper` are the same formulas under two names; each is the name its paper's results
// are reproduced under.
class PaperModel : public TermsCostModel
{
public:
    explicit PaperModel(CostModelKind kind);

    // Neither paper restricts TP groups: TP across machines merely costs what the formula says
    // (HexGen keeps TP on one machine by search heuristic, §4.2, not as a cost rule).
    std::string tpGroupProblem(const Problem &, std::span<const int>) const override { return {}; }
};

class HexiScalePaperModel final : public PaperModel
{
public:
    HexiScalePaperModel()
        : PaperModel(CostModelKind::HexiScalePaper)
    {}
};

class HexGenPaperModel final : public PaperModel
{
public:
    HexGenPaperModel()
        : PaperModel(CostModelKind::HexGenPaper)
    {}
};

} // namespace hetplan
