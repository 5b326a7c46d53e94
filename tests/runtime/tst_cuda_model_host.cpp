// The GPU model's host-side arithmetic, which runs without a GPU: bf16 rounding, and how a
// shard's device allocations are carved into pieces.
#include "model_test_support.h"
#include "runtime/cuda/model/bf16.h"
#include "runtime/cuda/model/cuda_layer.h"
#include "runtime/cuda/model/kernels.h"
#include "runtime/cuda/model/shard_layout.h"
#include "runtime/model/rotary_embedding.h"
#include "tests/test_registry.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

using namespace hetplan;
using namespace hetplan::runtime;
using namespace hetplan::runtime::cuda;

namespace {

float roundTrip(float x)
{
    return fromBf16(toBf16(x));
}

// [offset, offset + bytes) pieces must lie inside `total`, start aligned and not overlap.
bool piecesFit(std::vector<std::pair<std::size_t, std::size_t>> pieces, std::size_t total)
{
    std::sort(pieces.begin(), pieces.end());
    std::size_t end = 0;
    for (const auto &[offset, bytes] : pieces) {
        if (offset % BufferPlan::kAlignment != 0 || offset < end || offset + bytes > total)
            return false;
        end = offset + bytes;
    }
    return true;
}

std::vector<std::pair<std::size_t, std::size_t>> layerPieces(const LayerStashLayout &l,
                                                             const ShardDims &d, int samples)
{
    const std::size_t n = d.tokens(samples);
    const auto h = std::size_t(d.hidden);
    std::vector<std::pair<std::size_t, std::size_t>> pieces{
        {l.x, n * h * 2},
        {l.invRms1, n * 4},
        {l.normed1, n * h * 2},
        {l.q, n * std::size_t(d.qWidth()) * 2},
        {l.k, n * std::size_t(d.kvWidth()) * 2},
        {l.v, n * std::size_t(d.kvWidth()) * 2},
        {l.attn, n * std::size_t(d.qWidth()) * 2},
        {l.x1, n * h * 2},
        {l.invRms2, n * 4},
        {l.normed2, n * h * 2},
        {l.up, n * std::size_t(d.ffnWidth) * 2},
    };
    if (l.gate != BufferPlan::kNone)
        pieces.emplace_back(l.gate, n * std::size_t(d.ffnWidth) * 2);
    return pieces;
}

} // namespace

class TestCudaModelHost : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void bf16RoundsToNearestEven()
    {
        QCOMPARE(toBf16(1.0f).bits, std::uint16_t(0x3f80));
        QCOMPARE(toBf16(-2.0f).bits, std::uint16_t(0xc000));
        // Halfway cases go to the even neighbour: 1 + 2⁻⁸ down, 1 + 3·2⁻⁸ up.
        QCOMPARE(toBf16(1.0f + std::ldexp(1.0f, -8)).bits, std::uint16_t(0x3f80));
        QCOMPARE(toBf16(1.0f + 3 * std::ldexp(1.0f, -8)).bits, std::uint16_t(0x3f82));
        // Just above halfway rounds up.
        QCOMPARE(toBf16(1.0f + std::ldexp(1.0f, -8) + std::ldexp(1.0f, -20)).bits,
                 std::uint16_t(0x3f81));
        // The largest float overflows to infinity; infinity and NaN survive.
        QCOMPARE(toBf16(std::numeric_limits<float>::max()).bits, std::uint16_t(0x7f80));
        QCOMPARE(roundTrip(std::numeric_limits<float>::infinity()),
                 std::numeric_limits<float>::infinity());
        QVERIFY(std::isnan(roundTrip(std::numeric_limits<float>::quiet_NaN())));
        QVERIFY(std::isnan(roundTrip(-std::numeric_limits<float>::quiet_NaN())));
    }

    void bf16KeepsEightSignificantBits()
    {
        // Relative error at most 2⁻⁸ (half an ulp of an 8-bit significand; truncating would give
        // up to 2⁻⁷) over many magnitudes.
        for (int e = -30; e <= 30; ++e) {
            for (int m = 0; m < 1000; ++m) {
                const float x = std::ldexp(1.0f + float(m) / 1000.0f, e) * (m % 2 ? -1.0f : 1.0f);
                const float back = roundTrip(x);
                QVERIFY2(std::abs(back - x) <= std::abs(x) * std::ldexp(1.0f, -8),
                         qPrintable(QString::number(double(x))));
                QCOMPARE(roundTrip(back), back); // representable values are exact
            }
        }
    }

    void shardDimsFollowTheTpCut()
    {
        const ModelConfig config = test::tinyConfig(MlpKind::SwiGlu);
        const ShardDims whole = ShardDims::of(config, 1);
        const ShardDims half = ShardDims::of(config, 2);
        QCOMPARE(whole.qWidth(), config.hidden);
        QCOMPARE(whole.kvWidth(), config.kvDim());
        QCOMPARE(half.qHeads * 2, config.heads);
        QCOMPARE(half.kvHeads * 2, config.kvHeads);
        QCOMPARE(half.ffnWidth * 2, config.ffnHidden);
        QCOMPARE(half.hidden, config.hidden); // the residual stream is not cut
        QCOMPARE(half.tokens(3), std::size_t(3 * config.seqLen));
    }

    void rotaryTableIsTheCpuModels()
    {
        const int seqLen = 7;
        const int headDim = 5; // odd: its last feature is not rotated
        const std::vector<float> table = rotaryCosSin(seqLen, headDim);
        QCOMPARE(table.size(), std::size_t(seqLen * headDim));
        for (int pos = 0; pos < seqLen; ++pos) {
            for (int i = 0; i < headDim / 2; ++i) {
                const double angle = pos * std::pow(10000.0, -2.0 * i / headDim);
                const std::size_t at = std::size_t(pos * headDim + 2 * i);
                QVERIFY(std::abs(table[at] - std::cos(angle)) < 1e-6);
                QVERIFY(std::abs(table[at + 1] - std::sin(angle)) < 1e-6);
            }
        }
        // Rotating with the table as the kernel does gives RotaryTable's bits.
        std::vector<float> x(table.size());
        for (std::size_t i = 0; i < x.size(); ++i)
            x[i] = float(i % 5) - 1.5f + float(i) / 16.0f;
        std::vector<float> expected = x;
        RotaryTable(seqLen, headDim).apply(expected.data(), 1, 1, false);
        std::vector<float> rotated = x;
        for (std::size_t at = 0; at < x.size(); at += std::size_t(headDim)) {
            for (std::size_t j = 0; j + 1 < std::size_t(headDim); j += 2) {
                const float c = table[at + j];
                const float sn = table[at + j + 1];
                rotated[at + j] = x[at + j] * c - x[at + j + 1] * sn;
                rotated[at + j + 1] = x[at + j] * sn + x[at + j + 1] * c;
            }
        }
        QCOMPARE(rotated, expected);
    }

    void stashPiecesAreAlignedAndDisjoint_data()
    {
        QTest::addColumn<int>("mlp");
        QTest::addColumn<int>("tpDegree");
        QTest::addColumn<bool>("hasHead");
        QTest::newRow("swiglu tp1 head") << int(MlpKind::SwiGlu) << 1 << true;
        QTest::newRow("swiglu tp2") << int(MlpKind::SwiGlu) << 2 << false;
        QTest::newRow("gelu tp4 head") << int(MlpKind::Gelu) << 4 << true;
    }

    void stashPiecesAreAlignedAndDisjoint()
    {
        QFETCH(int, mlp);
        QFETCH(int, tpDegree);
        QFETCH(bool, hasHead);
        const ShardDims d = ShardDims::of(test::tinyConfig(MlpKind(mlp)), tpDegree);
        const int samples = 3;
        const int layers = 2;
        const MicroBatchLayout m = MicroBatchLayout::of(d, samples, layers, hasHead);
        QVERIFY(piecesFit(layerPieces(m.layer, d, samples), m.layerBytes));
        QCOMPARE(m.layer.gate != BufferPlan::kNone, MlpKind(mlp) == MlpKind::SwiGlu);
        const std::size_t n = d.tokens(samples);
        const auto h = std::size_t(d.hidden);
        std::vector<std::pair<std::size_t, std::size_t>> whole{
            {0, std::size_t(layers) * m.layerBytes}};
        if (hasHead) {
            QCOMPARE(m.output, BufferPlan::kNone);
            whole.insert(whole.end(), {{m.head.x, n * h * 2},
                                       {m.head.invRms, n * 4},
                                       {m.head.normed, n * h * 2},
                                       {m.head.dLogits, n * std::size_t(d.vocab) * 2}});
        } else {
            QCOMPARE(m.head.x, BufferPlan::kNone);
            whole.emplace_back(m.output, n * h * 2);
        }
        QVERIFY(piecesFit(whole, m.bytes));
    }

    void scratchHasLogitsOnlyOnTheHeadShard()
    {
        const ShardDims d = ShardDims::of(test::tinyConfig(MlpKind::SwiGlu), 2);
        const ScratchLayout head = ScratchLayout::of(d, 2, true);
        const ScratchLayout body = ScratchLayout::of(d, 2, false);
        QVERIFY(head.logits != BufferPlan::kNone);
        QCOMPARE(body.logits, BufferPlan::kNone);
        const std::size_t n = d.tokens(2);
        // At the default bound the tiny model's heads are one attention chunk.
        QCOMPARE(head.attentionKvHeads, d.kvHeads);
        const std::size_t scores
            = std::size_t(d.qHeads) * std::size_t(d.seqLen) * std::size_t(d.seqLen) * 2;
        QVERIFY(piecesFit({{head.residual, n * std::size_t(d.hidden) * 4},
                           {head.scores, scores},
                           {head.dScores, scores},
                           {head.logits, n * std::size_t(d.vocab) * 4},
                           {head.inputGrad, n * std::size_t(d.hidden) * 2}},
                          head.bytes));
        QVERIFY(head.bytes >= body.bytes + n * std::size_t(d.vocab) * 4);
        // Twice the samples, twice the bytes, but for the norms' gain partials and the attention's
        // scores (one sample at a time) and the alignment padding: nothing else is sized for a
        // fixed number of samples.
        const std::size_t fixedBytes
            = std::size_t(kernels::kGainChunks) * std::size_t(d.hidden) * 4 + 2 * scores;
        QVERIFY(ScratchLayout::of(d, 4, false).bytes
                >= 2 * body.bytes - fixedBytes - 32 * BufferPlan::kAlignment);
    }

    void attentionScratchStaysWithinItsBound_data()
    {
        QTest::addColumn<int>("qHeads");
        QTest::addColumn<int>("kvHeads");
        QTest::addColumn<int>("seqLen");
        QTest::addColumn<qulonglong>("boundBytes");
        QTest::addColumn<int>("chunkKvHeads");
        const qulonglong gib = kAttentionScratchBytes;
        QTest::newRow("Llama-2 7B, seq 4096: two chunks of 16 heads")
            << 32 << 32 << 4096 << gib << 16;
        QTest::newRow("Llama-2 7B, seq 2048: one chunk") << 32 << 32 << 2048 << gib << 32;
        QTest::newRow("Llama-2 70B, seq 4096: two groups of 8 per chunk")
            << 64 << 8 << 4096 << gib << 2;
        QTest::newRow("one group above the bound still makes a chunk")
            << 8 << 1 << 32768 << gib << 1;
        QTest::newRow("a bound of one group") << 8 << 4 << 8 << qulonglong(2 * 8 * 8 * 4) << 1;
        QTest::newRow("a bound of three groups")
            << 8 << 4 << 8 << qulonglong(3 * 2 * 8 * 8 * 4) << 3;
    }

    void attentionScratchStaysWithinItsBound()
    {
        QFETCH(int, qHeads);
        QFETCH(int, kvHeads);
        QFETCH(int, seqLen);
        QFETCH(qulonglong, boundBytes);
        QFETCH(int, chunkKvHeads);
        ShardDims d = ShardDims::of(test::tinyConfig(MlpKind::SwiGlu), 1);
        d.qHeads = qHeads;
        d.kvHeads = kvHeads;
        d.seqLen = seqLen;
        QCOMPARE(attentionChunkKvHeads(d, boundBytes), chunkKvHeads);
        // bf16 scores and their gradients, seqLen² each per query head.
        const std::size_t perKvHead
            = std::size_t(d.groupSize()) * std::size_t(seqLen) * std::size_t(seqLen) * 2 * 2;
        QVERIFY(std::size_t(chunkKvHeads) * perKvHead <= boundBytes || chunkKvHeads == 1);
        const ScratchLayout s = ScratchLayout::of(d, 1, false, boundBytes);
        QCOMPARE(s.attentionKvHeads, chunkKvHeads);
        QCOMPARE(s.dScores - s.scores,
                 (std::size_t(chunkKvHeads) * perKvHead / 2 + BufferPlan::kAlignment - 1)
                     / BufferPlan::kAlignment * BufferPlan::kAlignment);
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestCudaModelHost)
#include "tst_cuda_model_host.moc"
