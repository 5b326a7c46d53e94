// The GPU model's kernels against runtime/model's CPU kernels on random data (label gpu): the
// same bf16-exact inputs on both sides, results within bf16 rounding.
#include "cuda_model_test_support.h"
#include "gpu_test_support.h"
#include "runtime/cuda/model/cuda_layer.h"
#include "runtime/cuda/model/kernels.h"
#include "runtime/model/causal_attention.h"
#include "runtime/model/layer_kernels.h"
#include "runtime/model/model_init.h"
#include "runtime/model/rotary_embedding.h"
#include "tests/test_registry.h"

#include <cublas_v2.h>

using namespace hetplan;
using namespace hetplan::runtime;
using namespace hetplan::runtime::cuda;
using namespace hetplan::runtime::cuda::test;

namespace {

constexpr double kBf16Tolerance = 1e-2; // outputs rounded to bf16: 2⁻⁹ each, a few per result
constexpr double kFloatTolerance = 1e-5;

// The fp64 softmax of one score row at query position `position` (columns [0, position]
// visible), 0 beyond.
std::vector<double> softmaxReference(const float *scores, std::size_t seqLen, std::size_t position,
                                     float scale)
{
    std::vector<double> p(seqLen, 0.0);
    double maxScore = -INFINITY;
    for (std::size_t j = 0; j <= position; ++j)
        maxScore = std::max(maxScore, double(scale) * scores[j]);
    double sum = 0;
    for (std::size_t j = 0; j <= position; ++j)
        sum += std::exp(double(scale) * scores[j] - maxScore);
    for (std::size_t j = 0; j <= position; ++j)
        p[j] = std::exp(double(scale) * scores[j] - maxScore) / sum;
    return p;
}

// The fp64 dS = scale · P ∘ (dP − Σ P ∘ dP) of one row, and what the kernel's fp32 row sum may
// add to each element's error: a few 2⁻²⁴ of Σ |P ∘ dP| per addition (at most seqLen).
struct SoftmaxBackwardReference
{
    std::vector<double> dS;
    double fp32Bound = 0;
};

SoftmaxBackwardReference softmaxBackwardReference(const float *p, const float *dp,
                                                  std::size_t seqLen, std::size_t position,
                                                  float scale)
{
    SoftmaxBackwardReference r{std::vector<double>(seqLen, 0.0), 0.0};
    double dot = 0;
    double magnitude = 0;
    for (std::size_t j = 0; j <= position; ++j) {
        dot += double(p[j]) * dp[j];
        magnitude += std::abs(double(p[j]) * dp[j]);
    }
    for (std::size_t j = 0; j <= position; ++j)
        r.dS[j] = scale * p[j] * (dp[j] - dot);
    r.fp32Bound = scale * magnitude * double(position + 1) * 0x1p-22;
    return r;
}

// Every visible element of a kernel's bf16 row within (2⁻⁸ + 2⁻¹⁴)·|expected| + fp32Bound, and
// every masked one exactly +0. 2⁻⁸ is bf16's unit roundoff (8 significant bits, round to
// nearest); 2⁻¹⁴ leaves room for the fp32 arithmetic before it (a few 2⁻²⁴ per operation,
// relative), far below what a wrong formula makes. `row` names the row in a failure.
void compareRow(const float *actual, const std::vector<double> &expected, std::size_t position,
                double fp32Bound, std::size_t row)
{
    for (std::size_t column = 0; column < expected.size(); ++column) {
        const float x = actual[column];
        if (column > position) {
            if (x != 0.0f || std::signbit(x))
                QFAIL(qPrintable(QStringLiteral("masked row %1 column %2: %3")
                                     .arg(row)
                                     .arg(column)
                                     .arg(double(x))));
            continue;
        }
        const double bound = (0x1p-8 + 0x1p-14) * std::abs(expected[column]) + fp32Bound;
        if (!(std::abs(x - expected[column]) <= bound)) // NaN fails too
            QFAIL(qPrintable(QStringLiteral("row %1 column %2: %3, expected %4")
                                 .arg(row)
                                 .arg(column)
                                 .arg(double(x))
                                 .arg(expected[column])));
    }
}

} // namespace

class TestCudaModelKernels : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { HETPLAN_REQUIRE_GPU(); }

    void rmsNormMatchesTheCpu()
    {
        const int rows = 6;
        const int width = 300; // more than one block of threads per row
        const std::size_t n = std::size_t(rows) * width;
        const std::vector<float> x = bf16Random(n, 1, 2.0f);
        std::vector<float> gain = bf16Random(std::size_t(width), 2, 0.2f);
        for (float &g : gain)
            g += 1.0f;
        std::vector<float> normed(n);
        std::vector<float> invRms(static_cast<std::size_t>(rows));
        rmsNormForward(x.data(), gain.data(), std::size_t(rows), std::size_t(width), normed.data(),
                       invRms.data());

        const DeviceBuffer dx = deviceFloats(x);
        const DeviceBuffer dGain = deviceFloats(gain);
        const DeviceBuffer dNormed = deviceZeros(n * 2);
        const DeviceBuffer dInv = deviceZeros(std::size_t(rows) * 4);
        const DeviceBuffer dCopy = deviceZeros(n * 2);
        kernels::rmsNormForward(dx.as<float>(), dGain.as<float>(), rows, width, dNormed.as<Bf16>(),
                                dInv.as<float>(), dCopy.as<Bf16>(), nullptr);
        orFail(kernels::lastLaunchError("rmsNormForward"));
        HETPLAN_COMPARE_CLOSE(hostBf16(dNormed, n), normed, kBf16Tolerance);
        HETPLAN_COMPARE_CLOSE(hostFloats(dInv, std::size_t(rows)), invRms, kFloatTolerance);
        QCOMPARE(hostBf16(dCopy, n), x); // x is bf16-exact: the copy loses nothing

        // Backward: the GPU accumulates into dx and dGain; the CPU writes dx, accumulates dGain.
        const std::vector<float> dy = bf16Random(n, 3);
        std::vector<float> expectedDx(n);
        std::vector<float> expectedDGain(static_cast<std::size_t>(width), 0.0f);
        rmsNormBackward(dy.data(), x.data(), invRms.data(), gain.data(), std::size_t(rows),
                        std::size_t(width), expectedDx.data(), expectedDGain.data());
        const DeviceBuffer ddy = deviceFloats(dy);
        const DeviceBuffer dInvCpu = deviceFloats(invRms);
        const DeviceBuffer dDx = deviceZeros(n * 4);
        const DeviceBuffer dDGain = deviceZeros(std::size_t(width) * 4);
        const DeviceBuffer partials = deviceZeros(std::size_t(kernels::kGainChunks) * width * 4);
        kernels::rmsNormBackward(ddy.as<float>(), dCopy.as<Bf16>(), dInvCpu.as<float>(),
                                 dGain.as<float>(), rows, width, dDx.as<float>(),
                                 dDGain.as<float>(), partials.as<float>(), nullptr);
        orFail(kernels::lastLaunchError("rmsNormBackward"));
        HETPLAN_COMPARE_CLOSE(hostFloats(dDx, n), expectedDx, kFloatTolerance);
        HETPLAN_COMPARE_CLOSE(hostFloats(dDGain, std::size_t(width)), expectedDGain,
                              kFloatTolerance);
    }

    void activationsMatchTheCpu()
    {
        const std::size_t n = 5000;
        const std::vector<float> g = bf16Random(n, 4, 2.0f);
        const std::vector<float> u = bf16Random(n, 5, 2.0f);
        const std::vector<float> dh = bf16Random(n, 6);
        const DeviceBuffer dg = deviceBf16(g);
        const DeviceBuffer du = deviceBf16(u);
        const DeviceBuffer ddh = deviceFloats(dh);
        const DeviceBuffer out = deviceZeros(n * 2);
        const DeviceBuffer out2 = deviceZeros(n * 2);
        std::vector<float> h(n), dgCpu(n), duCpu(n);

        swiGluForward(g.data(), u.data(), n, h.data());
        kernels::swiGluForward(dg.as<Bf16>(), du.as<Bf16>(), n, out.as<Bf16>(), nullptr);
        HETPLAN_COMPARE_CLOSE(hostBf16(out, n), h, kBf16Tolerance);
        swiGluBackward(dh.data(), g.data(), u.data(), n, dgCpu.data(), duCpu.data());
        kernels::swiGluBackward(ddh.as<float>(), dg.as<Bf16>(), du.as<Bf16>(), n, out.as<Bf16>(),
                                out2.as<Bf16>(), nullptr);
        HETPLAN_COMPARE_CLOSE(hostBf16(out, n), dgCpu, kBf16Tolerance);
        HETPLAN_COMPARE_CLOSE(hostBf16(out2, n), duCpu, kBf16Tolerance);

        geluForward(u.data(), n, h.data());
        kernels::geluForward(du.as<Bf16>(), n, out.as<Bf16>(), nullptr);
        HETPLAN_COMPARE_CLOSE(hostBf16(out, n), h, kBf16Tolerance);
        geluBackward(dh.data(), u.data(), n, duCpu.data());
        kernels::geluBackward(ddh.as<float>(), du.as<Bf16>(), n, out.as<Bf16>(), nullptr);
        HETPLAN_COMPARE_CLOSE(hostBf16(out, n), duCpu, kBf16Tolerance);
        orFail(kernels::lastLaunchError("activations"));
    }

    void rotaryMatchesTheCpu_data()
    {
        QTest::addColumn<int>("headDim");
        QTest::newRow("even head") << 8;
        QTest::newRow("odd head (its last feature is not rotated)") << 5;
    }

    void rotaryMatchesTheCpu()
    {
        QFETCH(int, headDim);
        const int samples = 2;
        const int seqLen = 12;
        const int heads = 3;
        const std::size_t n = std::size_t(samples) * seqLen * heads * std::size_t(headDim);
        const std::vector<float> x = bf16Random(n, 7);
        const RotaryTable table(seqLen, headDim);
        const DeviceBuffer dx = deviceFloats(x);
        const DeviceBuffer cosSin = deviceFloats(rotaryCosSin(seqLen, headDim));
        const DeviceBuffer y = deviceZeros(n * 2);
        for (const bool inverse : {false, true}) {
            std::vector<float> expected = x;
            table.apply(expected.data(), samples, heads, inverse);
            kernels::rotary(dx.as<float>(), samples, seqLen, heads, headDim, cosSin.as<float>(),
                            inverse, y.as<Bf16>(), nullptr);
            orFail(kernels::lastLaunchError("rotary"));
            HETPLAN_COMPARE_CLOSE(hostBf16(y, n), expected, kBf16Tolerance);
        }
    }

    // Rows of 8 (below a warp), 37 and 300 (not a multiple of 8: one column per load, more
    // columns than threads), 1032 (16-byte loads, 129 of them per row: more than a block's
    // threads, not a multiple of 32 columns), and 1032 starting off a 16-byte boundary.
    void fusedSoftmaxMatchesFp64_data()
    {
        QTest::addColumn<int>("seqLen");
        QTest::addColumn<int>("offset"); // elements before the first row
        QTest::newRow("seq 8") << 8 << 0;
        QTest::newRow("seq 37") << 37 << 0;
        QTest::newRow("seq 300") << 300 << 0;
        QTest::newRow("seq 1032") << 1032 << 0;
        QTest::newRow("seq 1032, unaligned rows") << 1032 << 1;
    }

    void fusedSoftmaxMatchesFp64()
    {
        QFETCH(int, seqLen);
        QFETCH(int, offset);
        const int matrices = 3;
        const float scale = 0.3f;
        const auto n = std::size_t(seqLen);
        const std::size_t count = std::size_t(matrices) * n * n;
        const std::vector<float> scores = bf16Random(count + std::size_t(offset), 15, 4.0f);
        const std::vector<float> dProbs = bf16Random(count + std::size_t(offset), 16);

        const DeviceBuffer device = deviceBf16(scores);
        Bf16 *probs = device.as<Bf16>() + offset;
        orFail(kernels::scaledCausalSoftmax(probs, matrices, seqLen, scale, nullptr));
        orFail(kernels::lastLaunchError("scaledCausalSoftmax"));
        const std::vector<float> p
            = orFail(copyToHost(std::span<const Bf16>(probs, count), nullptr));
        const DeviceBuffer dDevice = deviceBf16(dProbs);
        Bf16 *dS = dDevice.as<Bf16>() + offset;
        orFail(kernels::scaledCausalSoftmaxBackward(probs, dS, matrices, seqLen, scale, nullptr));
        orFail(kernels::lastLaunchError("scaledCausalSoftmaxBackward"));
        const std::vector<float> ds = orFail(copyToHost(std::span<const Bf16>(dS, count), nullptr));
        for (std::size_t r = 0; r < std::size_t(matrices) * n && !QTest::currentTestFailed(); ++r) {
            const std::size_t position = r % n;
            const std::size_t at = r * n;
            // Beyond the relative bound: nothing but the fp32 rounding of tiny p, 2⁻²⁰ absolute.
            compareRow(p.data() + at,
                       softmaxReference(scores.data() + offset + at, n, position, scale), position,
                       0x1p-20, r);
            // From the bf16 P the forward wrote.
            const SoftmaxBackwardReference expected = softmaxBackwardReference(
                p.data() + at, dProbs.data() + offset + at, n, position, scale);
            compareRow(ds.data() + at, expected.dS, position, expected.fp32Bound, r);
        }
    }

    // Rows of 12 304 columns: 48 KiB and a little more of shared memory per block (forward: fp32,
    // backward: two bf16 per column), which a launch only gets by opting in. One matrix (300
    // MB of bf16), a few of its rows checked.
    void fusedSoftmaxTakesLongRows()
    {
        const int seqLen = 12304;
        const float scale = 0.1f;
        const auto n = std::size_t(seqLen);
        std::vector<Bf16> scores(n * n);
        std::vector<Bf16> dProbs(n * n);
        for (std::size_t i = 0; i < n * n; ++i) { // cheap pseudo-random values in [−4, 4)
            const std::uint64_t bits = (i + 1) * 0x9e3779b97f4a7c15ULL;
            scores[i] = toBf16(float((bits >> 40) % 8192) / 1024.0f - 4.0f);
            dProbs[i] = toBf16(float((bits >> 20) % 8192) / 1024.0f - 4.0f);
        }
        DeviceBuffer device;
        orFail(device.reserve(n * n * sizeof(Bf16)));
        orFail(uploadNow(device.as<void>(), std::span<const Bf16>(scores)));
        DeviceBuffer dDevice;
        orFail(dDevice.reserve(n * n * sizeof(Bf16)));
        orFail(uploadNow(dDevice.as<void>(), std::span<const Bf16>(dProbs)));
        orFail(kernels::scaledCausalSoftmax(device.as<Bf16>(), 1, seqLen, scale, nullptr));
        orFail(kernels::scaledCausalSoftmaxBackward(device.as<Bf16>(), dDevice.as<Bf16>(), 1,
                                                    seqLen, scale, nullptr));
        orFail(kernels::lastLaunchError("the fused softmax on long rows"));
        for (const std::size_t r : {0, 1, 7, 8, 4095, 6151, 12295, 12303}) {
            const auto rowOf = [&](const std::vector<Bf16> &m) {
                std::vector<float> row(n);
                for (std::size_t j = 0; j < n; ++j)
                    row[j] = fromBf16(m[r * n + j]);
                return row;
            };
            const std::vector<float> p
                = orFail(copyToHost(std::span<const Bf16>(device.as<Bf16>() + r * n, n), nullptr));
            compareRow(p.data(), softmaxReference(rowOf(scores).data(), n, r, scale), r, 0x1p-20,
                       r);
            const SoftmaxBackwardReference expected
                = softmaxBackwardReference(p.data(), rowOf(dProbs).data(), n, r, scale);
            compareRow(
                orFail(copyToHost(std::span<const Bf16>(dDevice.as<Bf16>() + r * n, n), nullptr))
                    .data(),
                expected.dS, r, expected.fp32Bound, r);
            if (QTest::currentTestFailed())
                return;
        }
    }

    void causalAttentionMatchesTheCpu_data()
    {
        QTest::addColumn<int>("kvHeads");
        QTest::addColumn<int>("seqLen");
        QTest::addColumn<int>("chunkGroups"); // KV heads per attention chunk, 0: the default
        // tinyConfig has 8 query heads; 300 is longer than a block of threads, 256 takes
        // 16-byte loads.
        QTest::newRow("GQA groups of 2, one chunk") << 4 << 300 << 0;
        QTest::newRow("GQA groups of 2, one chunk, seq 256") << 4 << 256 << 0;
        QTest::newRow("MHA in chunks of 3, 3, 2 heads") << 8 << 300 << 3;
        QTest::newRow("groups of 4, a KV head per chunk (KV stride 0)") << 2 << 256 << 1;
        QTest::newRow("groups of 4, both KV heads in one chunk (KV stride 0)") << 2 << 300 << 0;
        QTest::newRow("one KV head for all (KV stride 0)") << 1 << 300 << 0;
    }

    void causalAttentionMatchesTheCpu()
    {
        QFETCH(int, kvHeads);
        QFETCH(int, seqLen);
        QFETCH(int, chunkGroups);
        ModelConfig config = runtime::test::tinyConfig(MlpKind::SwiGlu);
        config.kvHeads = kvHeads;
        config.seqLen = seqLen;
        const ShardDims dims = ShardDims::of(config, 1);
        const int samples = 2;
        const std::size_t tokens = dims.tokens(samples);
        const std::size_t qCount = tokens * std::size_t(dims.qWidth());
        const std::size_t kvCount = tokens * std::size_t(dims.kvWidth());
        const std::vector<float> q = bf16Random(qCount, 8, 2.0f);
        const std::vector<float> k = bf16Random(kvCount, 9, 2.0f);
        const std::vector<float> v = bf16Random(kvCount, 10);
        const std::vector<float> dOut = bf16Random(qCount, 11);
        const AttentionShape shape{samples, dims.seqLen, dims.qHeads, dims.kvHeads, dims.headDim};
        std::vector<float> out(qCount), dq(qCount), dk(kvCount), dv(kvCount), scratch;
        causalAttentionForward(shape, q.data(), k.data(), v.data(), out.data(), scratch);
        causalAttentionBackward(shape, q.data(), k.data(), v.data(), dOut.data(), dq.data(),
                                dk.data(), dv.data(), scratch);

        const MicroBatchLayout layout = MicroBatchLayout::of(dims, samples, 1, false);
        const DeviceBuffer stashBuffer = deviceZeros(layout.bytes);
        const LayerStash stash = LayerStash::at(stashBuffer.as<std::byte>(), layout.layer);
        const std::size_t groupBytes = std::size_t(dims.groupSize()) * std::size_t(seqLen)
                                       * std::size_t(seqLen) * 2 * sizeof(Bf16);
        const ScratchLayout scratchLayout = ScratchLayout::of(
            dims, samples, false,
            chunkGroups == 0 ? kAttentionScratchBytes : std::size_t(chunkGroups) * groupBytes);
        QCOMPARE(scratchLayout.attentionKvHeads, chunkGroups == 0 ? kvHeads : chunkGroups);
        // Scratch garbage must not leak into a result: everything read is written first.
        const DeviceBuffer scratchBuffer
            = deviceBf16(std::vector<float>(scratchLayout.bytes / sizeof(Bf16), std::nanf("")));
        orFail(uploadNow(stash.q, std::span<const Bf16>(toBf16(q))));
        orFail(uploadNow(stash.k, std::span<const Bf16>(toBf16(k))));
        orFail(uploadNow(stash.v, std::span<const Bf16>(toBf16(v))));
        cublasHandle_t blas = nullptr;
        QCOMPARE(cublasCreate(&blas), CUBLAS_STATUS_SUCCESS);
        LayerContext c;
        c.blas = blas;
        c.dims = dims;
        c.samples = samples;
        c.scratch = Scratch::at(scratchBuffer.as<std::byte>(), scratchLayout);
        orFail(uploadNow(c.scratch.dAttn, std::span<const Bf16>(toBf16(dOut))));
        orFail(attentionForward(c, stash));
        orFail(attentionBackward(c, stash));
        const auto attn = orFail(copyToHost(std::span<const Bf16>(stash.attn, qCount), nullptr));
        // The scores are bf16 before the softmax: q, k ~ N(0, 2²) over headDim 4 make scaled
        // scores of rms 4, each off by up to 2⁻⁹ of itself (rms 4 · 2⁻⁹/√3 ≈ 0.0045), which moves
        // each probability by as much, relative. With the bf16 probabilities and output (2⁻⁹/√3
        // ≈ 0.1 % each) that is about 0.8 % relative L2 (the host emulation's figure), against
        // about 0.3 % with fp32 scores: twice kBf16Tolerance keeps a margin of 2.5.
        HETPLAN_COMPARE_CLOSE(attn, out, 2 * kBf16Tolerance);
        // Probabilities, dP and dS are bf16 operands here: a few roundings more per element.
        HETPLAN_COMPARE_CLOSE(orFail(copyToHost(c.scratch.qF, qCount, nullptr)), dq, 3e-2);
        HETPLAN_COMPARE_CLOSE(orFail(copyToHost(c.scratch.kF, kvCount, nullptr)), dk, 3e-2);
        HETPLAN_COMPARE_CLOSE(orFail(copyToHost(c.scratch.vF, kvCount, nullptr)), dv, 3e-2);
        cublasDestroy(blas);
    }

    // cuBLAS refuses a leading dimension below the row length; the Error names the GEMM's shape
    // and where it was called (cublas_status.h).
    void gemmFailureNamesTheCallAndItsPlace()
    {
        const DeviceBuffer a = deviceZeros(64 * sizeof(Bf16));
        const DeviceBuffer out = deviceZeros(64 * sizeof(float));
        cublasHandle_t blas = nullptr;
        QCOMPARE(cublasCreate(&blas), CUBLAS_STATUS_SUCCESS);
        const Status st
            = gemm(blas, Transpose::No, Transpose::No, 4, 4, 4, 1.0f, {a.as<Bf16>(), 2, 0},
                   {a.as<Bf16>(), 4, 0}, 0.0f, GemmOut::f32(out.as<float>(), 4));
        cublasDestroy(blas);
        QVERIFY(!st);
        const std::string &message = st.error().message;
        QVERIFY2(message.find("cublasGemmStridedBatchedEx (4×4×4, batch 1) failed at "
                              "runtime/cuda/model/cublas_gemm.cpp:")
                     != std::string::npos,
                 message.c_str());
    }

    void crossEntropyMatchesTheCpu()
    {
        const kernels::TokenSource tokens{17, 3, 2, 40, 1000};
        const std::size_t rows = std::size_t(tokens.samples) * std::size_t(tokens.seqLen);
        const std::size_t n = rows * std::size_t(tokens.vocab);
        const std::vector<float> logits = bf16Random(n, 12, 3.0f);
        const float lossScale = 1.0f / 640.0f;
        std::vector<int> targets(rows);
        for (std::size_t t = 0; t < rows; ++t)
            targets[t] = syntheticToken(tokens.seed, tokens.firstSample + int(t) / tokens.seqLen,
                                        int(t) % tokens.seqLen + 1, tokens.vocab);
        std::vector<float> gradient = logits;
        const double lossSum = softmaxCrossEntropy(gradient.data(), targets.data(), rows,
                                                   std::size_t(tokens.vocab), lossScale);

        const DeviceBuffer dLogits = deviceFloats(logits);
        const DeviceBuffer dGrad = deviceZeros(n * 2);
        const DeviceBuffer rowLoss = deviceZeros(rows * 4);
        kernels::crossEntropy(dLogits.as<float>(), tokens, lossScale, dGrad.as<Bf16>(),
                              rowLoss.as<float>(), nullptr);
        orFail(kernels::lastLaunchError("crossEntropy"));
        double gpuSum = 0;
        for (const float loss : hostFloats(rowLoss, rows))
            gpuSum += loss;
        QVERIFY2(std::abs(gpuSum - lossSum) <= 1e-5 * lossSum,
                 qPrintable(QStringLiteral("%1 vs %2").arg(gpuSum).arg(lossSum)));
        HETPLAN_COMPARE_CLOSE(hostBf16(dGrad, n), gradient, kBf16Tolerance);
    }

    void embeddingUsesTheCpuTokens_data()
    {
        QTest::addColumn<int>("vocab");
        QTest::addColumn<int>("width");
        QTest::newRow("few repeats") << 97 << 24;
        // Three tokens over 150 rows: groups of about 50 rows, added in row order; more than
        // one block of columns.
        QTest::newRow("long groups") << 3 << 300;
    }

    void embeddingUsesTheCpuTokens()
    {
        QFETCH(int, vocab);
        QFETCH(int, width);
        const kernels::TokenSource tokens{5, 1, 3, 50, vocab};
        const std::size_t rows = std::size_t(tokens.samples) * std::size_t(tokens.seqLen);
        const std::vector<float> table = bf16Random(std::size_t(tokens.vocab) * width, 13);
        const std::vector<float> dx = bf16Random(rows * std::size_t(width), 14);
        std::vector<float> gathered(rows * std::size_t(width));
        std::vector<float> grad(table.size(), 0.0f);
        for (std::size_t t = 0; t < rows; ++t) {
            const int token
                = syntheticToken(tokens.seed, tokens.firstSample + int(t) / tokens.seqLen,
                                 int(t) % tokens.seqLen, tokens.vocab);
            for (int i = 0; i < width; ++i) {
                gathered[t * width + std::size_t(i)]
                    = table[std::size_t(token) * width + std::size_t(i)];
                grad[std::size_t(token) * width + std::size_t(i)] += dx[t * width + std::size_t(i)];
            }
        }
        const DeviceBuffer dTable = deviceFloats(table);
        const DeviceBuffer dx_ = deviceFloats(dx);
        const DeviceBuffer x = deviceZeros(gathered.size() * 4);
        const DeviceBuffer dGrad = deviceZeros(grad.size() * 4);
        const DeviceBuffer index
            = deviceZeros(kernels::embeddingIndexInts(rows, tokens.vocab) * sizeof(int));
        kernels::embeddingGather(dTable.as<float>(), tokens, width, x.as<float>(), nullptr);
        kernels::embeddingScatterAdd(dx_.as<float>(), tokens, width, dGrad.as<float>(),
                                     index.as<int>(), nullptr);
        orFail(kernels::lastLaunchError("embedding"));
        QCOMPARE(hostFloats(x, gathered.size()), gathered); // the device's tokens are the CPU's
        QCOMPARE(hostFloats(dGrad, grad.size()), grad);     // added in the same (row) order
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestCudaModelKernels)
#include "tst_cuda_model_kernels.moc"
