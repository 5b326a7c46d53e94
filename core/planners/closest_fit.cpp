#include "core/planners/closest_fit.h"

#include "core/base/text.h"
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

std::string ClosestFit::describe(const Problem &problem) const
{
    constexpr size_t kNamed = 3;
    std::string text = "the closest (" + m_description + ") needs ";
    for (size_t i = 0; i < std::min(kNamed, m_over.size()); ++i) {
        const GpuMemory &m = m_over[i];
        text += (i == 0 ? "" : ", ") + gibText(m.usedGiB) + " GiB on "
                + problem.topology.gpu(m.gpu).name + " (" + problem.topology.gpuType(m.gpu).name
                + ", " + gibText(m.capacityGiB) + " GiB)";
    }
    if (m_over.size() > kNamed)
        text += " and " + std::to_string(m_over.size() - kNamed) + " more GPUs over capacity";
    return text;
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
