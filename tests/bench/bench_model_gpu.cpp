// The runtime's model on one GPU (CudaShard: bf16 cuBLAS GEMMs, fp32 accumulation): one forward +
// backward of one transformer layer at full size, beside the GPU's catalog peak. Prints why it
// measured nothing where no GPU is usable.
#include "core/io/catalog_json.h"
#include "runtime/cuda/device.h"
#include "runtime/cuda/device_buffer.h"
#include "runtime/cuda/model/cuda_shard.h"
#include "tests/bench/bench_util.h"

#include <cstdio>
#include <cstdlib>
#include <cuda_runtime_api.h>

namespace hetplan::bench {
namespace {

using namespace hetplan::runtime;
using namespace hetplan::runtime::cuda;

template<typename T>
T orExit(Result<T> result)
{
    if (!result) {
        std::fprintf(stderr, "GPU model bench: %s\n", result.error().message.c_str());
        std::exit(1);
    }
    return std::move(result).value();
}

// Training FLOPs of one layer for `samples` sequences: 6 per parameter and token (forward once,
// backward twice) plus the attention's score and value products (4·seq·hidden per token forward,
// counted whole although the causal half is masked), recomputed scores not counted.
double layerTrainingFlops(const ModelConfig &c, int samples)
{
    const double h = c.hidden;
    const double mlpMatrices = c.mlp == MlpKind::SwiGlu ? 3 : 2;
    const double params = h * (2 * h + 2 * double(c.kvDim())) + mlpMatrices * h * c.ffnHidden;
    const double tokens = double(c.tokens(samples));
    return 6 * tokens * params + 3 * 4 * tokens * c.seqLen * h;
}

void benchGpuLayer(const char *model, int seqLen, int samples)
{
    const ModelSpec *spec = builtinModelCatalog().find(model);
    const ModelConfig c = orExit(scaledModelConfig(*spec, seqLen, 1));
    cudaStream_t stream = nullptr;
    if (cudaStreamCreate(&stream) != cudaSuccess) {
        std::fprintf(stderr, "GPU model bench: cudaStreamCreate failed\n");
        std::exit(1);
    }
    {
        TrainingSetup setup;
        setup.globalBatch = samples;
        CudaShard layer = orExit(CudaShard::create(c, {0, 1, 0, 1, false, false}, setup, stream));
        const std::size_t count = std::size_t(c.tokens(samples)) * std::size_t(c.hidden);
        DeviceBuffer input;
        orExit(input.reserve(count * sizeof(Bf16)));
        orExit(uploadNow(input.as<void>(),
                         std::span<const Bf16>(std::vector<Bf16>(count, toBf16(0.5f)))));
        SoloDeviceTpComm solo;
        const std::span<const Bf16> in(input.as<Bf16>(), count);
        const auto step = [&] {
            const DeviceForwardOutput out = orExit(layer.forward(0, {0, samples}, in, solo));
            orExit(layer.backward(0, out.activations, solo));
            cudaStreamSynchronize(stream);
        };
        step(); // sizes the buffers and warms cuBLAS up
        const double seconds = medianSecondsPerCall(step);
        cudaDeviceProp properties{};
        cudaGetDeviceProperties(&properties, 0);
        std::printf("  %s layer (hidden %d, FFN %d, %d heads / %d KV, seq %d), %d sequence(s), "
                    "fwd+bwd on %s: %.2f ms, %.0f TFLOP/s, %.2f GiB held\n",
                    model, c.hidden, c.ffnHidden, c.heads, c.kvHeads, c.seqLen, samples,
                    properties.name, seconds * 1e3,
                    layerTrainingFlops(c, samples) / seconds * 1e-12,
                    double(layer.bytesHeld()) / (1024.0 * 1024.0 * 1024.0));
    }
    cudaStreamDestroy(stream);
}

void benchModelGpu()
{
    std::printf("runtime model on a GPU (CudaShard, bf16):\n");
    const DeviceCount devices = deviceCount();
    if (devices.count == 0) {
        std::printf("  not measured: no usable CUDA device (%s)\n", devices.whyNone.c_str());
        return;
    }
    benchGpuLayer("llama2-7b", 4096, 1);
    benchGpuLayer("llama2-7b", 2048, 4);
    benchGpuLayer("llama2-70b", 4096, 1);
}

const Register kModelGpu("model-gpu", benchModelGpu);

} // namespace
} // namespace hetplan::bench
