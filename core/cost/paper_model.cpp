#include "core/cost/paper_model.h"

#include "core/cost/cost_support.h"
#include "core/cost/hexgen_paper.h"
#include "core/cost/hexiscale_paper.h"

namespace hetplan {
namespace {

const StageTerms &termsFor(const Problem &problem)
{
    return problem.workload.mode == Mode::Train ? hexiScaleTrainingTerms() : hexGenInferenceTerms();
}

} // namespace

Evaluation PaperModel::evaluate(const Problem &problem, const Plan &plan) const
{
    Evaluation evaluation;
    if (problem.workload.mode == Mode::Train)
        evaluateTraining(hexiScaleTrainingTerms(), problem, plan, &evaluation);
    else
        evaluateInference(hexGenInferenceTerms(), problem, plan, &evaluation);
    return evaluation;
}

StageEstimate PaperModel::estimateStage(const Problem &problem, const StageQuery &stage) const
{
    return estimateStageWith(termsFor(problem), problem, stage);
}

double PaperModel::hopS(const Problem &problem, const StageQuery &from, const StageQuery &to) const
{
    return termsFor(problem).hopS(problem, from, to);
}

double PaperModel::objectiveS(const Problem &problem, const Plan &plan) const
{
    if (problem.workload.mode == Mode::Train)
        return evaluateTraining(hexiScaleTrainingTerms(), problem, plan, nullptr);
    return evaluateInference(hexGenInferenceTerms(), problem, plan, nullptr);
}

} // namespace hetplan
