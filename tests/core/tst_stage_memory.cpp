// The `hetplan` training memory of one GPU by category (docs/cost-models.md "Memory of a
// training stage"): what each category charges per parameter and per token. The runtime's side
// of the same figures is tests/runtime/tst_memory_agreement.cpp.

#include "core/cost/hetplan_memory.h"
#include "core/io/catalog_json.h"
#include "cost_test_fixtures.h"
#include "tests/test_registry.h"

#include <QtTest>

using namespace hetplan;
using namespace hetplan::testing;

namespace {

Problem llama7b(Precision precision, Recompute recompute, bool shardOptimizer = false)
{
    const ModelSpec *llama = builtinModelCatalog().find("llama2-7b");
    if (!llama)
        qFatal("llama2-7b missing from the model catalog");
    Problem p;
    p.model = *llama;
    p.workload.mode = Mode::Train;
    p.workload.train.seqLen = 4096;
    p.workload.train.precision = precision;
    p.workload.train.recompute = recompute;
    p.workload.train.shardOptimizer = shardOptimizer;
    return p;
}

// One stage of `tp` × `dp` GPUs holding layers [begin, end) at `index` of `count`.
StageMemoryBytes memoryOf(const Problem &p, int tp, int begin, int end, int index, int count,
                          int dp = 1)
{
    Stage stage;
    stage.gpus.resize(std::size_t(tp * dp));
    stage.tp = tp;
    stage.dp = dp;
    stage.layerBegin = begin;
    stage.layerEnd = end;
    return trainingStageMemory(p, queryOf(stage, 1, index, count, 8), dp, 0, {});
}

double stateBytes(const StageMemoryBytes &m)
{
    return m.weightBytes + m.gradientBytes + m.optimizerBytes;
}

} // namespace

class TestStageMemory : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // Every GPU of a TP group holds the whole embedding and head, as the runtime does.
    void endsAreReplicatedOverTp()
    {
        const Problem p = llama7b(Precision::Bf16, Recompute::Selective);
        Stage stage;
        stage.gpus.resize(8);
        stage.tp = 8;
        stage.layerBegin = 0;
        stage.layerEnd = 4;
        const double h = p.model.hidden;
        const double layer = (p.model.paramsPerLayer() - 2 * h) / 8 + 2 * h;
        QCOMPARE(stageParamsPerGpu(p.model, queryOf(stage, 1, 0, 1)),
                 4 * layer + p.model.embeddingParams() + p.model.headParams());
        QCOMPARE(stageParamsPerGpu(p.model, queryOf(stage, 1, 1, 3)), 4 * layer);
    }

    // bf16 Adam: 2 + 4 (master) + 4 (fp32 gradient) + 8 (moments) = 18 bytes per parameter;
    // fp32 Adam 16; ZeRO-1 divides the master copy and the moments by the replicas.
    void bytesPerParameter_data()
    {
        QTest::addColumn<int>("precision"); // a Precision
        QTest::addColumn<bool>("shard");
        QTest::addColumn<double>("bytesPerParam");
        QTest::newRow("bf16") << int(Precision::Bf16) << false << 18.0;
        QTest::newRow("fp32") << int(Precision::Fp32) << false << 16.0;
        QTest::newRow("bf16 ZeRO-1 over 4") << int(Precision::Bf16) << true << 2 + 4 + 12.0 / 4;
    }

    void bytesPerParameter()
    {
        QFETCH(int, precision);
        QFETCH(bool, shard);
        QFETCH(double, bytesPerParam);
        const Problem p = llama7b(Precision(precision), Recompute::Selective, shard);
        const StageMemoryBytes m = memoryOf(p, 2, 0, 8, 1, 4, 4);
        Stage stage;
        stage.gpus.resize(2);
        stage.tp = 2;
        stage.layerEnd = 8;
        const double params = stageParamsPerGpu(p.model, queryOf(stage, 1, 1, 4));
        QVERIFY(qFuzzyCompare(stateBytes(m), bytesPerParam * params));
        QVERIFY(qFuzzyCompare(m.gradientBytes, 4 * params));
    }

    // The layer stash counted by tensor: Llama-2 7B at TP 1 keeps 16·H + 4·F bytes per token
    // (bf16) plus two fp32 1/rms, below Korthikanti's 34·H for GPT-style layers with dropout.
    void selectiveStashIsTheLayersTensors()
    {
        const Problem p = llama7b(Precision::Bf16, Recompute::Selective);
        const StageMemoryBytes one = memoryOf(p, 1, 0, 1, 1, 3); // a middle stage, 1 layer
        const StageMemoryBytes two = memoryOf(p, 1, 0, 2, 1, 3); // the same with 2 layers
        // One layer more, for each of the two micro-batches in flight at stage 1 of 3.
        const double perLayerPerMicroBatch = (two.activationBytes - one.activationBytes) / 2;
        const double h = p.model.hidden;
        const double f = p.model.ffnHidden;
        QCOMPARE(perLayerPerMicroBatch, 4096 * (16 * h + 4 * f + 8));
        QVERIFY(perLayerPerMicroBatch < 4096 * 34 * h);
    }

    void recomputationOrdersTheActivations()
    {
        double bytes[3];
        const Recompute modes[] = {Recompute::None, Recompute::Selective, Recompute::Full};
        for (int i = 0; i < 3; ++i)
            bytes[i] = memoryOf(llama7b(Precision::Bf16, modes[i]), 1, 0, 8, 0, 4).activationBytes;
        QVERIFY(bytes[0] > bytes[1] && bytes[1] > bytes[2]);
    }

    // The last stage holds the fp32 logits (and per-token losses) over the whole vocabulary
    // whatever its TP degree.
    void lastStageLogitsAreWhole()
    {
        const Problem p = llama7b(Precision::Bf16, Recompute::Selective);
        for (int tp : {1, 4}) {
            const double last = memoryOf(p, tp, 0, 1, 1, 2).workingBytes;
            const double first = memoryOf(p, tp, 0, 1, 0, 2).workingBytes;
            QCOMPARE(last - first, 4096.0 * 4 * (p.model.vocab + 1));
        }
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestStageMemory)
#include "tst_stage_memory.moc"
