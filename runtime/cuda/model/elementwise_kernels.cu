// Element-wise kernels of the GPU model: conversions, residual adds, the MLP activations, rotary
// embedding and the optimizers (kernels.h; the CPU counterparts are in runtime/model).

#include "runtime/cuda/cuda_status.h"
#include "runtime/cuda/model/kernel_support.cuh"

namespace hetplan::runtime::cuda::kernels {

namespace {

constexpr float kGeluC = 0.7978845608028654f; // √(2/π), as layer_kernels.cpp
constexpr float kGeluA = 0.044715f;

#define HETPLAN_GRID_STRIDE(i, n)                                                                  \
    for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < (n);              \
         i += std::size_t(gridDim.x) * blockDim.x)

__device__ float sigmoid(float x)
{
    return 1.0f / (1.0f + expf(-x));
}

__global__ void toBf16Kernel(const float *x, std::size_t n, __nv_bfloat16 *y)
{
    HETPLAN_GRID_STRIDE(i, n)
    y[i] = __float2bfloat16_rn(x[i]);
}

__global__ void toFloatKernel(const __nv_bfloat16 *x, std::size_t n, float *y)
{
    HETPLAN_GRID_STRIDE(i, n)
    y[i] = __bfloat162float(x[i]);
}

__global__ void addIntoKernel(float *x, const float *y, std::size_t n)
{
    HETPLAN_GRID_STRIDE(i, n)
    x[i] += y[i];
}

__global__ void swiGluForwardKernel(const __nv_bfloat16 *g, const __nv_bfloat16 *u, std::size_t n,
                                    __nv_bfloat16 *h)
{
    HETPLAN_GRID_STRIDE(i, n)
    {
        const float gate = __bfloat162float(g[i]);
        h[i] = __float2bfloat16_rn(gate * sigmoid(gate) * __bfloat162float(u[i]));
    }
}

__global__ void geluForwardKernel(const __nv_bfloat16 *u, std::size_t n, __nv_bfloat16 *h)
{
    HETPLAN_GRID_STRIDE(i, n)
    {
        const float x = __bfloat162float(u[i]);
        h[i] = __float2bfloat16_rn(0.5f * x * (1.0f + tanhf(kGeluC * (x + kGeluA * x * x * x))));
    }
}

__global__ void swiGluBackwardKernel(const float *dh, const __nv_bfloat16 *g,
                                     const __nv_bfloat16 *u, std::size_t n, __nv_bfloat16 *dg,
                                     __nv_bfloat16 *du)
{
    HETPLAN_GRID_STRIDE(i, n)
    {
        const float gate = __bfloat162float(g[i]);
        const float s = sigmoid(gate);
        const float silu = gate * s;
        du[i] = __float2bfloat16_rn(dh[i] * silu);
        dg[i] = __float2bfloat16_rn(dh[i] * __bfloat162float(u[i]) * (s + silu * (1.0f - s)));
    }
}

__global__ void geluBackwardKernel(const float *dh, const __nv_bfloat16 *u, std::size_t n,
                                   __nv_bfloat16 *du)
{
    HETPLAN_GRID_STRIDE(i, n)
    {
        const float x = __bfloat162float(u[i]);
        const float t = tanhf(kGeluC * (x + kGeluA * x * x * x));
        const float dInner = kGeluC * (1.0f + 3.0f * kGeluA * x * x);
        du[i]
            = __float2bfloat16_rn(dh[i] * (0.5f * (1.0f + t) + 0.5f * x * (1.0f - t * t) * dInner));
    }
}

// One thread per (row, head, feature pair); an odd head dimension's last feature is copied.
__global__ void rotaryKernel(const float *x, std::size_t rows, int seqLen, int heads, int headDim,
                             const float *cosSin, float sign, __nv_bfloat16 *y)
{
    const int slots = (headDim + 1) / 2;
    const std::size_t n = rows * std::size_t(heads) * std::size_t(slots);
    HETPLAN_GRID_STRIDE(index, n)
    {
        const int slot = int(index % std::size_t(slots));
        const std::size_t rowHead = index / std::size_t(slots); // row · heads + head
        const int position = int((rowHead / std::size_t(heads)) % std::size_t(seqLen));
        const std::size_t at = rowHead * std::size_t(headDim) + std::size_t(2 * slot);
        if (2 * slot + 1 >= headDim) {
            y[at] = __float2bfloat16_rn(x[at]);
            continue;
        }
        const float *table = cosSin + std::size_t(position) * std::size_t(headDim);
        const float c = table[2 * slot];
        const float s = sign * table[2 * slot + 1];
        const float a = x[at];
        const float b = x[at + 1];
        y[at] = __float2bfloat16_rn(a * c - b * s);
        y[at + 1] = __float2bfloat16_rn(a * s + b * c);
    }
}

// adam.cpp's expression tree, each operation correctly rounded (no fused multiply-add), so that
// equal inputs give the CPU's bits.
__global__ void adamKernel(float *value, float *grad, float *m, float *v, std::size_t n,
                           AdamStep step, __nv_bfloat16 *valueBf16)
{
    const float oneMinusBeta1 = __fsub_rn(1.0f, step.beta1);
    const float oneMinusBeta2 = __fsub_rn(1.0f, step.beta2);
    HETPLAN_GRID_STRIDE(i, n)
    {
        const float g = grad[i];
        const float mi = __fadd_rn(__fmul_rn(step.beta1, m[i]), __fmul_rn(oneMinusBeta1, g));
        const float vi
            = __fadd_rn(__fmul_rn(step.beta2, v[i]), __fmul_rn(__fmul_rn(oneMinusBeta2, g), g));
        const float denominator
            = __fadd_rn(__fmul_rn(__fsqrt_rn(vi), step.invSqrtCorrection2), step.epsilon);
        const float w = __fsub_rn(value[i], __fdiv_rn(__fmul_rn(step.stepSize, mi), denominator));
        m[i] = mi;
        v[i] = vi;
        value[i] = w;
        grad[i] = 0.0f;
        valueBf16[i] = __float2bfloat16_rn(w);
    }
}

__global__ void sgdKernel(float *value, float *grad, std::size_t n, float learningRate,
                          __nv_bfloat16 *valueBf16)
{
    HETPLAN_GRID_STRIDE(i, n)
    {
        const float w = __fsub_rn(value[i], __fmul_rn(learningRate, grad[i]));
        value[i] = w;
        grad[i] = 0.0f;
        valueBf16[i] = __float2bfloat16_rn(w);
    }
}

} // namespace

Status lastLaunchError(const char *what)
{
    return cudaCall(cudaGetLastError(), what);
}

void toBf16(const float *x, std::size_t n, Bf16 *y, Stream stream)
{
    toBf16Kernel<<<gridFor(n), kThreads, 0, stream>>>(x, n, bf(y));
}

void toFloat(const Bf16 *x, std::size_t n, float *y, Stream stream)
{
    toFloatKernel<<<gridFor(n), kThreads, 0, stream>>>(bf(x), n, y);
}

void addInto(float *x, const float *y, std::size_t n, Stream stream)
{
    addIntoKernel<<<gridFor(n), kThreads, 0, stream>>>(x, y, n);
}

void swiGluForward(const Bf16 *gate, const Bf16 *up, std::size_t n, Bf16 *h, Stream stream)
{
    swiGluForwardKernel<<<gridFor(n), kThreads, 0, stream>>>(bf(gate), bf(up), n, bf(h));
}

void geluForward(const Bf16 *up, std::size_t n, Bf16 *h, Stream stream)
{
    geluForwardKernel<<<gridFor(n), kThreads, 0, stream>>>(bf(up), n, bf(h));
}

void swiGluBackward(const float *dh, const Bf16 *gate, const Bf16 *up, std::size_t n, Bf16 *dGate,
                    Bf16 *dUp, Stream stream)
{
    swiGluBackwardKernel<<<gridFor(n), kThreads, 0, stream>>>(dh, bf(gate), bf(up), n, bf(dGate),
                                                              bf(dUp));
}

void geluBackward(const float *dh, const Bf16 *up, std::size_t n, Bf16 *dUp, Stream stream)
{
    geluBackwardKernel<<<gridFor(n), kThreads, 0, stream>>>(dh, bf(up), n, bf(dUp));
}

void rotary(const float *x, int samples, int seqLen, int heads, int headDim, const float *cosSin,
            bool inverse, Bf16 *y, Stream stream)
{
    const std::size_t rows = std::size_t(samples) * std::size_t(seqLen);
    const std::size_t n = rows * std::size_t(heads) * std::size_t((headDim + 1) / 2);
    rotaryKernel<<<gridFor(n), kThreads, 0, stream>>>(x, rows, seqLen, heads, headDim, cosSin,
                                                      inverse ? -1.0f : 1.0f, bf(y));
}

void adamStep(float *value, float *grad, float *m, float *v, std::size_t n, const AdamStep &step,
              Bf16 *valueBf16, Stream stream)
{
    adamKernel<<<gridFor(n), kThreads, 0, stream>>>(value, grad, m, v, n, step, bf(valueBf16));
}

void sgdStep(float *value, float *grad, std::size_t n, float learningRate, Bf16 *valueBf16,
             Stream stream)
{
    sgdKernel<<<gridFor(n), kThreads, 0, stream>>>(value, grad, n, learningRate, bf(valueBf16));
}

} // namespace hetplan::runtime::cuda::kernels
