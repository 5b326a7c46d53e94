#pragma once

#include "core/cost/cost_model.h"

#include <memory>

namespace hetplan {

class StageTerms;

// A cost model made of one set of terms per mode: every question goes down to the driver
// (core/cost/cost_driver.h) with the terms of the problem's mode. Subclasses only name
// their terms and their rule for TP groups.
class TermsCostModel : public CostModel
{
public:
    TermsCostModel(CostModelKind kind, std::shared_ptr<const StageTerms> training,
                   std::shared_ptr<const StageTerms> inference);

    CostModelKind kind() const override { return m_kind; }
    Evaluation evaluate(const Problem &problem, const Plan &plan) const override;
    StageEstimate estimateStage(const Problem &problem, const StageQuery &stage) const override;
    double hopS(const Problem &problem, const StageQuery &from,
                const StageQuery &to) const override;
    double objectiveS(const Problem &problem, const Plan &plan) const override;

private:
    const StageTerms &termsFor(const Problem &problem) const;

    CostModelKind m_kind;
    std::shared_ptr<const StageTerms> m_training;
    std::shared_ptr<const StageTerms> m_inference;
};

} // namespace hetplan
