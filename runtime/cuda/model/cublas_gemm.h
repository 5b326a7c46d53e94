#pragma once

// The one way the GPU model multiplies matrices: cublasGemmStridedBatchedEx with bf16 operands
// and fp32 accumulation, on row-major matrices as runtime/model/blas_gemm.h takes them.

#include "core/base/result.h"
#include "runtime/cuda/model/bf16.h"
#include "runtime/model/blas_gemm.h"

#include <memory>

struct cublasContext;
struct CUstream_st;

namespace hetplan::runtime::cuda {

using BlasHandle = cublasContext *;

struct BlasRelease
{
    void operator()(BlasHandle handle) const;
};
// A cuBLAS handle, destroyed with its owner (before the stream its calls run on).
using OwnedBlas = std::unique_ptr<cublasContext, BlasRelease>;

// A new handle whose calls run on `stream`.
Result<OwnedBlas> makeBlas(CUstream_st *stream);

// A bf16 operand: row-major with leading dimension `ld`; batch i starts `stride` elements after
// batch i − 1.
struct GemmIn
{
    const Bf16 *data = nullptr;
    int ld = 0;
    long long stride = 0;
};

// The result: fp32 (what is summed or accumulated into) or bf16 (what is multiplied again).
struct GemmOut
{
    void *data = nullptr;
    bool bf16 = false;
    int ld = 0;
    long long stride = 0;

    static GemmOut f32(float *c, int ld, long long stride = 0) { return {c, false, ld, stride}; }
    static GemmOut b16(Bf16 *c, int ld, long long stride = 0) { return {c, true, ld, stride}; }
};

// C[m×n] = alpha · op(A) · op(B) + beta · C for each of `batch` matrices (op(A) is m×k, op(B)
// k×n), on the stream the handle is bound to.
Status gemm(BlasHandle handle, Transpose transA, Transpose transB, int m, int n, int k, float alpha,
            const GemmIn &a, const GemmIn &b, float beta, const GemmOut &c, int batch = 1);

} // namespace hetplan::runtime::cuda
