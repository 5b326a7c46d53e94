#include "runtime/model/rotary_embedding.h"

#include <cmath>
#include <cstddef>

namespace hetplan::runtime {

namespace {
constexpr double kRopeBase = 10000.0; // Su et al. 2021; Llama 2
}

RotaryTable::RotaryTable(int seqLen, int headDim)
    : m_seqLen(seqLen)
    , m_headDim(headDim)
{
    const int pairs = headDim / 2;
    m_cos.resize(std::size_t(seqLen) * pairs);
    m_sin.resize(m_cos.size());
    for (int pos = 0; pos < seqLen; ++pos) {
        for (int i = 0; i < pairs; ++i) {
            const double angle = pos * std::pow(kRopeBase, -2.0 * i / headDim);
            m_cos[std::size_t(pos) * pairs + i] = float(std::cos(angle));
            m_sin[std::size_t(pos) * pairs + i] = float(std::sin(angle));
        }
    }
}

void RotaryTable::rotateRow(float *row, int pos, int heads, float sign) const
{
    const int pairs = m_headDim / 2;
    const float *cosRow = m_cos.data() + std::size_t(pos) * pairs;
    const float *sinRow = m_sin.data() + std::size_t(pos) * pairs;
    for (int h = 0; h < heads; ++h) {
        float *head = row + std::size_t(h) * m_headDim;
        for (int i = 0; i < pairs; ++i) {
            const float a = head[std::size_t(2) * i];
            const float c = head[std::size_t(2) * i + 1];
            const float s = sign * sinRow[i];
            head[std::size_t(2) * i] = a * cosRow[i] - c * s;
            head[std::size_t(2) * i + 1] = a * s + c * cosRow[i];
        }
    }
}

void RotaryTable::apply(float *x, int samples, int heads, bool inverse) const
{
    const std::size_t width = std::size_t(heads) * m_headDim;
    const float sign = inverse ? -1.0f : 1.0f;
    for (int b = 0; b < samples; ++b) {
        for (int pos = 0; pos < m_seqLen; ++pos)
            rotateRow(x + (std::size_t(b) * m_seqLen + pos) * width, pos, heads, sign);
    }
}

void RotaryTable::applyAt(float *x, const int *positions, int rows, int heads) const
{
    const std::size_t width = std::size_t(heads) * m_headDim;
    for (int r = 0; r < rows; ++r)
        rotateRow(x + std::size_t(r) * width, positions[r], heads, 1.0f);
}

} // namespace hetplan::runtime
