#include "runtime/model/fast_math.h"

#include <algorithm>
#include <bit>
#include <cstdint>

// Clones for wider vector units, chosen when the program loads. The code fixes the order of every
// sum (eight lanes) and ISO C++ mode forbids contracting into FMAs, so each clone computes the
// same bits as the baseline one.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define HETPLAN_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define HETPLAN_VECTOR_CLONES
#endif

namespace hetplan::runtime {

// Σ a[i]·b[i] in eight interleaved partial sums (vectorisable, and fixed in order).
HETPLAN_VECTOR_CLONES float dotProduct(const float *a, const float *b, std::size_t n)
{
    float lanes[8] = {};
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        for (std::size_t l = 0; l < 8; ++l)
            lanes[l] += a[i + l] * b[i + l];
    }
    float sum = 0;
    for (; i < n; ++i)
        sum += a[i] * b[i];
    for (float lane : lanes)
        sum += lane;
    return sum;
}

// row[0, n) ← softmax(row[0, n)) in place.
HETPLAN_VECTOR_CLONES void softmaxInPlace(float *row, std::size_t n)
{
    float maxLanes[8];
    std::fill_n(maxLanes, 8, row[0]);
    std::size_t j = 0;
    for (; j + 8 <= n; j += 8) {
        for (std::size_t l = 0; l < 8; ++l)
            maxLanes[l] = row[j + l] > maxLanes[l] ? row[j + l] : maxLanes[l];
    }
    float maxValue = row[0];
    for (; j < n; ++j)
        maxValue = row[j] > maxValue ? row[j] : maxValue;
    for (float lane : maxLanes)
        maxValue = lane > maxValue ? lane : maxValue;
    // e^x for x = row[k] − max ≤ 0, within 2 ulp, 0 below −87: Cody–Waite reduction
    // x = m·ln2 + r, |r| ≤ ln2/2, then Cephes's expf polynomial for e^r. Written out here rather
    // than called: a helper with the baseline target would not be inlined into the clones.
    for (std::size_t k = 0; k < n; ++k) {
        float x = row[k] - maxValue;
        const bool underflow = x < -87.0f;
        x = underflow ? -87.0f : x;
        constexpr float kRound = 12582912.0f; // 1.5·2²³: adding it rounds to an integer
        const float m = (x * 1.44269504088896341f + kRound) - kRound;
        const float r = (x - m * 0.693359375f) + m * 2.12194440e-4f;
        float p = 1.9875691500e-4f;
        p = p * r + 1.3981999507e-3f;
        p = p * r + 8.3334519073e-3f;
        p = p * r + 4.1665795894e-2f;
        p = p * r + 1.6666665459e-1f;
        p = p * r + 5.0000001201e-1f;
        p = p * r * r + r + 1.0f;
        const auto exponent = std::uint32_t(std::int32_t(m) + 127) << 23;
        row[k] = underflow ? 0.0f : p * std::bit_cast<float>(exponent);
    }
    float lanes[8] = {};
    j = 0;
    for (; j + 8 <= n; j += 8) {
        for (std::size_t l = 0; l < 8; ++l)
            lanes[l] += row[j + l];
    }
    float sum = 0;
    for (; j < n; ++j)
        sum += row[j];
    for (float lane : lanes)
        sum += lane;
    const float inv = 1.0f / sum;
    for (std::size_t k = 0; k < n; ++k)
        row[k] *= inv;
}

} // namespace hetplan::runtime
