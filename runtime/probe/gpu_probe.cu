// Per-GPU figures: bf16 GEMM throughput through cuBLAS and device memory bandwidth.
#include "runtime/probe/gpu_check.h"
#include "runtime/probe/gpu_probe.h"

#include <cuda_bf16.h>
#include <utility>

namespace hetplan::runtime::probe {
namespace {

constexpr double kGiB = double(1u << 30);
constexpr double kMiB = double(1u << 20);

__global__ void fillBf16(__nv_bfloat16 *data, std::size_t count, float scale)
{
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
         i += std::size_t(gridDim.x) * blockDim.x)
        data[i] = __float2bfloat16(scale * float(int(i % 17) - 8));
}

// a = b + s·c over float4s: 3 × 16 bytes of memory traffic per element.
__global__ void triad(float4 *a, const float4 *b, const float4 *c, std::size_t count, float s)
{
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
         i += std::size_t(gridDim.x) * blockDim.x) {
        const float4 x = b[i];
        const float4 y = c[i];
        a[i] = make_float4(x.x + s * y.x, x.y + s * y.y, x.z + s * y.z, x.w + s * y.w);
    }
}

// Distinct values, not zeros: GPUs draw less power and may clock higher on zero operands.
Status fill(const DeviceBuffer &buffer, std::size_t count)
{
    fillBf16<<<1024, 256>>>(buffer.as<__nv_bfloat16>(), count, 1.0f / 64);
    return cudaCheck(cudaGetLastError(), "filling a GEMM operand");
}

Result<GemmFigure> gemmFigure(cublasHandle_t handle, const GemmShape &s, int repetitions)
{
    DeviceBuffer a, b, c;
    const std::size_t bf16 = sizeof(__nv_bfloat16);
    const std::size_t aCount = std::size_t(s.m) * s.k;
    const std::size_t bCount = std::size_t(s.k) * s.n;
    const std::size_t cCount = std::size_t(s.m) * s.n;
    for (const auto &[buffer, count] : {std::pair{&a, aCount}, {&b, bCount}, {&c, cCount}})
        if (Status st = buffer->reserve(count * bf16, s.label); !st)
            return st.error();
    for (const auto &[buffer, count] : {std::pair{&a, aCount}, {&b, bCount}})
        if (Status st = fill(*buffer, count); !st)
            return st.error();
    const float alpha = 1;
    const float beta = 0;
    // Row-major C = A·B is column-major Cᵀ = Bᵀ·Aᵀ: cuBLAS gets B first, n × m × k.
    auto seconds = timeOnStream(nullptr, repetitions, [&] {
        return cublasCheck(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, s.n, s.m, s.k, &alpha,
                                        b.as<void>(), CUDA_R_16BF, s.n, a.as<void>(), CUDA_R_16BF,
                                        s.k, &beta, c.as<void>(), CUDA_R_16BF, s.n,
                                        CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                           "cublasGemmEx " + s.label);
    });
    if (!seconds)
        return seconds.error();
    return GemmFigure{s.label,
                      s.m,
                      s.n,
                      s.k,
                      "bf16",
                      "cublas-gemmex",
                      rateSpread(*seconds, 2.0 * s.m * s.n * s.k / 1e12)};
}

Result<MemoryFigure> memoryFigure(const cudaDeviceProp &props, int repetitions, bool quick)
{
    // Each array at least 8× the L2 cache, so the triad streams from device memory.
    const std::size_t l2 = std::size_t(props.l2CacheSize > 0 ? props.l2CacheSize : 1 << 22);
    std::size_t bytes = std::max<std::size_t>(std::size_t(quick ? 128 : 256) << 20, 8 * l2);
    bytes -= bytes % sizeof(float4);
    const std::size_t count = bytes / sizeof(float4);
    DeviceBuffer a, b, c;
    for (DeviceBuffer *buffer : {&a, &b, &c})
        if (Status st = buffer->reserve(bytes, "the triad"); !st)
            return st.error();
    for (DeviceBuffer *buffer : {&b, &c})
        if (Status st = cudaCheck(cudaMemset(buffer->as<void>(), 0, bytes), "cudaMemset"); !st)
            return st.error();
    const int blocks = props.multiProcessorCount * 8;
    auto seconds = timeOnStream(nullptr, repetitions, [&] {
        triad<<<blocks, 256>>>(a.as<float4>(), b.as<float4>(), c.as<float4>(), count, 3.0f);
        return cudaCheck(cudaGetLastError(), "the triad kernel");
    });
    if (!seconds)
        return seconds.error();
    return MemoryFigure{"cuda-triad", double(bytes) / kMiB,
                        rateSpread(*seconds, 3.0 * double(bytes) / 1e9)};
}

Result<ProbedGpu> probeGpu(int device, const std::vector<GemmShape> &shapes, int repetitions,
                           bool quick)
{
    const std::string where = "GPU " + std::to_string(device);
    if (Status s = cudaCheck(cudaSetDevice(device), "cudaSetDevice " + where); !s)
        return s.error();
    cudaDeviceProp props{};
    if (Status s = cudaCheck(cudaGetDeviceProperties(&props, device), where); !s)
        return s.error();
    ProbedGpu gpu;
    gpu.index = device;
    gpu.name = props.name;
    gpu.memoryGiB = double(props.totalGlobalMem) / kGiB;
    gpu.smCount = props.multiProcessorCount;
    gpu.catalog = catalogGpuFor(gpu.name, gpu.memoryGiB);
    cublasHandle_t handle = nullptr;
    if (Status s = cublasCheck(cublasCreate(&handle), "cublasCreate on " + where); !s)
        return s.error();
    for (const GemmShape &shape : shapes) {
        auto figure = gemmFigure(handle, shape, repetitions);
        if (!figure) {
            cublasDestroy(handle);
            return Error{figure.error().kind, where + ": " + figure.error().message};
        }
        gpu.gemm.push_back(std::move(*figure));
    }
    cublasDestroy(handle);
    auto memory = memoryFigure(props, repetitions, quick);
    if (!memory)
        return Error{memory.error().kind, where + ": " + memory.error().message};
    gpu.memory = std::move(*memory);
    return gpu;
}

} // namespace

Result<std::vector<ProbedGpu>> probeGpus(const std::vector<GemmShape> &shapes, int repetitions,
                                         bool quick)
{
    int count = 0;
    if (Status s = cudaCheck(cudaGetDeviceCount(&count), "cudaGetDeviceCount"); !s)
        return s.error();
    std::vector<ProbedGpu> gpus;
    for (int d = 0; d < count; ++d) {
        auto gpu = probeGpu(d, shapes, repetitions, quick);
        if (!gpu)
            return gpu.error();
        gpus.push_back(std::move(*gpu));
    }
    return gpus;
}

} // namespace hetplan::runtime::probe
