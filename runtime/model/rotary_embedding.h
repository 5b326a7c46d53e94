#pragma once

// Rotary position embedding (RoPE; Su et al. 2021, as Llama uses it): each head's feature pairs
// (2i, 2i+1) of q and k are rotated by the angle position · 10000^(−2i/headDim), so the scores
// depend on the distance between tokens. An odd last feature (a head dimension shrunk to an odd
// number by --scale) is left as it is.

#include <vector>

namespace hetplan::runtime {

class RotaryTable
{
public:
    RotaryTable() = default;
    RotaryTable(int seqLen, int headDim);

    // x: [samples·seqLen × heads·headDim]; rotates in place. `inverse` rotates back, which is the
    // backward of the rotation (its transpose).
    void apply(float *x, int samples, int heads, bool inverse) const;
    // x: `rows` rows of heads·headDim, row i at position positions[i] (< seqLen); rotates each in
    // place as apply() rotates that position. What decoding with a KV cache needs (runtime/serve).
    void applyAt(float *x, const int *positions, int rows, int heads) const;

private:
    void rotateRow(float *row, int pos, int heads, float sign) const;

    int m_seqLen = 0;
    int m_headDim = 0;
    std::vector<float> m_cos; // [seqLen × headDim/2]
    std::vector<float> m_sin;
};

} // namespace hetplan::runtime
