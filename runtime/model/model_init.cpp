#include "runtime/model/model_init.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <string_view>

namespace hetplan::runtime {

namespace {

// splitmix64's finaliser (Steele, Lea & Flood 2014): a bijective mix, so distinct counters give
// independent-looking outputs; used as a counter-based generator.
std::uint64_t mix(std::uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

std::uint64_t fnv1a64(std::string_view text)
{
    std::uint64_t h = 0xcbf29ce484222325ULL;
    for (unsigned char c : text)
        h = (h ^ c) * 0x100000001b3ULL;
    return h;
}

std::uint64_t key(std::uint64_t seed, std::uint64_t stream, std::uint64_t index)
{
    return mix(mix(mix(seed) ^ stream) ^ index);
}

// 53 random bits as a double in [0, 1): exact, so the same on every platform.
double uniform(std::uint64_t bits)
{
    return double(bits >> 11) * 0x1.0p-53;
}

double standardScore(std::uint64_t seed, std::uint64_t stream, std::int64_t element)
{
    const std::uint64_t base = key(seed, stream, std::uint64_t(element));
    double sum = 0;
    for (std::uint64_t k = 0; k < 4; ++k)
        sum += uniform(mix(base + k));
    return (sum - 2.0) * 1.7320508075688772; // √3: the sum of 4 uniforms has variance 1/3
}

double initStd(const TensorLayout &tensor, int layers)
{
    switch (tensor.kind) {
    case ParamKind::AttnNorm:
    case ParamKind::MlpNorm:
    case ParamKind::FinalNorm:
        return 0;
    case ParamKind::AttnO:
    case ParamKind::MlpDown:
        return 0.02 / std::sqrt(2.0 * std::max(1, layers));
    default:
        return 0.02;
    }
}

bool isNorm(ParamKind kind)
{
    return kind == ParamKind::AttnNorm || kind == ParamKind::MlpNorm
           || kind == ParamKind::FinalNorm;
}

constexpr std::uint64_t kTokenStream = 0x746f6b656e73ULL; // "tokens"

} // namespace

float initialWeight(const TensorLayout &tensor, int layers, std::uint64_t seed,
                    std::int64_t element)
{
    if (isNorm(tensor.kind))
        return 1.0f;
    return float(initStd(tensor, layers) * standardScore(seed, fnv1a64(tensor.name), element));
}

void initialWeights(const TensorLayout &tensor, int layers, std::uint64_t seed, ElementRange range,
                    std::span<float> out)
{
    assert(std::int64_t(out.size()) == range.size());
    if (isNorm(tensor.kind)) {
        std::fill(out.begin(), out.end(), 1.0f);
        return;
    }
    const double stdDev = initStd(tensor, layers);
    const std::uint64_t stream = fnv1a64(tensor.name);
    for (std::int64_t i = range.begin; i < range.end; ++i)
        out[std::size_t(i - range.begin)] = float(stdDev * standardScore(seed, stream, i));
}

int syntheticToken(std::uint64_t seed, std::int64_t sample, int position, int vocab)
{
    assert(vocab > 0 && position >= 0);
    const std::uint64_t sampleKey = key(seed, kTokenStream, std::uint64_t(sample));
    const std::uint64_t start = mix(sampleKey) % std::uint64_t(vocab);
    const std::uint64_t stride = 1 + mix(sampleKey + 1) % 4;
    const std::uint64_t noise = mix(sampleKey ^ mix(std::uint64_t(position) + 2));
    if (noise % 8 == 0)
        return int((noise >> 3) % std::uint64_t(vocab));
    return int((start + std::uint64_t(position) * stride) % std::uint64_t(vocab));
}

} // namespace hetplan::runtime
