#include "runtime/cuda/float_ops.h"

#include <cuda_bf16.h>
#include <cuda_runtime.h>

namespace hetplan::runtime::cuda {
namespace {

constexpr int kThreads = 256;

unsigned blocksFor(std::size_t count)
{
    constexpr std::size_t kMaxBlocks = 65535; // grid-stride loops cover the rest
    const std::size_t blocks = (count + kThreads - 1) / kThreads;
    return unsigned(blocks < kMaxBlocks ? blocks : kMaxBlocks);
}

__global__ void toFloatKernel(const __nv_bfloat16 *in, std::size_t count, float *out)
{
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
         i += std::size_t(gridDim.x) * blockDim.x)
        out[i] = __bfloat162float(in[i]);
}

__global__ void toBf16Kernel(const float *in, std::size_t count, float factor, __nv_bfloat16 *out)
{
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
         i += std::size_t(gridDim.x) * blockDim.x)
        out[i] = __float2bfloat16_rn(in[i] * factor);
}

} // namespace

cudaError_t bf16ToFloat(const std::uint16_t *in, std::size_t count, float *out, CUstream_st *stream)
{
    if (count == 0)
        return cudaSuccess;
    toFloatKernel<<<blocksFor(count), kThreads, 0, stream>>>(
        reinterpret_cast<const __nv_bfloat16 *>(in), count, out);
    return cudaGetLastError();
}

cudaError_t floatToBf16(const float *in, std::size_t count, std::uint16_t *out, CUstream_st *stream,
                        float factor)
{
    if (count == 0)
        return cudaSuccess;
    toBf16Kernel<<<blocksFor(count), kThreads, 0, stream>>>(in, count, factor,
                                                            reinterpret_cast<__nv_bfloat16 *>(out));
    return cudaGetLastError();
}

} // namespace hetplan::runtime::cuda
