// The initial weights on the device (init_kernels.h): one grid-stride pass per parameter slice.

#include "runtime/cuda/model/init_kernels.h"
#include "runtime/cuda/model/kernel_support.cuh"

namespace hetplan::runtime::cuda::kernels {

namespace {

__global__ void initialWeightsKernel(counter_hash::WeightInit init, std::int64_t firstElement,
                                     std::size_t n, float *value, __nv_bfloat16 *valueBf16)
{
    const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
    for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
        const float v = init.at(firstElement + std::int64_t(i));
        value[i] = v;
        valueBf16[i] = __float2bfloat16_rn(v);
    }
}

} // namespace

void initialWeights(const counter_hash::WeightInit &init, std::int64_t firstElement, std::size_t n,
                    float *value, Bf16 *valueBf16, Stream stream)
{
    if (n == 0)
        return;
    initialWeightsKernel<<<gridFor(n), kThreads, 0, stream>>>(init, firstElement, n, value,
                                                              bf(valueBf16));
}

} // namespace hetplan::runtime::cuda::kernels
