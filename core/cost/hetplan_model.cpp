#include "core/cost/hetplan_model.h"

#include "core/cost/hetplan_terms.h"

#include <string>

namespace hetplan {

HetPlanModel::HetPlanModel(const HetPlanParameters &parameters)
    : TermsCostModel(CostModelKind::HetPlan, makeHetPlanTrainingTerms(parameters),
                     makeHetPlanInferenceTerms(parameters))
    , m_parameters(parameters)
{}

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

} // namespace hetplan
