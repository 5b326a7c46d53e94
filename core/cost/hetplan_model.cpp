#include "core/cost/hetplan_model.h"

#include <string>

namespace hetplan {

namespace {

const StageTerms &termsFor(const Problem &problem)
{
    return problem.workload.mode == Mode::Train ? hetPlanTrainingTerms() : hetPlanInferenceTerms();
}

} // namespace

std::string HetPlanModel::tpGroupProblem(const Problem &problem, std::span<const int> gpus) const
{
    if (gpus.empty())
        return {};
    const Topology &topology = problem.topology;
    for (int gpu : gpus)
        if (topology.gpu(gpu).machine != topology.gpu(gpus.front()).machine)
            return "GPUs " + topology.gpu(gpus.front()).name + " and " + topology.gpu(gpu).name
                   + " are in different machines; tensor parallelism needs one machine";
    const int tp = int(gpus.size());
    if (tp > 1 && problem.model.heads % tp != 0)
        return "tp = " + std::to_string(tp) + " does not divide "
               + std::to_string(problem.model.heads) + " attention heads";
    if (tp > 1 && problem.model.kvHeads % tp != 0)
        return "tp = " + std::to_string(tp) + " does not divide "
               + std::to_string(problem.model.kvHeads) + " key-value heads";
    return {};
}

Evaluation HetPlanModel::evaluate(const Problem &problem, const Plan &plan) const
{
    Evaluation evaluation;
    if (problem.workload.mode == Mode::Train)
        evaluateTraining(hetPlanTrainingTerms(), problem, plan, &evaluation);
    else
        evaluateInference(hetPlanInferenceTerms(), problem, plan, &evaluation);
    return evaluation;
}

StageEstimate HetPlanModel::estimateStage(const Problem &problem, const StageQuery &stage) const
{
    return estimateStageWith(termsFor(problem), problem, stage);
}

double HetPlanModel::hopS(const Problem &problem, const StageQuery &from,
                          const StageQuery &to) const
{
    return termsFor(problem).hopS(problem, from, to);
}

double HetPlanModel::objectiveS(const Problem &problem, const Plan &plan) const
{
    if (problem.workload.mode == Mode::Train)
        return evaluateTraining(hetPlanTrainingTerms(), problem, plan, nullptr);
    return evaluateInference(hetPlanInferenceTerms(), problem, plan, nullptr);
}

} // namespace hetplan
