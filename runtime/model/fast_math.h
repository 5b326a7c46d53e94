#pragma once

// The attention's softmax kernels: vectorised (no libm calls, no reassociation needed), and
// dependent on nothing but IEEE arithmetic, so every platform computes the same bits.

#include <cstddef>

namespace hetplan::runtime {

// Σ a[i]·b[i] in eight interleaved partial sums (vectorisable, and fixed in order).
float dotProduct(const float *a, const float *b, std::size_t n);

// row[0, n) ← softmax(row[0, n)) in place; e^x by Cody–Waite reduction and Cephes's expf
// polynomial (within 2 ulp).
void softmaxInPlace(float *row, std::size_t n);

} // namespace hetplan::runtime
