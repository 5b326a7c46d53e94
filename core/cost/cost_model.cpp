#include "core/cost/cost_model.h"

#include "core/cost/hetplan_model.h"
#include "core/cost/hexgen_paper.h"
#include "core/cost/hexiscale_paper.h"
#include "core/cost/paper_model.h"
#include "core/plan/plan.h"

#include <algorithm>
#include <cctype>
#include <limits>

namespace hetplan {

std::string_view costModelName(CostModelKind kind)
{
    switch (kind) {
    case CostModelKind::HetPlan:
        return "hetplan";
    case CostModelKind::HexiScalePaper:
        return "hexiscale-paper";
    case CostModelKind::HexGenPaper:
        return "hexgen-paper";
    }
    return "unknown";
}

std::vector<CostModelKind> allCostModels()
{
    return {CostModelKind::HetPlan, CostModelKind::HexiScalePaper, CostModelKind::HexGenPaper};
}

Result<CostModelKind> costModelKindFromName(std::string_view name)
{
    std::string lower(name);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    std::string valid;
    for (CostModelKind kind : allCostModels()) {
        if (lower == costModelName(kind))
            return kind;
        valid += (valid.empty() ? "" : ", ") + std::string(costModelName(kind));
    }
    return badInput("unknown cost model '" + std::string(name) + "'; valid: " + valid);
}

double CostModel::objectiveS(const Problem &problem, const Plan &plan) const
{
    return evaluate(problem, plan).objectiveS();
}

std::unique_ptr<CostModel> makeCostModel(CostModelKind kind)
{
    switch (kind) {
    case CostModelKind::HetPlan:
        return std::make_unique<HetPlanModel>();
    case CostModelKind::HexiScalePaper:
        return std::make_unique<HexiScalePaperModel>();
    case CostModelKind::HexGenPaper:
        return std::make_unique<HexGenPaperModel>();
    }
    return nullptr;
}

} // namespace hetplan
