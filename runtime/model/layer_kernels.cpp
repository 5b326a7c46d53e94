#include "runtime/model/layer_kernels.h"

#include <algorithm>
#include <cmath>

namespace hetplan::runtime {

namespace {

constexpr float kRmsEpsilon = 1e-5f;
constexpr float kGeluC = 0.7978845608028654f; // √(2/π)
constexpr float kGeluA = 0.044715f;

float sigmoid(float x)
{
    return 1.0f / (1.0f + std::exp(-x));
}

} // namespace

void rmsNormForward(const float *x, const float *gain, std::size_t rows, std::size_t width,
                    float *y, float *invRms)
{
    for (std::size_t r = 0; r < rows; ++r) {
        const float *xr = x + r * width;
        float *yr = y + r * width;
        double sumSq = 0;
        for (std::size_t i = 0; i < width; ++i)
            sumSq += double(xr[i]) * xr[i];
        const float inv = float(1.0 / std::sqrt(sumSq / double(width) + kRmsEpsilon));
        invRms[r] = inv;
        for (std::size_t i = 0; i < width; ++i)
            yr[i] = xr[i] * inv * gain[i];
    }
}

void rmsNormBackward(const float *dy, const float *x, const float *invRms, const float *gain,
                     std::size_t rows, std::size_t width, float *dx, float *dGain)
{
    for (std::size_t r = 0; r < rows; ++r) {
        const float *dyr = dy + r * width;
        const float *xr = x + r * width;
        float *dxr = dx + r * width;
        const float inv = invRms[r];
        // x̂ = x·inv; dx = inv·(dx̂ − x̂·mean(dx̂ ∘ x̂)) with dx̂ = dy ∘ gain.
        double dot = 0;
        for (std::size_t i = 0; i < width; ++i) {
            const float xHat = xr[i] * inv;
            dGain[i] += dyr[i] * xHat;
            dot += double(dyr[i]) * gain[i] * xHat;
        }
        const float meanDot = float(dot / double(width));
        for (std::size_t i = 0; i < width; ++i)
            dxr[i] = inv * (dyr[i] * gain[i] - xr[i] * inv * meanDot);
    }
}

void swiGluForward(const float *g, const float *u, std::size_t count, float *h)
{
    for (std::size_t i = 0; i < count; ++i)
        h[i] = g[i] * sigmoid(g[i]) * u[i];
}

void swiGluBackward(const float *dh, const float *g, const float *u, std::size_t count, float *dg,
                    float *du)
{
    for (std::size_t i = 0; i < count; ++i) {
        const float s = sigmoid(g[i]);
        const float silu = g[i] * s;
        du[i] = dh[i] * silu;
        dg[i] = dh[i] * u[i] * (s + silu * (1.0f - s));
    }
}

void geluForward(const float *u, std::size_t count, float *h)
{
    for (std::size_t i = 0; i < count; ++i) {
        const float x = u[i];
        h[i] = 0.5f * x * (1.0f + std::tanh(kGeluC * (x + kGeluA * x * x * x)));
    }
}

void geluBackward(const float *dh, const float *u, std::size_t count, float *du)
{
    for (std::size_t i = 0; i < count; ++i) {
        const float x = u[i];
        const float t = std::tanh(kGeluC * (x + kGeluA * x * x * x));
        const float dInner = kGeluC * (1.0f + 3.0f * kGeluA * x * x);
        du[i] = dh[i] * (0.5f * (1.0f + t) + 0.5f * x * (1.0f - t * t) * dInner);
    }
}

double softmaxCrossEntropy(float *logits, const int *targets, std::size_t rows, std::size_t width,
                           float lossScale)
{
    double lossSum = 0;
    for (std::size_t r = 0; r < rows; ++r) {
        float *row = logits + r * width;
        const float maxLogit = *std::max_element(row, row + width);
        const std::size_t target = std::size_t(targets[r]);
        const float targetLogit = row[target];
        double sumExp = 0;
        for (std::size_t i = 0; i < width; ++i) {
            row[i] = std::exp(row[i] - maxLogit);
            sumExp += row[i];
        }
        lossSum += double(maxLogit) - targetLogit + std::log(sumExp);
        const float scale = float(lossScale / sumExp);
        for (std::size_t i = 0; i < width; ++i)
            row[i] *= scale;
        row[target] -= lossScale;
    }
    return lossSum;
}

} // namespace hetplan::runtime
