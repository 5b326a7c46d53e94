// CudaShard's optimizer (cuda_shard.h): adam.cpp's Adam or SGD, one kernel per parameter slice.

#include "runtime/cuda/model/cuda_shard.h"
#include "runtime/cuda/model/cuda_shard_state.h"
#include "runtime/cuda/model/kernels.h"

#include <cmath>

namespace hetplan::runtime::cuda {

Status CudaShard::optimizerStep()
{
    const AdamOptions &o = m_setup.adam;
    ++m_steps;
    if (m_setup.optimizer == Optimizer::Sgd) {
        for (DeviceParameter &p : m_params)
            kernels::sgdStep(p.value, p.grad, p.count, o.learningRate, p.valueBf16, m_stream);
        return kernels::lastLaunchError("SGD step");
    }
    // The bias corrections in double, rounded once, exactly as adam.cpp computes them.
    const double correction1 = 1.0 - std::pow(double(o.beta1), m_steps);
    const double correction2 = 1.0 - std::pow(double(o.beta2), m_steps);
    kernels::AdamStep step;
    step.beta1 = o.beta1;
    step.beta2 = o.beta2;
    step.epsilon = o.epsilon;
    step.stepSize = float(double(o.learningRate) / correction1);
    step.invSqrtCorrection2 = float(1.0 / std::sqrt(correction2));
    for (DeviceParameter &p : m_params)
        kernels::adamStep(p.value, p.grad, p.adamM, p.adamV, p.count, step, p.valueBf16, m_stream);
    return kernels::lastLaunchError("Adam step");
}

Status CudaShard::zeroGradients()
{
    CudaShardState &st = *m_state;
    return zeroDevice(st.parameters.as<std::byte>() + st.gradientsBegin,
                      st.gradientsEnd - st.gradientsBegin, m_stream);
}

} // namespace hetplan::runtime::cuda
