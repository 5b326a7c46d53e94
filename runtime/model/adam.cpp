#include "runtime/model/compute_pace.h"
#include "runtime/model/model_shard.h"

#include <algorithm>
#include <cmath>

namespace hetplan::runtime {

// Adam (Kingma & Ba 2015, Algorithm 1) with bias correction folded into the step size, or plain
// SGD when the workload asks for it; the same arithmetic on every rank, so that equal gradients
// give bit-equal weights.
void ModelShard::optimizerStep()
{
    ComputePace pace;
    const AdamOptions &o = m_setup.adam;
    ++m_steps;
    if (m_setup.optimizer == Optimizer::Sgd) {
        for (Parameter &p : m_params) {
            for (std::size_t i = 0; i < p.value.size(); ++i)
                p.value[i] -= o.learningRate * p.grad[i];
        }
        zeroGradients();
        return;
    }
    const double correction1 = 1.0 - std::pow(double(o.beta1), m_steps);
    const double correction2 = 1.0 - std::pow(double(o.beta2), m_steps);
    const auto stepSize = float(double(o.learningRate) / correction1);
    const auto invSqrtCorrection2 = float(1.0 / std::sqrt(correction2));
    for (Parameter &p : m_params) {
        for (std::size_t i = 0; i < p.value.size(); ++i) {
            const float g = p.grad[i];
            p.adamM[i] = o.beta1 * p.adamM[i] + (1.0f - o.beta1) * g;
            p.adamV[i] = o.beta2 * p.adamV[i] + (1.0f - o.beta2) * g * g;
            const float denominator = std::sqrt(p.adamV[i]) * invSqrtCorrection2 + o.epsilon;
            p.value[i] -= stepSize * p.adamM[i] / denominator;
        }
    }
    zeroGradients();
}

void ModelShard::zeroGradients()
{
    for (Parameter &p : m_params)
        std::fill(p.grad.begin(), p.grad.end(), 0.0f);
}

} // namespace hetplan::runtime
