// CudaShard against ModelShard (label gpu): one shard's forward and backward, a pipeline cut, two
// TP halves and three Adam steps, all on the same seed and batch as the CPU model.
#include "cuda_model_test_support.h"
#include "gpu_test_support.h"
#include "runtime/cuda/model/cuda_shard.h"
#include "runtime/cuda/model/in_process_tp.h"
#include "runtime/model/model_init.h"
#include "runtime/model/model_shard.h"
#include "runtime/model/weight_set.h"
#include "tests/test_registry.h"

#include <random>
#include <thread>

using namespace hetplan;
using namespace hetplan::runtime;
using namespace hetplan::runtime::cuda;
using namespace hetplan::runtime::cuda::test;

Q_DECLARE_METATYPE(hetplan::MlpKind)
Q_DECLARE_METATYPE(hetplan::Optimizer)

namespace {

constexpr double kLossTolerance = 1e-3;     // relative; bf16 logits move the loss very little
constexpr double kGradientTolerance = 3e-2; // relative L2 per tensor, through two bf16 layers

TrainingSetup setup()
{
    TrainingSetup s;
    s.seed = 23;
    s.globalBatch = 4;
    return s;
}

const std::vector<SampleSpan> kMicroBatches{{0, 2}, {2, 2}};

struct Outcome
{
    std::vector<double> losses; // per iteration
    WeightSet gradients;        // of the first iteration
};

Outcome cpuTraining(const ModelConfig &config, int iterations)
{
    ModelShard shard = orFail(ModelShard::create(config, wholeModel(config), setup()));
    SoloTpComm solo;
    Outcome outcome;
    for (int it = 0; it < iterations; ++it) {
        double loss = 0;
        for (std::size_t m = 0; m < kMicroBatches.size(); ++m) {
            loss += orFail(shard.forward(int(m), kMicroBatches[m], {}, solo)).lossContribution;
            orFail(shard.backward(int(m), {}, solo));
        }
        outcome.losses.push_back(loss);
        if (it == 0)
            placeShard(outcome.gradients, shard, ShardBuffer::Gradients);
        shard.optimizerStep();
    }
    return outcome;
}

void placeGradients(WeightSet &set, const CudaShard &shard)
{
    for (const DeviceParameter &p : shard.parameters())
        placeSlice(set, p.tensor, p.slice, orFail(copyToHost(p.grad, p.count, shard.stream())));
}

// The whole model as `tpDegree` CudaShards, one thread and stream each.
Outcome gpuTraining(const ModelConfig &config, int tpDegree, int iterations,
                    std::vector<WeightSet> *replicatedGradients = nullptr)
{
    const RankStreams streams(static_cast<std::size_t>(tpDegree));
    std::vector<CudaShard> shards;
    for (int t = 0; t < tpDegree; ++t) {
        ShardSpec spec = wholeModel(config);
        spec.tpIndex = t;
        spec.tpDegree = tpDegree;
        shards.push_back(orFail(CudaShard::create(config, spec, setup(), streams[std::size_t(t)])));
    }
    InProcessTpGroup group(tpDegree);
    Outcome outcome;
    for (int it = 0; it < iterations; ++it) {
        // One iteration of rank t: every micro-batch forward and backward; its loss, or an error.
        const auto iteration = [&](int t) -> Result<double> {
            CudaShard &shard = shards[std::size_t(t)];
            double loss = 0;
            for (std::size_t m = 0; m < kMicroBatches.size(); ++m) {
                auto out = shard.forward(int(m), kMicroBatches[m], {}, group.rank(t));
                if (!out)
                    return out.error();
                if (auto back = shard.backward(int(m), {}, group.rank(t)); !back)
                    return back.error();
                loss += out->lossContribution;
            }
            return loss;
        };
        std::vector<Result<double>> losses;
        for (int t = 0; t < tpDegree; ++t)
            losses.emplace_back(0.0);
        {
            std::vector<std::jthread> ranks;
            for (int t = 0; t < tpDegree; ++t)
                ranks.emplace_back([&, t] { losses[std::size_t(t)] = iteration(t); });
        }
        for (const Result<double> &loss : losses)
            orFail(loss);
        outcome.losses.push_back(*losses[0]);
        if (it == 0) {
            for (const CudaShard &shard : shards) {
                placeGradients(outcome.gradients, shard);
                if (replicatedGradients == nullptr)
                    continue;
                WeightSet replicated;
                for (const DeviceParameter &p : shard.parameters()) {
                    if (p.tensor.cut == TpCut::Replicated)
                        replicated[p.tensor.name]
                            = orFail(copyToHost(p.grad, p.count, shard.stream()));
                }
                replicatedGradients->push_back(std::move(replicated));
            }
        }
        for (CudaShard &shard : shards)
            orFail(shard.optimizerStep());
    }
    return outcome;
}

void compareLosses(const std::vector<double> &actual, const std::vector<double> &expected)
{
    QCOMPARE(actual.size(), expected.size());
    for (std::size_t i = 0; i < actual.size(); ++i)
        QVERIFY2(std::abs(actual[i] - expected[i]) <= kLossTolerance * expected[i],
                 qPrintable(QStringLiteral("iteration %1: loss %2, expected %3")
                                .arg(i)
                                .arg(actual[i])
                                .arg(expected[i])));
}

void compareGradients(const WeightSet &actual, const WeightSet &expected, double tolerance)
{
    QCOMPARE(actual.size(), expected.size());
    for (const auto &[name, values] : expected) {
        const auto found = actual.find(name);
        QVERIFY2(found != actual.end(), name.c_str());
        const double error = relativeError(found->second, values);
        QVERIFY2(error <= tolerance, qPrintable(QStringLiteral("%1: relative error %2")
                                                    .arg(QString::fromStdString(name))
                                                    .arg(error)));
    }
}

} // namespace

class TestCudaModel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        HETPLAN_REQUIRE_GPU();
        setBlasThreads(1);
    }

    void shardMatchesTheCpuModel_data()
    {
        QTest::addColumn<MlpKind>("mlp");
        QTest::newRow("swiglu") << MlpKind::SwiGlu;
        QTest::newRow("gelu") << MlpKind::Gelu;
    }

    void shardMatchesTheCpuModel()
    {
        QFETCH(MlpKind, mlp);
        const ModelConfig config = runtime::test::tinyConfig(mlp);
        const Outcome cpu = cpuTraining(config, 1);
        const Outcome gpu = gpuTraining(config, 1, 1);
        compareLosses(gpu.losses, cpu.losses);
        compareGradients(gpu.gradients, cpu.gradients, kGradientTolerance);
    }

    void pipelineStagesPassBf16Activations()
    {
        const ModelConfig config = runtime::test::tinyConfig(MlpKind::SwiGlu);
        const Outcome cpu = cpuTraining(config, 1);
        const RankStreams streams(1);
        {
            const ShardSpec first{0, 1, 0, 1, true, false};
            const ShardSpec last{1, 2, 0, 1, false, true};
            CudaShard a = orFail(CudaShard::create(config, first, setup(), streams[0]));
            CudaShard b = orFail(CudaShard::create(config, last, setup(), streams[0]));
            SoloDeviceTpComm solo;
            double loss = 0;
            // Both micro-batches forward first (as a pipeline schedule may), then both backward.
            for (std::size_t m = 0; m < kMicroBatches.size(); ++m) {
                const DeviceForwardOutput out
                    = orFail(a.forward(int(m) + 1, kMicroBatches[m], {}, solo));
                QCOMPARE(out.activations.size(),
                         std::size_t(config.tokens(kMicroBatches[m].count)) * config.hidden);
                loss += orFail(b.forward(int(m) + 1, kMicroBatches[m], out.activations, solo))
                            .lossContribution;
            }
            QCOMPARE(a.microBatchesInFlight(), 2);
            for (std::size_t m = 0; m < kMicroBatches.size(); ++m) {
                const std::span<const Bf16> grad = orFail(b.backward(int(m) + 1, {}, solo));
                QVERIFY(orFail(a.backward(int(m) + 1, grad, solo)).empty());
            }
            QCOMPARE(a.microBatchesInFlight(), 0);
            compareLosses({loss}, cpu.losses);
            WeightSet gradients;
            placeGradients(gradients, a);
            placeGradients(gradients, b);
            compareGradients(gradients, cpu.gradients, kGradientTolerance);
        }
    }

    void tpHalvesMatchOneShard()
    {
        const ModelConfig config = runtime::test::tinyConfig(MlpKind::SwiGlu);
        const Outcome whole = gpuTraining(config, 1, 1);
        std::vector<WeightSet> replicated;
        const Outcome halves = gpuTraining(config, 2, 1, &replicated);
        compareLosses(halves.losses, whole.losses);
        compareGradients(halves.gradients, whole.gradients, 2e-2);
        // Both ranks computed the replicated tensors from the same all-reduced sums.
        QCOMPARE(replicated.size(), std::size_t(2));
        QVERIFY(replicated[0] == replicated[1]);
    }

    void adamLowersTheLossLikeTheCpu()
    {
        const ModelConfig config = runtime::test::tinyConfig(MlpKind::SwiGlu);
        const Outcome cpu = cpuTraining(config, 3);
        const Outcome gpu = gpuTraining(config, 1, 3);
        compareLosses(gpu.losses, cpu.losses);
        const double cpuDrop = cpu.losses.front() - cpu.losses.back();
        const double gpuDrop = gpu.losses.front() - gpu.losses.back();
        QVERIFY(cpuDrop > 0);
        QVERIFY2(std::abs(gpuDrop - cpuDrop) <= 0.1 * cpuDrop,
                 qPrintable(QStringLiteral("loss fell by %1 on the GPU, %2 on the CPU")
                                .arg(gpuDrop)
                                .arg(cpuDrop)));
    }

    void optimizerStepIsTheCpuArithmetic_data()
    {
        QTest::addColumn<Optimizer>("optimizer");
        QTest::newRow("adam") << Optimizer::Adam;
        QTest::newRow("sgd") << Optimizer::Sgd;
    }

    void optimizerStepIsTheCpuArithmetic()
    {
        // Equal gradients give bit-equal weights: the kernels round each operation as adam.cpp.
        QFETCH(Optimizer, optimizer);
        const ModelConfig config = runtime::test::tinyConfig(MlpKind::Gelu);
        TrainingSetup training = setup();
        training.optimizer = optimizer;
        ModelShard cpu = orFail(ModelShard::create(config, wholeModel(config), training));
        CudaShard gpu = orFail(CudaShard::create(config, wholeModel(config), training, nullptr));
        for (int step = 0; step < 2; ++step) {
            unsigned seed = 100 + unsigned(step) * 50;
            for (Parameter &p : cpu.parameters()) {
                p.grad = bf16Random(p.grad.size(), ++seed, 1e-3f);
                const DeviceParameter *d = gpu.findParameter(p.tensor.name);
                QVERIFY(d != nullptr);
                orFail(uploadNow(d->grad, p.grad));
            }
            cpu.optimizerStep();
            orFail(gpu.optimizerStep());
        }
        for (const Parameter &p : cpu.parameters()) {
            const DeviceParameter *d = gpu.findParameter(p.tensor.name);
            QCOMPARE(orFail(copyToHost(d->value, d->count, nullptr)), p.value);
            QCOMPARE(orFail(copyToHost(d->grad, d->count, nullptr)),
                     std::vector<float>(p.value.size(), 0.0f));
            std::vector<float> rounded(p.value.size());
            for (std::size_t i = 0; i < rounded.size(); ++i)
                rounded[i] = fromBf16(toBf16(p.value[i]));
            QCOMPARE(orFail(copyToHost(std::span<const Bf16>(d->valueBf16, d->count), nullptr)),
                     rounded);
        }
    }

    // The weights made on the device are model_init's, bit for bit, in every slice: a TP half
    // (its slices start inside the full tensors) of a stage without the embedding.
    void initialWeightsAreTheCpuModels()
    {
        const ModelConfig config = runtime::test::tinyConfig(MlpKind::SwiGlu);
        const ShardSpec half{1, 2, 1, 2, false, true};
        CudaShard gpu = orFail(CudaShard::create(config, half, setup(), nullptr));
        QVERIFY(!gpu.parameters().empty());
        for (const DeviceParameter &d : gpu.parameters()) {
            std::vector<float> expected(d.count);
            initialWeights(d.tensor, config.layers, setup().seed, d.slice, expected);
            QCOMPARE(orFail(copyToHost(d.value, d.count, nullptr)), expected);
            std::vector<float> rounded(d.count);
            for (std::size_t i = 0; i < rounded.size(); ++i)
                rounded[i] = fromBf16(toBf16(expected[i]));
            QCOMPARE(orFail(copyToHost(std::span<const Bf16>(d.valueBf16, d.count), nullptr)),
                     rounded);
        }
    }

    void misuseIsAnError()
    {
        const ModelConfig config = runtime::test::tinyConfig(MlpKind::SwiGlu);
        CudaShard shard = orFail(CudaShard::create(config, wholeModel(config), setup(), nullptr));
        SoloDeviceTpComm solo;
        QVERIFY(!shard.backward(0, {}, solo));        // no forward awaits it
        QVERIFY(!shard.forward(0, {3, 2}, {}, solo)); // outside the global batch
        QVERIFY(orFail(shard.forward(0, {0, 1}, {}, solo)).lossContribution > 0);
        QVERIFY(!shard.forward(0, {1, 1}, {}, solo)); // micro-batch 0 is in flight
        QVERIFY(shard.bytesHeld() > 0);
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestCudaModel)
#include "tst_cuda_model.moc"
