#pragma once

#include "core/cost/cost_parameters.h"
#include "core/cost/terms_model.h"

namespace hetplan {

// `hetplan`, the default cost model: the terms of core/cost/hetplan_terms.h under the
// figures of `parameters` (the defaults unless calibrated ones are given).
class HetPlanModel final : public TermsCostModel
{
public:
    explicit HetPlanModel(const HetPlanParameters &parameters = HetPlanParameters{});

    const HetPlanParameters &parameters() const { return m_parameters; }
    // TP stays inside one machine and divides the attention and key-value heads (Megatron
    // splits heads across TP ranks; its all-reduces per layer need NVLink/PCIe bandwidth).
    std::string tpGroupProblem(const Problem &problem, std::span<const int> gpus) const override;

private:
    HetPlanParameters m_parameters;
};

} // namespace hetplan
