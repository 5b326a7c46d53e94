#pragma once

// bfloat16 as the GPU model stores weights and activations: the upper half of an IEEE binary32.
// A plain 16-bit struct, so host code can hold and move device bf16 buffers without CUDA's
// headers; device code reads the same bits as __nv_bfloat16.

#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

namespace hetplan::runtime::cuda {

struct Bf16
{
    std::uint16_t bits = 0;

    bool operator==(const Bf16 &) const = default;
};

// Round to nearest, ties to even (as __float2bfloat16_rn); NaN stays a quiet NaN of the same sign.
inline Bf16 toBf16(float value)
{
    std::uint32_t word = 0;
    std::memcpy(&word, &value, sizeof word);
    if ((word & 0x7fffffffU) > 0x7f800000U)
        return {std::uint16_t((word >> 16) | 0x0040U)};
    const std::uint32_t lsb = (word >> 16) & 1U;
    word += 0x7fffU + lsb;
    return {std::uint16_t(word >> 16)};
}

inline float fromBf16(Bf16 value)
{
    const std::uint32_t word = std::uint32_t(value.bits) << 16;
    float result = 0;
    std::memcpy(&result, &word, sizeof result);
    return result;
}

// Host floats rounded to bf16 (for uploads of weights, and of activations in tests and checks).
inline std::vector<Bf16> toBf16(std::span<const float> values)
{
    std::vector<Bf16> result(values.size());
    for (std::size_t i = 0; i < values.size(); ++i)
        result[i] = toBf16(values[i]);
    return result;
}

} // namespace hetplan::runtime::cuda
