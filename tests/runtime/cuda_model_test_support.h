#pragma once

// Fixtures for the GPU model's tests: device buffers filled from host vectors, bf16-exact random
// data (so the CPU and the GPU see the same inputs), and the comparison the tests use.

#include "model_test_support.h"
#include "runtime/cuda/device_buffer.h"
#include "runtime/cuda/model/cuda_shard.h"

#include <QtTest>

#include <cmath>
#include <cuda_runtime_api.h>
#include <random>
#include <vector>

namespace hetplan::runtime::cuda::test {

using runtime::test::orFail;

// Normal random values rounded to bf16, so that uploading them as bf16 loses nothing.
inline std::vector<float> bf16Random(std::size_t n, unsigned seed, float scale = 1.0f)
{
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, scale);
    std::vector<float> values(n);
    for (float &v : values)
        v = fromBf16(toBf16(normal(rng)));
    return values;
}

inline DeviceBuffer deviceFloats(const std::vector<float> &host)
{
    DeviceBuffer buffer;
    orFail(buffer.reserve(host.size() * sizeof(float) + 1));
    orFail(uploadNow(buffer.as<void>(), host));
    return buffer;
}

inline DeviceBuffer deviceBf16(const std::vector<float> &host)
{
    DeviceBuffer buffer;
    orFail(buffer.reserve(host.size() * sizeof(Bf16) + 1));
    orFail(uploadNow(buffer.as<void>(), std::span<const Bf16>(toBf16(host))));
    return buffer;
}

inline DeviceBuffer deviceZeros(std::size_t bytes)
{
    DeviceBuffer buffer;
    orFail(buffer.reserve(bytes + 1));
    orFail(zeroDevice(buffer.as<void>(), bytes, nullptr));
    return buffer;
}

inline std::vector<float> hostFloats(const DeviceBuffer &buffer, std::size_t n)
{
    return orFail(copyToHost(buffer.as<float>(), n, nullptr));
}

inline std::vector<float> hostBf16(const DeviceBuffer &buffer, std::size_t n)
{
    return orFail(copyToHost(std::span<const Bf16>(buffer.as<Bf16>(), n), nullptr));
}

// One CUDA stream per rank of a test, destroyed with it: declared before the shards that
// compute on them, it outlives them.
class RankStreams
{
public:
    explicit RankStreams(std::size_t count)
        : m_streams(count)
    {
        for (cudaStream_t &stream : m_streams)
            if (cudaStreamCreate(&stream) != cudaSuccess)
                qFatal("cudaStreamCreate failed");
    }
    ~RankStreams()
    {
        for (cudaStream_t stream : m_streams)
            cudaStreamDestroy(stream);
    }
    RankStreams(const RankStreams &) = delete;
    RankStreams &operator=(const RankStreams &) = delete;

    cudaStream_t operator[](std::size_t rank) const { return m_streams[rank]; }

private:
    std::vector<cudaStream_t> m_streams;
};

// ‖actual − expected‖ / ‖expected‖: what bf16 rounding keeps at 2⁻⁸ or so per operation, and a
// wrong formula (a missing term, a transposed operand, a wrong factor) makes of order 1.
inline double relativeError(const std::vector<float> &actual, const std::vector<float> &expected)
{
    if (actual.size() != expected.size())
        return INFINITY;
    double diff = 0;
    double norm = 0;
    for (std::size_t i = 0; i < actual.size(); ++i) {
        diff += (double(actual[i]) - expected[i]) * (double(actual[i]) - expected[i]);
        norm += double(expected[i]) * expected[i];
    }
    return norm == 0 ? std::sqrt(diff) : std::sqrt(diff / norm);
}

#define HETPLAN_COMPARE_CLOSE(actual, expected, tolerance)                                         \
    do {                                                                                           \
        const double error_ = hetplan::runtime::cuda::test::relativeError(actual, expected);       \
        QVERIFY2(                                                                                  \
            error_ <= (tolerance),                                                                 \
            qPrintable(                                                                            \
                QStringLiteral("relative error %1 above %2").arg(error_).arg(double(tolerance)))); \
    } while (false)

} // namespace hetplan::runtime::cuda::test
