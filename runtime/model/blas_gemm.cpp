#include "runtime/model/blas_gemm.h"

#include "runtime/model/model_shard.h"

#include <cblas.h>

namespace hetplan::runtime {

void gemm(Transpose transA, Transpose transB, int m, int n, int k, const float *a, int lda,
          const float *b, int ldb, float beta, float *c, int ldc, float alpha)
{
    if (m == 0 || n == 0)
        return;
    cblas_sgemm(CblasRowMajor, transA == Transpose::Yes ? CblasTrans : CblasNoTrans,
                transB == Transpose::Yes ? CblasTrans : CblasNoTrans, m, n, k, alpha, a, lda, b,
                ldb, beta, c, ldc);
}

void setBlasThreads(int threads)
{
    openblas_set_num_threads(threads);
}

} // namespace hetplan::runtime
