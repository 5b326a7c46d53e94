#pragma once

// The one way this library multiplies matrices: OpenBLAS's cblas_sgemm, row-major.

namespace hetplan::runtime {

enum class Transpose { No, Yes };

// C[m×n] = alpha · op(A) · op(B) + beta · C, all row-major with leading dimensions lda/ldb/ldc
// (op(A) is m×k, op(B) is k×n). beta = 1 accumulates, as the gradient GEMMs do.
void gemm(Transpose transA, Transpose transB, int m, int n, int k, const float *a, int lda,
          const float *b, int ldb, float beta, float *c, int ldc, float alpha = 1.0f);

} // namespace hetplan::runtime
