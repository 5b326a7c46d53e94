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

    void causalAttentionMatchesTheCpu()
    {
        // GQA: two query heads per KV head; a sequence longer than a block of threads.
        ModelConfig config = runtime::test::tinyConfig(MlpKind::SwiGlu);
        config.seqLen = 300;
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
        const ScratchLayout scratchLayout = ScratchLayout::of(dims, samples, false);
        const DeviceBuffer scratchBuffer = deviceZeros(scratchLayout.bytes);
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
        HETPLAN_COMPARE_CLOSE(attn, out, kBf16Tolerance);
        // Probabilities and dS are bf16 operands here: a few roundings more per element.
        HETPLAN_COMPARE_CLOSE(orFail(copyToHost(c.scratch.qF, qCount, nullptr)), dq, 3e-2);
        HETPLAN_COMPARE_CLOSE(orFail(copyToHost(c.scratch.kF, kvCount, nullptr)), dk, 3e-2);
        HETPLAN_COMPARE_CLOSE(orFail(copyToHost(c.scratch.vF, kvCount, nullptr)), dv, 3e-2);
        cublasDestroy(blas);
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
