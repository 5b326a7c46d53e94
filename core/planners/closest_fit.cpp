#include "core/planners/closest_fit.h"

#include "core/cost/problem.h"
#include "core/plan/plan.h"

#include <algorithm>

namespace hetplan {

namespace {

double worstRatio(const Evaluation &evaluation)
{
    double ratio = 0;
    for (const GpuMemory &m : evaluation.memory)
        ratio = std::max(ratio, m.usedGiB / m.capacityGiB);
    return ratio;
}

} // namespace

bool ClosestFit::closer(const Evaluation &evaluation) const
{
    return evaluation.valid && !evaluation.fitsInMemory() && worstRatio(evaluation) < m_worstRatio;
}

void ClosestFit::record(const Evaluation &evaluation, std::string description)
{
    m_description = std::move(description);
    m_worstRatio = worstRatio(evaluation);
    m_over.clear();
    for (const GpuMemory &m : evaluation.memory)
        if (!m.fits())
            m_over.push_back(m);
    std::stable_sort(m_over.begin(), m_over.end(), [](const GpuMemory &a, const GpuMemory &b) {
        return a.usedGiB - a.capacityGiB > b.usedGiB - b.capacityGiB;
    });
}

NoFit ClosestFit::noFit(const Problem &problem) const
{
    NoFit fit{m_description, {}};
    for (const GpuMemory &m : m_over) {
        const Topology &topology = problem.topology;
        fit.over.push_back(
            {topology.gpu(m.gpu).name,
             topology.cluster().machines[std::size_t(topology.gpu(m.gpu).machine)].name,
             topology.gpuType(m.gpu).name, m.usedGiB, m.capacityGiB});
    }
    return fit;
}

std::string ClosestFit::describe(const Problem &problem) const
{
    return noFitText(noFit(problem));
}

std::shared_ptr<const NoFit> ClosestFit::attachment(const Problem &problem) const
{
    return empty() ? nullptr : std::make_shared<const NoFit>(noFit(problem));
}

std::string describePlanShape(const Plan &plan)
{
    std::string stages;
    for (const Pipeline &pipeline : plan.pipelines)
        stages += (stages.empty() ? "" : " + ") + std::to_string(pipeline.stages.size());
    const size_t pipelines = plan.pipelines.size();
    return std::to_string(pipelines) + (pipelines == 1 ? " pipeline (" : " pipelines (") + stages
           + " stages), micro-batch "
           + std::to_string(plan.pipelines.empty() ? 0 : plan.pipelines.front().microBatch);
}

} // namespace hetplan
