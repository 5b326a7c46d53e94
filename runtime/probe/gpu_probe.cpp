// Per-GPU figures: the GPU runtime's own GEMMs at the layer shapes, through its cuBLAS wrapper,
// and device memory bandwidth (docs/probe.md, "GPU hosts").
#include "runtime/probe/gpu_probe.h"

#include "runtime/cuda/model/cublas_gemm.h"
#include "runtime/probe/gpu_check.h"
#include "runtime/probe/gpu_kernels.h"

#include <algorithm>
#include <utility>

namespace hetplan::runtime::probe {
namespace {

constexpr double kGiB = double(1u << 30);
constexpr double kMiB = double(1u << 20);

// A stream and a cuBLAS handle bound to it, as the runtime's shard makes them.
struct BlasOnStream
{
    OwnedStream stream;
    cuda::OwnedBlas handle; // destroyed before its stream

    Status open()
    {
        auto made = makeStream();
        if (!made)
            return made.error();
        stream = std::move(*made);
        auto blas = cuda::makeBlas(stream.get());
        if (!blas)
            return blas.error();
        handle = std::move(blas).value();
        return okStatus();
    }
};

// The shape as the runtime's forward pass multiplies it: its layouts and output type, bf16
// operands, fp32 accumulation, through cuda::gemm (cublasGemmStridedBatchedEx).
Result<GemmFigure> gemmFigure(const BlasOnStream &blas, const GemmShape &s, const TimingPlan &plan,
                              int repetitions)
{
    const std::size_t aCount = std::size_t(s.m) * std::size_t(s.k);
    const std::size_t bCount = std::size_t(s.k) * std::size_t(s.n);
    const std::size_t cBytes
        = std::size_t(s.m) * std::size_t(s.n) * (s.outputBf16 ? sizeof(cuda::Bf16) : sizeof(float));
    DeviceBuffer a;
    DeviceBuffer b;
    DeviceBuffer c;
    for (const auto &[buffer, bytes] : {std::pair{&a, aCount * sizeof(cuda::Bf16)},
                                        {&b, bCount * sizeof(cuda::Bf16)},
                                        {&c, cBytes}})
        if (Status st = buffer->reserve(bytes, s.label); !st)
            return st.error();
    for (const auto &[buffer, count] : {std::pair{&a, aCount}, {&b, bCount}})
        if (Status st = fillDistinctBf16(buffer->as<void>(), count, blas.stream.get()); !st)
            return st.error();
    // Row-major, as the runtime holds them: activations m × k; weights n × k when stored
    // transposed (out × in), else k × n.
    const cuda::GemmIn activations{a.as<const cuda::Bf16>(), s.k};
    const cuda::GemmIn weights{b.as<const cuda::Bf16>(), s.weightsTransposed ? s.k : s.n};
    const cuda::GemmOut out = s.outputBf16 ? cuda::GemmOut::b16(c.as<cuda::Bf16>(), s.n)
                                           : cuda::GemmOut::f32(c.as<float>(), s.n);
    const Transpose transB = s.weightsTransposed ? Transpose::Yes : Transpose::No;
    auto seconds = timeOnStream(blas.stream.get(), plan, repetitions, [&] {
        return cuda::gemm(blas.handle.get(), Transpose::No, transB, s.m, s.n, s.k, 1.0f,
                          activations, weights, 0.0f, out);
    });
    if (!seconds)
        return Error{seconds.error().kind, s.label + ": " + seconds.error().message};
    return GemmFigure{s.label,
                      s.m,
                      s.n,
                      s.k,
                      "bf16",
                      "cublas-gemmex",
                      rateSpread(*seconds, 2.0 * s.m * s.n * s.k / 1e12)};
}

Result<MemoryFigure> memoryFigure(const cudaDeviceProp &props, cudaStream_t stream,
                                  const TimingPlan &plan, int repetitions, bool quick)
{
    // Each array at least 8× the L2 cache, so the triad streams from device memory.
    const std::size_t l2 = std::size_t(props.l2CacheSize > 0 ? props.l2CacheSize : 1 << 22);
    std::size_t bytes = std::max<std::size_t>(std::size_t(quick ? 128 : 256) << 20, 8 * l2);
    bytes -= bytes % (4 * sizeof(float));
    const std::size_t count = bytes / (4 * sizeof(float));
    DeviceBuffer a;
    DeviceBuffer b;
    DeviceBuffer c;
    for (DeviceBuffer *buffer : {&a, &b, &c})
        if (Status st = buffer->reserve(bytes, "the triad"); !st)
            return st.error();
    for (DeviceBuffer *buffer : {&b, &c})
        if (Status st = cuda::cudaCall(cudaMemsetAsync(buffer->as<void>(), 0, bytes, stream),
                                       "cudaMemsetAsync");
            !st)
            return st.error();
    const int blocks = props.multiProcessorCount * 8;
    auto seconds = timeOnStream(stream, plan, repetitions, [&] {
        return launchTriad(a.as<void>(), b.as<void>(), c.as<void>(), count, blocks, stream);
    });
    if (!seconds)
        return seconds.error();
    return MemoryFigure{"cuda-triad", double(bytes) / kMiB,
                        rateSpread(*seconds, 3.0 * double(bytes) / 1e9)};
}

// Every figure of one GPU; the first one warms the GPU up to its sustained clock.
Result<ProbedGpu> probeGpu(int device, const std::vector<GemmShape> &shapes, int repetitions,
                           bool quick)
{
    if (Status s = cuda::cudaCall(cudaSetDevice(device), "cudaSetDevice"); !s)
        return s.error();
    cudaDeviceProp props{};
    if (Status s
        = cuda::cudaCall(cudaGetDeviceProperties(&props, device), "cudaGetDeviceProperties");
        !s)
        return s.error();
    ProbedGpu gpu;
    gpu.index = device;
    gpu.name = props.name;
    gpu.memoryGiB = double(props.totalGlobalMem) / kGiB;
    gpu.smCount = props.multiProcessorCount;
    gpu.catalog = catalogGpuFor(gpu.name, gpu.memoryGiB);
    BlasOnStream blas;
    if (Status s = blas.open(); !s)
        return s.error();
    bool first = true;
    for (const GemmShape &shape : shapes) {
        auto figure = gemmFigure(blas, shape, gpuTiming(quick, first), repetitions);
        if (!figure)
            return figure.error();
        first = false;
        gpu.gemm.push_back(std::move(*figure));
    }
    auto memory
        = memoryFigure(props, blas.stream.get(), gpuTiming(quick, first), repetitions, quick);
    if (!memory)
        return memory.error();
    gpu.memory = std::move(*memory);
    return gpu;
}

} // namespace

Result<std::vector<ProbedGpu>> probeGpus(const std::vector<GemmShape> &shapes, int repetitions,
                                         bool quick)
{
    int count = 0;
    if (Status s = cuda::cudaCall(cudaGetDeviceCount(&count), "cudaGetDeviceCount"); !s)
        return s.error();
    std::vector<ProbedGpu> gpus;
    for (int d = 0; d < count; ++d) {
        auto gpu = probeGpu(d, shapes, repetitions, quick);
        if (!gpu)
            return Error{gpu.error().kind, "GPU " + std::to_string(d) + ": " + gpu.error().message};
        gpus.push_back(std::move(*gpu));
    }
    return gpus;
}

} // namespace hetplan::runtime::probe
