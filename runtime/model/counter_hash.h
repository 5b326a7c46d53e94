#pragma once

// The counter-based generator behind model_init.h's weights (splitmix64's finaliser, Steele, Lea
// & Flood 2014): every value is a pure function of (seed, stream, counter), so any element can be
// made on its own, in any order, on any thread. Header-only C++17 that device code can call too,
// so the CPU model and the GPU's init kernel (runtime/cuda/model/init_kernels.h) make the same
// bits from one definition.
//
// Bit-exact on both: integer mixing, then doubles built exactly from 53 bits; the only product
// that a compiler may fuse into an FMA (uniform · 2⁻⁵³ + sum) is exact, so fusing changes nothing.

#include <cstdint>

#if defined(__CUDACC__)
#define HETPLAN_HOST_DEVICE __host__ __device__
#else
#define HETPLAN_HOST_DEVICE
#endif

namespace hetplan::runtime::counter_hash {

// splitmix64's finaliser: a bijective mix, so distinct counters give independent-looking outputs.
HETPLAN_HOST_DEVICE inline std::uint64_t mix(std::uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

HETPLAN_HOST_DEVICE inline std::uint64_t key(std::uint64_t seed, std::uint64_t stream,
                                             std::uint64_t index)
{
    return mix(mix(mix(seed) ^ stream) ^ index);
}

// 53 random bits as a double in [0, 1): exact, so the same on every platform.
HETPLAN_HOST_DEVICE inline double uniform(std::uint64_t bits)
{
    return double(bits >> 11) * 0x1.0p-53;
}

// Mean 0, standard deviation 1: (u1 + u2 + u3 + u4 − 2)·√3, bounded at ±3.46 like a truncated
// normal, and made of additions only.
HETPLAN_HOST_DEVICE inline double standardScore(std::uint64_t seed, std::uint64_t stream,
                                                std::int64_t element)
{
    const std::uint64_t base = key(seed, stream, std::uint64_t(element));
    double sum = 0;
    for (std::uint64_t k = 0; k < 4; ++k)
        sum += uniform(mix(base + k));
    return (sum - 2.0) * 1.7320508075688772; // √3: the sum of 4 uniforms has variance 1/3
}

// One tensor's initialiser (model_init.h weightInit makes it): element i is 1 for a norm gain,
// else stdDev · standardScore(seed, stream, i).
struct WeightInit
{
    std::uint64_t seed = 0;
    std::uint64_t stream = 0; // the hash of the tensor's name
    double stdDev = 0;
    bool ones = false;

    HETPLAN_HOST_DEVICE float at(std::int64_t element) const
    {
        return ones ? 1.0f : float(stdDev * standardScore(seed, stream, element));
    }
};

} // namespace hetplan::runtime::counter_hash
