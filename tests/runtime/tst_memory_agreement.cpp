// The `hetplan` memory model against what the GPU runtime allocates (docs/cost-models.md
// "Memory of a training stage"): CudaShard's allocation table, category by category, beside
// trainingStageMemory for the same stage. Runs against the host emulation of CUDA (the shard's
// host code makes the very allocations it makes on a GPU) and on a GPU alike.

#include "core/cost/hetplan_memory.h"
#include "cuda_model_test_support.h"
#include "tests/core/cost_test_fixtures.h"
#include "tests/test_registry.h"

#include <QtTest>

#include <cmath>

using namespace hetplan;
using namespace hetplan::runtime;
using namespace hetplan::runtime::cuda;
using namespace hetplan::runtime::cuda::test;

namespace {

// Weights, gradients and moments differ only by each piece's 256-byte alignment.
constexpr double kStateTolerance = 0.005;
// The stash differs by alignment too.
constexpr double kActivationTolerance = 0.01;
// The runtime's scratch also holds the norms' per-chunk gain sums, the embedding's token index
// and the rotary table (under 4 % at this size), which the model leaves to its overhead.
constexpr double kWorkingTolerance = 0.05;

ModelConfig config()
{
    ModelConfig c;
    c.name = "memory-agreement";
    c.layers = 4;
    c.hidden = 256;
    c.heads = 4;
    c.kvHeads = 2; // grouped-query attention: k and v narrower than q
    c.ffnHidden = 688;
    c.vocab = 1000;
    c.seqLen = 128;
    c.mlp = MlpKind::SwiGlu;
    return c;
}

Problem problemOf(const ModelConfig &c)
{
    Problem p;
    p.model.name = c.name;
    p.model.layers = c.layers;
    p.model.hidden = c.hidden;
    p.model.heads = c.heads;
    p.model.kvHeads = c.kvHeads;
    p.model.ffnHidden = c.ffnHidden;
    p.model.vocab = c.vocab;
    p.model.maxSeqLen = c.seqLen;
    p.model.mlp = c.mlp;
    p.workload.mode = Mode::Train;
    p.workload.train.seqLen = c.seqLen;
    p.workload.train.globalBatch = 4;
    p.workload.train.precision = Precision::Bf16;
    // The runtime recomputes the attention probabilities in backward (measured_run.cpp).
    p.workload.train.recompute = Recompute::Selective;
    p.workload.train.optimizer = Optimizer::Adam;
    return p;
}

TrainingSetup setup()
{
    TrainingSetup s;
    s.seed = 5;
    s.globalBatch = 4;
    return s;
}

constexpr int kSamples = 2; // per micro-batch

// The model's figures for one GPU of the stage `shard` is, at `stageIndex` of `stageCount`.
StageMemoryBytes modelOf(const ModelConfig &c, const ShardSpec &shard, int stageIndex,
                         int stageCount, int microBatches)
{
    Stage stage;
    stage.gpus.resize(std::size_t(shard.tpDegree));
    stage.tp = shard.tpDegree;
    stage.layerBegin = shard.layerBegin;
    stage.layerEnd = shard.layerEnd;
    return trainingStageMemory(
        problemOf(c), testing::queryOf(stage, kSamples, stageIndex, stageCount, microBatches), 1, 0,
        {});
}

void compareCategory(const char *name, std::size_t runtimeBytes, double modelBytes,
                     double tolerance)
{
    const double deviation = std::abs(double(runtimeBytes) - modelBytes) / modelBytes;
    qInfo("%s: runtime %zu bytes, model %.0f (%.2f %%)", name, runtimeBytes, modelBytes,
          100 * deviation);
    QVERIFY2(deviation <= tolerance,
             qPrintable(QStringLiteral("%1: the runtime holds %2 bytes, the model charges %3 "
                                       "(%4 %, tolerance %5 %)")
                            .arg(QLatin1String(name))
                            .arg(runtimeBytes)
                            .arg(modelBytes, 0, 'f', 0)
                            .arg(100 * deviation, 0, 'f', 2)
                            .arg(100 * tolerance, 0, 'f', 1)));
}

void compareState(const DeviceMemoryTable &runtime, const StageMemoryBytes &model)
{
    compareCategory("weights", runtime.weightBytes, model.weightBytes, kStateTolerance);
    compareCategory("gradients", runtime.gradientBytes, model.gradientBytes, kStateTolerance);
    compareCategory("optimizer state", runtime.optimizerBytes, model.optimizerBytes,
                    kStateTolerance);
}

void compareAll(const DeviceMemoryTable &runtime, const StageMemoryBytes &model)
{
    compareState(runtime, model);
    compareCategory("activations", runtime.activationBytes, model.activationBytes,
                    kActivationTolerance);
    compareCategory("working buffers", runtime.workingBytes, model.workingBytes, kWorkingTolerance);
}

} // namespace

class TestMemoryAgreement : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // 1F1B's first stage of two holds both micro-batches' stashes before the first backward.
    void firstStageHoldsTwoMicroBatches()
    {
        const ModelConfig c = config();
        const ShardSpec shard{0, 2, 0, 1, true, false};
        CudaShard gpu = orFail(CudaShard::create(c, shard, setup(), nullptr));
        SoloDeviceTpComm solo;
        for (int m = 0; m < 2; ++m)
            orFail(gpu.forward(m, {m * kSamples, kSamples}, {}, solo));
        QCOMPARE(gpu.microBatchesInFlight(), 2);
        compareAll(gpu.memoryTable(), modelOf(c, shard, 0, 2, 2));
    }

    // The last stage: the head's logits (fp32, whole vocabulary) and their gradient.
    void lastStageHoldsTheHead()
    {
        const ModelConfig c = config();
        const ShardSpec shard{2, 4, 0, 1, false, true};
        CudaShard gpu = orFail(CudaShard::create(c, shard, setup(), nullptr));
        SoloDeviceTpComm solo;
        const std::size_t count = std::size_t(kSamples) * std::size_t(c.seqLen * c.hidden);
        const DeviceBuffer input = deviceBf16(std::vector<float>(count, 0.5f));
        orFail(gpu.forward(0, {0, kSamples}, {input.as<Bf16>(), count}, solo));
        QCOMPARE(gpu.microBatchesInFlight(), 1);
        compareAll(gpu.memoryTable(), modelOf(c, shard, 1, 2, 2));
    }

    // Every rank of a TP group holds the whole embedding and head; the model charges them so.
    void tpRanksHoldTheEndsWhole()
    {
        const ModelConfig c = config();
        for (int tpIndex = 0; tpIndex < 2; ++tpIndex) {
            const ShardSpec shard{0, c.layers, tpIndex, 2, true, true};
            const CudaShard gpu = orFail(CudaShard::create(c, shard, setup(), nullptr));
            compareState(gpu.memoryTable(), modelOf(c, shard, 0, 1, 1));
        }
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestMemoryAgreement)
#include "tst_memory_agreement.moc"
