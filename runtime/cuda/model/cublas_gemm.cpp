#include "runtime/cuda/model/cublas_gemm.h"

#include "runtime/cuda/cublas_status.h"

#include <cublas_v2.h>
#include <string>

namespace hetplan::runtime::cuda {

namespace {

cublasOperation_t operation(Transpose t)
{
    return t == Transpose::Yes ? CUBLAS_OP_T : CUBLAS_OP_N;
}

} // namespace

void BlasRelease::operator()(BlasHandle handle) const
{
    // A failed destroy has no caller to tell; it follows an error already reported.
    (void)cublasCall(cublasDestroy(handle), "cublasDestroy");
}

Result<OwnedBlas> makeBlas(CUstream_st *stream)
{
    BlasHandle made = nullptr;
    if (Status s = cublasCall(cublasCreate(&made), "cublasCreate"); !s)
        return s.error();
    OwnedBlas handle(made);
    if (Status s = cublasCall(cublasSetStream(made, stream), "cublasSetStream"); !s)
        return s.error();
    return handle;
}

Status gemm(BlasHandle handle, Transpose transA, Transpose transB, int m, int n, int k, float alpha,
            const GemmIn &a, const GemmIn &b, float beta, const GemmOut &c, int batch)
{
    // cuBLAS is column-major: a row-major matrix is its transpose there, so C = op(A)·op(B)
    // is computed as Cᵀ = op(B)ᵀ·op(A)ᵀ with the operands swapped and the operations kept.
    const cublasStatus_t status = cublasGemmStridedBatchedEx(
        handle, operation(transB), operation(transA), n, m, k, &alpha, b.data, CUDA_R_16BF, b.ld,
        b.stride, a.data, CUDA_R_16BF, a.ld, a.stride, &beta, c.data,
        c.bf16 ? CUDA_R_16BF : CUDA_R_32F, c.ld, c.stride, batch, CUBLAS_COMPUTE_32F,
        CUBLAS_GEMM_DEFAULT);
    if (status == CUBLAS_STATUS_SUCCESS)
        return okStatus();
    std::string what = "cublasGemmStridedBatchedEx (";
    for (const int extent : {m, n}) {
        what += std::to_string(extent);
        what += "×";
    }
    what += std::to_string(k);
    what += ", batch ";
    what += std::to_string(batch);
    what += ')';
    return cublasCall(status, what);
}

} // namespace hetplan::runtime::cuda
