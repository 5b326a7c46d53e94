#include "runtime/cuda/cuda_status.h"
#include "runtime/probe/gpu_kernels.h"

#include <cuda_bf16.h>

namespace hetplan::runtime::probe {
namespace {

__global__ void fillBf16(__nv_bfloat16 *data, std::size_t count, float scale)
{
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
         i += std::size_t(gridDim.x) * blockDim.x)
        data[i] = __float2bfloat16(scale * float(int(i % 17) - 8));
}

__global__ void triad(float4 *a, const float4 *b, const float4 *c, std::size_t count, float s)
{
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
         i += std::size_t(gridDim.x) * blockDim.x) {
        const float4 x = b[i];
        const float4 y = c[i];
        a[i] = make_float4(x.x + s * y.x, x.y + s * y.y, x.z + s * y.z, x.w + s * y.w);
    }
}

} // namespace

Status fillDistinctBf16(void *data, std::size_t count, cudaStream_t stream)
{
    fillBf16<<<1024, 256, 0, stream>>>(static_cast<__nv_bfloat16 *>(data), count, 1.0f / 64);
    return cuda::cudaCall(cudaGetLastError(), "filling a GEMM operand");
}

Status launchTriad(void *a, const void *b, const void *c, std::size_t count, int blocks,
                   cudaStream_t stream)
{
    triad<<<blocks, 256, 0, stream>>>(static_cast<float4 *>(a), static_cast<const float4 *>(b),
                                      static_cast<const float4 *>(c), count, 3.0f);
    return cuda::cudaCall(cudaGetLastError(), "the triad kernel");
}

} // namespace hetplan::runtime::probe
