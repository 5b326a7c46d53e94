#include "runtime/model/model_init.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <string_view>

namespace hetplan::runtime {

namespace {

using counter_hash::key;
using counter_hash::mix;

std::uint64_t fnv1a64(std::string_view text)
{
    std::uint64_t h = 0xcbf29ce484222325ULL;
    for (unsigned char c : text)
        h = (h ^ c) * 0x100000001b3ULL;
    return h;
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

WeightInit weightInit(const TensorLayout &tensor, int layers, std::uint64_t seed)
{
    if (isNorm(tensor.kind))
        return {seed, 0, 0, true};
    return {seed, fnv1a64(tensor.name), initStd(tensor, layers), false};
}

float initialWeight(const TensorLayout &tensor, int layers, std::uint64_t seed,
                    std::int64_t element)
{
    return weightInit(tensor, layers, seed).at(element);
}

void initialWeights(const TensorLayout &tensor, int layers, std::uint64_t seed, ElementRange range,
                    std::span<float> out)
{
    assert(std::int64_t(out.size()) == range.size());
    const WeightInit init = weightInit(tensor, layers, seed);
    for (std::int64_t i = range.begin; i < range.end; ++i)
        out[std::size_t(i - range.begin)] = init.at(i);
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
