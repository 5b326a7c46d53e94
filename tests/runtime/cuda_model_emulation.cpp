// The CUDA runtime, cuBLAS and the GPU model's kernels (kernels.h) on the host, so that the GPU
// model's host code (buffer layouts, GEMM shapes and strides, the order of the steps, the TP
// all-reduces) runs against the CPU model where no GPU is: tst_cuda_model_emulated links this
// file in place of libcudart, libcublas and the .cu kernels.
//
// What it checks: everything in runtime/cuda/model's .cpp files. What it cannot: the .cu files
// themselves (this file follows their arithmetic in plain C++) and cuBLAS's own behaviour beyond
// its documented column-major contract, which the GEMM below implements and whose leading
// dimensions it validates as cuBLAS does. Memory is host memory; streams and events are handles
// whose use is logged (cuda_emulation_log.h), and every call completes before it returns, except
// an NCCL call that waits for its peers (emulation::enqueue).

#include "cuda_emulation_log.h"
#include "runtime/cuda/model/init_kernels.h"
#include "runtime/cuda/model/kernels.h"
#include "runtime/model/layer_kernels.h"
#include "runtime/model/model_init.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

namespace hetplan::runtime::cuda::emulation {

std::vector<Entry> &log()
{
    static std::vector<Entry> entries;
    return entries;
}

// The in-process TP tests run one rank per thread through this emulation: entries are added under
// a lock (two threads appending at once corrupted the vector).
void note(Entry entry)
{
    static std::mutex lock;
    const std::lock_guard held(lock);
    log().push_back(std::move(entry));
}

} // namespace hetplan::runtime::cuda::emulation

namespace {

namespace emulation = hetplan::runtime::cuda::emulation;

// What each stream and each recorded event still waits for, and the memory whose release waits
// (emulation::enqueue).
struct Unfinished
{
    std::mutex lock;
    std::map<const void *, std::vector<emulation::Work>> streams;
    std::map<const void *, std::vector<emulation::Work>> events;
    std::vector<std::pair<void *, std::vector<emulation::Work>>> freed;

    // Drops what is done; true when nothing is left.
    static bool done(std::vector<emulation::Work> &works)
    {
        std::erase_if(works, [](const emulation::Work &w) { return w->load(); });
        return works.empty();
    }
};

Unfinished &unfinished()
{
    static Unfinished state;
    return state;
}

// Until everything `of` names is done, as a host that polls the device.
template<typename Key>
void waitFor(std::map<Key, std::vector<emulation::Work>> Unfinished::*of, Key key)
{
    for (;;) {
        {
            Unfinished &u = unfinished();
            const std::lock_guard held(u.lock);
            if (Unfinished::done((u.*of)[key]))
                return;
        }
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
}

} // namespace

void hetplan::runtime::cuda::emulation::enqueue(const void *stream, Work work)
{
    Unfinished &u = unfinished();
    const std::lock_guard held(u.lock);
    u.streams[stream].push_back(std::move(work));
}

namespace {

// The emulated pool's attributes (cudaMemPoolSetAttribute below).
std::map<int, std::uint64_t> &poolAttributes()
{
    static std::map<int, std::uint64_t> attributes;
    return attributes;
}

// Distinct non-null handles for streams and events: they are only compared.
void *newHandle()
{
    static std::atomic<std::uintptr_t> next = 0x1000;
    return reinterpret_cast<void *>(next += 16);
}

void hostWaits(const char *call)
{
    emulation::note({emulation::Kind::HostWait, nullptr, nullptr, call, 0});
}

void launched(const char *kernel, const void *stream)
{
    emulation::note({emulation::Kind::Kernel, stream, nullptr, kernel, 0});
}

cudaStream_t &blasStream()
{
    static cudaStream_t stream = nullptr;
    return stream;
}

} // namespace

extern "C" {

cudaError_t cudaMalloc(void **pointer, size_t bytes)
{
    *pointer = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
    return *pointer != nullptr ? cudaSuccess : cudaErrorMemoryAllocation;
}
cudaError_t cudaFree(void *pointer)
{
    std::free(pointer);
    return cudaSuccess;
}
cudaError_t cudaMemsetAsync(void *pointer, int value, size_t bytes, cudaStream_t)
{
    std::memset(pointer, value, bytes);
    return cudaSuccess;
}
cudaError_t cudaMemcpy(void *to, const void *from, size_t bytes, cudaMemcpyKind)
{
    std::memmove(to, from, bytes);
    return cudaSuccess;
}
cudaError_t cudaMemcpyAsync(void *to, const void *from, size_t bytes, cudaMemcpyKind, cudaStream_t)
{
    std::memmove(to, from, bytes);
    return cudaSuccess;
}
cudaError_t cudaMallocAsync(void **pointer, size_t bytes, cudaStream_t)
{
    return cudaMalloc(pointer, bytes);
}
cudaError_t cudaFreeAsync(void *pointer, cudaStream_t stream)
{
    Unfinished &u = unfinished();
    const std::lock_guard held(u.lock);
    std::erase_if(u.freed, [](auto &f) {
        if (!Unfinished::done(f.second))
            return false;
        std::free(f.first);
        return true;
    });
    std::vector<emulation::Work> &pending = u.streams[stream];
    if (Unfinished::done(pending))
        std::free(pointer);
    else
        u.freed.emplace_back(pointer, pending);
    return cudaSuccess;
}
cudaError_t cudaMemGetInfo(size_t *freeBytes, size_t *totalBytes)
{
    *totalBytes = std::size_t(80) << 30;
    *freeBytes = std::size_t(70) << 30;
    return cudaSuccess;
}
cudaError_t cudaSetDevice(int)
{
    return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    hostWaits("cudaStreamSynchronize");
    waitFor(&Unfinished::streams, static_cast<const void *>(stream));
    return cudaSuccess;
}
cudaError_t cudaDeviceSynchronize()
{
    hostWaits("cudaDeviceSynchronize");
    return cudaSuccess;
}
cudaError_t cudaStreamQuery(cudaStream_t)
{
    return cudaSuccess; // asks, does not wait
}
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int)
{
    *stream = static_cast<cudaStream_t>(newHandle());
    return cudaSuccess;
}
cudaError_t cudaEventCreate(cudaEvent_t *event)
{
    *event = static_cast<cudaEvent_t>(newHandle());
    return cudaSuccess;
}
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int)
{
    return cudaEventCreate(event);
}
cudaError_t cudaEventDestroy(cudaEvent_t)
{
    return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
    emulation::note({emulation::Kind::Record, stream, event, {}, 0});
    Unfinished &u = unfinished();
    const std::lock_guard held(u.lock);
    std::vector<emulation::Work> &pending = u.streams[stream];
    Unfinished::done(pending);
    u.events[event] = pending;
    return cudaSuccess;
}
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int)
{
    emulation::note({emulation::Kind::Wait, stream, event, {}, 0});
    Unfinished &u = unfinished();
    const std::lock_guard held(u.lock);
    const std::vector<emulation::Work> &awaited = u.events[event];
    std::vector<emulation::Work> &pending = u.streams[stream];
    pending.insert(pending.end(), awaited.begin(), awaited.end());
    return cudaSuccess;
}
// An event has happened once the work before it has: everything but an NCCL call still waiting
// for its peers ran when it was asked for.
cudaError_t cudaEventQuery(cudaEvent_t event)
{
    hostWaits("cudaEventQuery");
    Unfinished &u = unfinished();
    const std::lock_guard held(u.lock);
    return Unfinished::done(u.events[event]) ? cudaSuccess : cudaErrorNotReady;
}
cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
    hostWaits("cudaEventSynchronize");
    waitFor(&Unfinished::events, static_cast<const void *>(event));
    return cudaSuccess;
}
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t, cudaEvent_t)
{
    *ms = 1.0f;
    return cudaSuccess;
}
cudaError_t cudaGetLastError()
{
    return cudaSuccess;
}
const char *cudaGetErrorString(cudaError_t)
{
    return "error in the emulated CUDA runtime";
}
const char *cudaGetErrorName(cudaError_t)
{
    return "cudaErrorEmulated";
}
cudaError_t cudaGetDeviceCount(int *count)
{
    *count = 1;
    return cudaSuccess;
}
cudaError_t cudaStreamCreate(cudaStream_t *stream)
{
    *stream = nullptr;
    return cudaSuccess;
}
cudaError_t cudaStreamDestroy(cudaStream_t)
{
    return cudaSuccess;
}
// One device with one stream-ordered pool whose attributes read back what was set (its usage
// figures stay 0: nothing here allocates from it).
cudaError_t cudaGetDevice(int *device)
{
    *device = 0;
    return cudaSuccess;
}
cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *pool, int)
{
    static int onlyPool = 0;
    *pool = reinterpret_cast<cudaMemPool_t>(&onlyPool);
    return cudaSuccess;
}
cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t, cudaMemPoolAttr attribute, void *value)
{
    poolAttributes()[int(attribute)] = *static_cast<const std::uint64_t *>(value);
    return cudaSuccess;
}
cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t, cudaMemPoolAttr attribute, void *value)
{
    *static_cast<std::uint64_t *>(value) = poolAttributes()[int(attribute)];
    return cudaSuccess;
}
cublasStatus_t cublasCreate_v2(cublasHandle_t *handle)
{
    static int token = 0;
    *handle = reinterpret_cast<cublasHandle_t>(&token);
    return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasDestroy_v2(cublasHandle_t)
{
    return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasSetStream_v2(cublasHandle_t, cudaStream_t stream)
{
    blasStream() = stream;
    return CUBLAS_STATUS_SUCCESS;
}
const char *cublasGetStatusString(cublasStatus_t)
{
    return "CUBLAS_STATUS_INVALID_VALUE (emulated)";
}

} // extern "C"

namespace {

using hetplan::runtime::cuda::Bf16;
using hetplan::runtime::cuda::fromBf16;

float element(const void *matrix, cudaDataType type, std::size_t at)
{
    return type == CUDA_R_16BF ? fromBf16(static_cast<const Bf16 *>(matrix)[at])
                               : static_cast<const float *>(matrix)[at];
}

} // namespace

// Column-major C = α·op(A)·op(B) + β·C per batch, fp32 sums; β = 0 ignores C's old contents.
cublasStatus_t CUBLASWINAPI cublasGemmStridedBatchedEx(
    cublasHandle_t, cublasOperation_t transA, cublasOperation_t transB, int m, int n, int k,
    const void *alpha, const void *a, cudaDataType typeA, int lda, long long strideA, const void *b,
    cudaDataType typeB, int ldb, long long strideB, const void *beta, void *c, cudaDataType typeC,
    int ldc, long long strideC, int batch, cublasComputeType_t compute, cublasGemmAlgo_t)
{
    const bool aT = transA != CUBLAS_OP_N;
    const bool bT = transB != CUBLAS_OP_N;
    if (m < 0 || n < 0 || k < 0 || lda < std::max(1, aT ? k : m) || ldb < std::max(1, bT ? n : k)
        || ldc < std::max(1, m) || compute != CUBLAS_COMPUTE_32F || typeA != CUDA_R_16BF
        || typeB != CUDA_R_16BF)
        return CUBLAS_STATUS_INVALID_VALUE;
    // Batches whose results share an element race on a GPU (inputs may, as with a stride of 0):
    // results are either whole blocks apart or side by side within the leading dimension.
    const long long apart = std::abs(strideC);
    const bool disjointBlocks = apart >= static_cast<long long>(std::max(n, 1) - 1) * ldc + m;
    const bool sideBySide = apart >= m && static_cast<long long>(batch - 1) * apart + m <= ldc;
    if (batch > 1 && !disjointBlocks && !sideBySide)
        return CUBLAS_STATUS_INVALID_VALUE;
    launched("gemm", blasStream());
    const float scaleAB = *static_cast<const float *>(alpha);
    const float scaleC = *static_cast<const float *>(beta);
    for (int batchIndex = 0; batchIndex < batch; ++batchIndex) {
        const std::size_t offsetA = std::size_t(batchIndex * strideA);
        const std::size_t offsetB = std::size_t(batchIndex * strideB);
        const std::size_t offsetC = std::size_t(batchIndex * strideC);
        for (int j = 0; j < n; ++j) {
            for (int i = 0; i < m; ++i) {
                float sum = 0;
                for (int l = 0; l < k; ++l) {
                    const std::size_t atA
                        = aT ? l + std::size_t(i) * lda : i + std::size_t(l) * lda;
                    const std::size_t atB
                        = bT ? j + std::size_t(l) * ldb : l + std::size_t(j) * ldb;
                    sum += element(a, typeA, offsetA + atA) * element(b, typeB, offsetB + atB);
                }
                const std::size_t at = offsetC + i + std::size_t(j) * ldc;
                const float old = scaleC == 0.0f ? 0.0f : element(c, typeC, at);
                const float result = scaleAB * sum + scaleC * old;
                if (typeC == CUDA_R_16BF)
                    static_cast<Bf16 *>(c)[at] = hetplan::runtime::cuda::toBf16(result);
                else
                    static_cast<float *>(c)[at] = result;
            }
        }
    }
    return CUBLAS_STATUS_SUCCESS;
}

// The kernels, as the .cu files compute them (fp32 arithmetic, bf16 where they round).
namespace hetplan::runtime::cuda::kernels {

namespace {

float sigmoid(float x)
{
    return 1.0f / (1.0f + std::exp(-x));
}

int tokenAt(const TokenSource &s, std::size_t row, int shift)
{
    const auto sample = std::int64_t(row / std::size_t(s.seqLen));
    return syntheticToken(s.seed, s.firstSample + sample, int(row % std::size_t(s.seqLen)) + shift,
                          s.vocab);
}

std::size_t rowsOf(const TokenSource &s)
{
    return std::size_t(s.samples) * std::size_t(s.seqLen);
}

} // namespace

Status lastLaunchError(const char *)
{
    return okStatus();
}

void toBf16(const float *x, std::size_t n, Bf16 *y, Stream stream)
{
    launched("toBf16", stream);
    for (std::size_t i = 0; i < n; ++i)
        y[i] = cuda::toBf16(x[i]);
}

void initialWeights(const counter_hash::WeightInit &init, std::int64_t firstElement, std::size_t n,
                    float *value, Bf16 *valueBf16, Stream stream)
{
    launched("initialWeights", stream);
    for (std::size_t i = 0; i < n; ++i) {
        value[i] = init.at(firstElement + std::int64_t(i));
        valueBf16[i] = cuda::toBf16(value[i]);
    }
}

void toFloat(const Bf16 *x, std::size_t n, float *y, Stream stream)
{
    launched("toFloat", stream);
    for (std::size_t i = 0; i < n; ++i)
        y[i] = fromBf16(x[i]);
}

void addInto(float *x, const float *y, std::size_t n, Stream stream)
{
    launched("addInto", stream);
    for (std::size_t i = 0; i < n; ++i)
        x[i] += y[i];
}

void rmsNormForward(const float *x, const float *gain, int rows, int width, Bf16 *normed,
                    float *invRms, Bf16 *xCopy, Stream stream)
{
    launched("rmsNormForward", stream);
    const auto w = std::size_t(width);
    for (std::size_t r = 0; r < std::size_t(rows); ++r) {
        float sumSq = 0;
        for (std::size_t i = 0; i < w; ++i)
            sumSq += x[r * w + i] * x[r * w + i];
        invRms[r] = 1.0f / std::sqrt(sumSq / float(width) + 1e-5f);
        for (std::size_t i = 0; i < w; ++i) {
            normed[r * w + i] = cuda::toBf16(x[r * w + i] * invRms[r] * gain[i]);
            if (xCopy != nullptr)
                xCopy[r * w + i] = cuda::toBf16(x[r * w + i]);
        }
    }
}

void rmsNormBackward(const float *dy, const Bf16 *x, const float *invRms, const float *gain,
                     int rows, int width, float *dx, float *dGain, float *, Stream stream)
{
    launched("rmsNormBackward", stream);
    const auto w = std::size_t(width);
    for (std::size_t r = 0; r < std::size_t(rows); ++r) {
        float dot = 0;
        for (std::size_t i = 0; i < w; ++i)
            dot += dy[r * w + i] * gain[i] * (fromBf16(x[r * w + i]) * invRms[r]);
        const float meanDot = dot / float(width);
        for (std::size_t i = 0; i < w; ++i)
            dx[r * w + i]
                += invRms[r]
                   * (dy[r * w + i] * gain[i] - fromBf16(x[r * w + i]) * invRms[r] * meanDot);
    }
    for (std::size_t i = 0; i < w; ++i) {
        float sum = 0;
        for (std::size_t r = 0; r < std::size_t(rows); ++r)
            sum += dy[r * w + i] * (fromBf16(x[r * w + i]) * invRms[r]);
        dGain[i] += sum;
    }
}

void swiGluForward(const Bf16 *gate, const Bf16 *up, std::size_t n, Bf16 *h, Stream stream)
{
    launched("swiGluForward", stream);
    for (std::size_t i = 0; i < n; ++i) {
        const float g = fromBf16(gate[i]);
        h[i] = cuda::toBf16(g * sigmoid(g) * fromBf16(up[i]));
    }
}

void geluForward(const Bf16 *up, std::size_t n, Bf16 *h, Stream stream)
{
    launched("geluForward", stream);
    std::vector<float> in(n);
    std::vector<float> out(n);
    toFloat(up, n, in.data(), nullptr);
    runtime::geluForward(in.data(), n, out.data());
    toBf16(out.data(), n, h, nullptr);
}

void swiGluBackward(const float *dh, const Bf16 *gate, const Bf16 *up, std::size_t n, Bf16 *dGate,
                    Bf16 *dUp, Stream stream)
{
    launched("swiGluBackward", stream);
    for (std::size_t i = 0; i < n; ++i) {
        const float g = fromBf16(gate[i]);
        const float s = sigmoid(g);
        dUp[i] = cuda::toBf16(dh[i] * g * s);
        dGate[i] = cuda::toBf16(dh[i] * fromBf16(up[i]) * (s + g * s * (1.0f - s)));
    }
}

void geluBackward(const float *dh, const Bf16 *up, std::size_t n, Bf16 *dUp, Stream stream)
{
    launched("geluBackward", stream);
    std::vector<float> in(n);
    std::vector<float> out(n);
    toFloat(up, n, in.data(), nullptr);
    runtime::geluBackward(dh, in.data(), n, out.data());
    toBf16(out.data(), n, dUp, nullptr);
}

void rotary(const float *x, int samples, int seqLen, int heads, int headDim, const float *cosSin,
            bool inverse, Bf16 *y, Stream stream)
{
    launched("rotary", stream);
    const std::size_t rows = std::size_t(samples) * std::size_t(seqLen);
    const auto d = std::size_t(headDim);
    for (std::size_t row = 0; row < rows; ++row) {
        const float *table = cosSin + (row % std::size_t(seqLen)) * d;
        for (std::size_t at = row * std::size_t(heads) * d; at < (row + 1) * std::size_t(heads) * d;
             at += d) {
            for (std::size_t j = 0; j + 1 < d; j += 2) {
                const float s = inverse ? -table[j + 1] : table[j + 1];
                y[at + j] = cuda::toBf16(x[at + j] * table[j] - x[at + j + 1] * s);
                y[at + j + 1] = cuda::toBf16(x[at + j] * s + x[at + j + 1] * table[j]);
            }
            if (d % 2 == 1)
                y[at + d - 1] = cuda::toBf16(x[at + d - 1]);
        }
    }
}

// attention_kernels.cu's two kernels, row by row: the same formulas, the sums in column order.
Status scaledCausalSoftmax(Bf16 *scores, int matrices, int seqLen, float scale, Stream stream)
{
    launched("scaledCausalSoftmax", stream);
    const auto n = std::size_t(seqLen);
    std::vector<float> cache(n);
    for (std::size_t r = 0; r < std::size_t(matrices) * n; ++r) {
        Bf16 *row = scores + r * n;
        const std::size_t visible = r % n + 1;
        float maxScore = -INFINITY;
        for (std::size_t j = 0; j < visible; ++j) {
            cache[j] = fromBf16(row[j]) * scale;
            maxScore = std::max(maxScore, cache[j]);
        }
        float sum = 0;
        for (std::size_t j = 0; j < visible; ++j) {
            cache[j] = std::exp(cache[j] - maxScore);
            sum += cache[j];
        }
        const float inverse = 1.0f / sum;
        for (std::size_t j = 0; j < n; ++j)
            row[j] = cuda::toBf16(j < visible ? cache[j] * inverse : 0.0f);
    }
    return okStatus();
}

Status scaledCausalSoftmaxBackward(const Bf16 *probs, Bf16 *dProbs, int matrices, int seqLen,
                                   float scale, Stream stream)
{
    launched("scaledCausalSoftmaxBackward", stream);
    const auto n = std::size_t(seqLen);
    for (std::size_t r = 0; r < std::size_t(matrices) * n; ++r) {
        const Bf16 *p = probs + r * n;
        Bf16 *dp = dProbs + r * n;
        const std::size_t visible = r % n + 1;
        float dot = 0;
        for (std::size_t j = 0; j < visible; ++j)
            dot += fromBf16(p[j]) * fromBf16(dp[j]);
        for (std::size_t j = 0; j < n; ++j)
            dp[j] = cuda::toBf16(j < visible ? fromBf16(p[j]) * (fromBf16(dp[j]) - dot) * scale
                                             : 0.0f);
    }
    return okStatus();
}

void embeddingGather(const float *table, const TokenSource &tokens, int width, float *x,
                     Stream stream)
{
    launched("embeddingGather", stream);
    const auto w = std::size_t(width);
    for (std::size_t t = 0; t < rowsOf(tokens); ++t)
        std::memcpy(x + t * w, table + std::size_t(tokenAt(tokens, t, 0)) * w, w * sizeof(float));
}

// The kernels' index in `index` (ids, unordered rows, sorted rows; counts, starts, fill), then each
// token's group of rows added in row order.
void embeddingScatterAdd(const float *dx, const TokenSource &tokens, int width, float *grad,
                         int *index, Stream stream)
{
    launched("embeddingScatterAdd", stream);
    const std::size_t rows = rowsOf(tokens);
    const auto vocab = std::size_t(tokens.vocab);
    int *ids = index;
    int *unordered = index + rows;
    int *sorted = index + 2 * rows;
    int *counts = index + 3 * rows;
    int *starts = counts + vocab;
    int *fill = starts + vocab;
    std::fill(counts, counts + vocab, 0);
    std::fill(fill, fill + vocab, 0);
    for (std::size_t t = 0; t < rows; ++t) {
        ids[t] = tokenAt(tokens, t, 0);
        ++counts[ids[t]];
    }
    int running = 0;
    for (std::size_t v = 0; v < vocab; ++v) {
        starts[v] = running;
        running += counts[v];
    }
    // The atomics' arrival order is any order: the reverse one here.
    for (std::size_t t = rows; t-- > 0;)
        unordered[starts[ids[t]] + fill[ids[t]]++] = int(t);
    for (std::size_t t = 0; t < rows; ++t) {
        const int *group = unordered + starts[ids[t]];
        const auto rank
            = std::count_if(group, group + counts[ids[t]], [t](int row) { return row < int(t); });
        sorted[starts[ids[t]] + rank] = int(t);
    }
    const auto w = std::size_t(width);
    for (std::size_t p = 0; p < rows; ++p) {
        const int token = ids[sorted[p]];
        if (int(p) != starts[token])
            continue;
        for (int j = 0; j < counts[token]; ++j)
            addInto(grad + std::size_t(token) * w, dx + std::size_t(sorted[p + std::size_t(j)]) * w,
                    w, nullptr);
    }
}

void crossEntropy(const float *logits, const TokenSource &tokens, float lossScale, Bf16 *dLogits,
                  float *rowLoss, Stream stream)
{
    launched("crossEntropy", stream);
    const auto v = std::size_t(tokens.vocab);
    for (std::size_t t = 0; t < rowsOf(tokens); ++t) {
        const float *row = logits + t * v;
        const auto target = std::size_t(tokenAt(tokens, t, 1));
        const float maxLogit = *std::max_element(row, row + v);
        float sumExp = 0;
        for (std::size_t j = 0; j < v; ++j)
            sumExp += std::exp(row[j] - maxLogit);
        rowLoss[t] = maxLogit - row[target] + std::log(sumExp);
        for (std::size_t j = 0; j < v; ++j)
            dLogits[t * v + j] = cuda::toBf16(std::exp(row[j] - maxLogit) * (lossScale / sumExp)
                                              - (j == target ? lossScale : 0.0f));
    }
}

void adamStep(float *value, float *grad, float *m, float *v, std::size_t n, const AdamStep &step,
              Bf16 *valueBf16, Stream stream)
{
    launched("adamStep", stream);
    for (std::size_t i = 0; i < n; ++i) {
        m[i] = step.beta1 * m[i] + (1.0f - step.beta1) * grad[i];
        v[i] = step.beta2 * v[i] + (1.0f - step.beta2) * grad[i] * grad[i];
        value[i]
            -= step.stepSize * m[i] / (std::sqrt(v[i]) * step.invSqrtCorrection2 + step.epsilon);
        grad[i] = 0.0f;
        valueBf16[i] = cuda::toBf16(value[i]);
    }
}

void sgdStep(float *value, float *grad, std::size_t n, float learningRate, Bf16 *valueBf16,
             Stream stream)
{
    launched("sgdStep", stream);
    for (std::size_t i = 0; i < n; ++i) {
        value[i] -= learningRate * grad[i];
        grad[i] = 0.0f;
        valueBf16[i] = cuda::toBf16(value[i]);
    }
}

} // namespace hetplan::runtime::cuda::kernels
