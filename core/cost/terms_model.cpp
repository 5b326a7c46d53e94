#include "core/cost/terms_model.h"

#include "core/cost/cost_driver.h"
#include "core/cost/stage_terms.h"

#include <utility>

namespace hetplan {

TermsCostModel::TermsCostModel(CostModelKind kind, std::shared_ptr<const StageTerms> training,
                               std::shared_ptr<const StageTerms> inference)
    : m_kind(kind)
    , m_training(std::move(training))
    , m_inference(std::move(inference))
{}

const StageTerms &TermsCostModel::termsFor(const Problem &problem) const
{
    return problem.workload.mode == Mode::Train ? *m_training : *m_inference;
}

Evaluation TermsCostModel::evaluate(const Problem &problem, const Plan &plan) const
{
    Evaluation evaluation;
    if (problem.workload.mode == Mode::Train)
        evaluateTraining(*m_training, problem, plan, &evaluation);
    else
        evaluateInference(*m_inference, problem, plan, &evaluation);
    return evaluation;
}

StageEstimate TermsCostModel::estimateStage(const Problem &problem, const StageQuery &stage) const
{
    return estimateStageWith(termsFor(problem), problem, stage);
}

double TermsCostModel::hopS(const Problem &problem, const StageQuery &from,
                            const StageQuery &to) const
{
    return termsFor(problem).hopS(problem, from, to);
}

double TermsCostModel::objectiveS(const Problem &problem, const Plan &plan) const
{
    if (problem.workload.mode == Mode::Train)
        return evaluateTraining(*m_training, problem, plan, nullptr);
    return evaluateInference(*m_inference, problem, plan, nullptr);
}

} // namespace hetplan
