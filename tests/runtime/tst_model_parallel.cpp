// Cutting the model must not change the training: TP shards, pipeline stages, micro-batches and
// data-parallel row splits all give the single-process result, and the same seed the same run.
//
// Tolerances (fp32; weight_set.h has the library's, which the distributed runs use too):
// - loss: relative 1e-5 (measured ≤ 3e-8: the loss sums are in double);
// - gradients: 1e-5 × the tensor's largest |gradient| per element (measured ≤ 4e-7: the row-
//   parallel partial sums are added in another order than one GEMM adds them);
// - weights after Adam: 1% of the learning rate per iteration, with 1 in 10⁴ elements allowed two
//   steps per iteration (measured after one step ≤ 4e-7; after three at --scale 32, 6 of 940,320
//   elements above 1e-5, the largest 9.6e-5). Adam divides by √v, so an element whose gradient is
//   near zero turns a rounding difference into a visible fraction of a step: the bound follows lr,
//   not the weight.
// Cuts that keep every sum in the same order (pipeline stages at one TP rank) are exact.
#include "model_test_support.h"
#include "runtime/model/reference_run.h"
#include "tests/test_registry.h"

#include <QtTest>

#include <cmath>

using namespace hetplan;
using namespace hetplan::runtime;
using namespace hetplan::runtime::test;

Q_DECLARE_METATYPE(hetplan::MlpKind)

namespace {

constexpr WeightTolerance kGradientTolerance{0, 0, 1e-5};
const WeightTolerance kWeightTolerance = adamWeightTolerance(1e-3f, 1);

void verifyOk(const Status &status)
{
    if (!status)
        QFAIL(status.error().message.c_str());
}

void compareLoss(double actual, double expected)
{
    QVERIFY2(std::abs(actual - expected) <= kLossRelativeTolerance * std::abs(expected),
             qPrintable(QStringLiteral("loss %1, expected %2")
                            .arg(actual, 0, 'g', 10)
                            .arg(expected, 0, 'g', 10)));
}

// Forward and backward of `microBatches` through stages (T = 1) that hand activations forward and
// gradients back, as a pipeline does; returns the loss.
double runStages(std::vector<ModelShard> &stages, const std::vector<SampleSpan> &microBatches)
{
    SoloTpComm solo;
    double loss = 0;
    for (std::size_t m = 0; m < microBatches.size(); ++m) {
        std::vector<float> activations;
        for (ModelShard &stage : stages) {
            ForwardOutput out = orFail(stage.forward(int(m), microBatches[m], activations, solo));
            activations = std::move(out.activations);
            loss += out.lossContribution;
        }
        std::vector<float> gradient;
        for (auto stage = stages.rbegin(); stage != stages.rend(); ++stage)
            gradient = orFail(stage->backward(int(m), gradient, solo));
        if (!gradient.empty())
            qFatal("the first stage returned an input gradient");
    }
    return loss;
}

// The summed gradients of several DP-style replicas, each its own whole model on its rows.
WeightSet replicaGradientSum(const ModelConfig &c, const TrainingSetup &setup,
                             const std::vector<SampleSpan> &replicaRows, double &loss)
{
    WeightSet sum;
    loss = 0;
    for (const SampleSpan &rows : replicaRows) {
        std::vector<ModelShard> replica;
        replica.push_back(orFail(ModelShard::create(c, wholeModel(c), setup)));
        loss += runStages(replica, {rows});
        for (const Parameter &p : replica[0].parameters()) {
            std::vector<float> &total = sum[p.tensor.name];
            total.resize(p.grad.size(), 0.0f);
            for (std::size_t i = 0; i < total.size(); ++i)
                total[i] += p.grad[i];
        }
    }
    return sum;
}

} // namespace

class TestModelParallel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { setBlasThreads(1); }
    void tensorParallelEqualsOneShard_data();
    void tensorParallelEqualsOneShard();
    void pipelineStagesEqualTheWholeModel();
    void tpStageFeedsAStageWithoutTp();
    void microBatchesEqualOneBatch();
    void anyCutOfTheRowsGivesTheSameGradientSum();
    void referenceRunTrainsAndRepeats();
    void threeIterationsAtScaleMatchTheReference();
    void misuseIsAnErrorNotACrash();
};

void TestModelParallel::tensorParallelEqualsOneShard_data()
{
    QTest::addColumn<MlpKind>("mlp");
    QTest::addColumn<int>("tp");
    QTest::newRow("SwiGLU TP 2") << MlpKind::SwiGlu << 2;
    QTest::newRow("SwiGLU TP 4") << MlpKind::SwiGlu << 4;
    QTest::newRow("GELU TP 2") << MlpKind::Gelu << 2;
    QTest::newRow("GELU TP 4") << MlpKind::Gelu << 4;
}

void TestModelParallel::tensorParallelEqualsOneShard()
{
    QFETCH(MlpKind, mlp);
    QFETCH(int, tp);
    const ModelConfig c = tinyConfig(mlp);
    const TrainingSetup setup{11, 3, {}};
    const std::vector<SampleSpan> microBatches{{0, 2}, {2, 1}};
    const StepOutcome one = tpTrainingStep(c, setup, 1, microBatches);
    const StepOutcome cut = tpTrainingStep(c, setup, tp, microBatches);
    compareLoss(cut.loss, one.loss);
    verifyOk(compareWeightSets(one.gradients, cut.gradients, kGradientTolerance, "gradients"));
    verifyOk(compareWeightSets(one.weights, cut.weights, kWeightTolerance, "updated weights"));
    // Replicated tensors (norms, embedding, head) must stay identical inside the TP group, or
    // the ranks' copies drift apart over the iterations.
    for (int t = 1; t < tp; ++t) {
        verifyOk(compareWeightSets(cut.replicatedGradients[0],
                                   cut.replicatedGradients[std::size_t(t)], {},
                                   "replicated gradients of TP rank " + std::to_string(t)));
    }
}

void TestModelParallel::pipelineStagesEqualTheWholeModel()
{
    const ModelConfig c = tinyConfig(MlpKind::SwiGlu);
    const TrainingSetup setup{5, 4, {}};
    const std::vector<SampleSpan> microBatches{{0, 1}, {1, 2}, {3, 1}};
    std::vector<ModelShard> whole;
    whole.push_back(orFail(ModelShard::create(c, wholeModel(c), setup)));
    // Three stages: embedding + layer 0, layer 1, then the head alone.
    std::vector<ModelShard> stages;
    for (const ShardSpec &spec :
         {ShardSpec{0, 1, 0, 1, true, false}, ShardSpec{1, 2, 0, 1, false, false},
          ShardSpec{2, 2, 0, 1, false, true}})
        stages.push_back(orFail(ModelShard::create(c, spec, setup)));

    QCOMPARE(runStages(stages, microBatches), runStages(whole, microBatches));
    WeightSet wholeGrads, stageGrads;
    placeShard(wholeGrads, whole[0], ShardBuffer::Gradients);
    for (const ModelShard &stage : stages)
        placeShard(stageGrads, stage, ShardBuffer::Gradients);
    verifyOk(compareWeightSets(wholeGrads, stageGrads, {}, "stage gradients"));
    QCOMPARE(stages[0].microBatchesInFlight(), 0);
}

// The "TP 2 in one stage and TP 1 in the next": every TP rank of the first stage ends
// with bit-identical output activations (so its leader alone may send them), and the second
// stage's input gradient, given to both, brings the same gradients as the whole model.
void TestModelParallel::tpStageFeedsAStageWithoutTp()
{
    const ModelConfig c = tinyConfig(MlpKind::SwiGlu);
    const TrainingSetup setup{8, 2, {}};
    const SampleSpan rows{0, 2};
    std::vector<ModelShard> first;
    for (int t = 0; t < 2; ++t)
        first.push_back(orFail(ModelShard::create(c, {0, 1, t, 2, true, false}, setup)));
    ModelShard second = orFail(ModelShard::create(c, {1, 2, 0, 1, false, true}, setup));
    ThreadTpGroup group(2);
    SoloTpComm solo;

    std::vector<std::vector<float>> outputs(2);
    std::vector<std::thread> threads;
    for (int t = 0; t < 2; ++t) {
        threads.emplace_back([&, t] {
            outputs[std::size_t(t)]
                = orFail(first[std::size_t(t)].forward(0, rows, {}, group.member(t))).activations;
        });
    }
    for (std::thread &thread : threads)
        thread.join();
    threads.clear();
    QVERIFY(outputs[0] == outputs[1]);
    const double loss = orFail(second.forward(0, rows, outputs[0], solo)).lossContribution;
    const std::vector<float> gradient = orFail(second.backward(0, {}, solo));
    for (int t = 0; t < 2; ++t) {
        threads.emplace_back([&, t] {
            if (!orFail(first[std::size_t(t)].backward(0, gradient, group.member(t))).empty())
                qFatal("the embedding stage returned an input gradient");
        });
    }
    for (std::thread &thread : threads)
        thread.join();

    const StepOutcome whole = tpTrainingStep(c, setup, 1, {rows});
    compareLoss(loss, whole.loss);
    WeightSet cutGradients;
    placeShard(cutGradients, first[0], ShardBuffer::Gradients);
    placeShard(cutGradients, first[1], ShardBuffer::Gradients);
    placeShard(cutGradients, second, ShardBuffer::Gradients);
    verifyOk(compareWeightSets(whole.gradients, cutGradients, kGradientTolerance, "gradients"));
}

void TestModelParallel::microBatchesEqualOneBatch()
{
    const ModelConfig c = tinyConfig(MlpKind::Gelu);
    const TrainingSetup setup{9, 3, {}};
    const StepOutcome oneBatch = tpTrainingStep(c, setup, 1, {{0, 3}});
    const StepOutcome three = tpTrainingStep(c, setup, 1, {{0, 1}, {1, 1}, {2, 1}});
    compareLoss(three.loss, oneBatch.loss);
    verifyOk(
        compareWeightSets(oneBatch.gradients, three.gradients, kGradientTolerance, "gradients"));
    verifyOk(compareWeightSets(oneBatch.weights, three.weights, kWeightTolerance, "weights"));
}

void TestModelParallel::anyCutOfTheRowsGivesTheSameGradientSum()
{
    const ModelConfig c = tinyConfig(MlpKind::SwiGlu);
    const TrainingSetup setup{21, 5, {}};
    double lossA = 0, lossB = 0;
    const WeightSet a = replicaGradientSum(c, setup, {{0, 1}, {1, 4}}, lossA);
    const WeightSet b = replicaGradientSum(c, setup, {{0, 3}, {3, 2}}, lossB);
    compareLoss(lossB, lossA);
    verifyOk(compareWeightSets(a, b, kGradientTolerance, "gradient sums"));
    const StepOutcome whole = tpTrainingStep(c, setup, 1, {{0, 5}});
    compareLoss(lossA, whole.loss);
    verifyOk(compareWeightSets(whole.gradients, a, kGradientTolerance, "gradient sum"));
}

void TestModelParallel::referenceRunTrainsAndRepeats()
{
    const ModelConfig c = tinyConfig(MlpKind::SwiGlu);
    const TrainingSetup setup{17, 4, {1e-2f, 0.9f, 0.999f, 1e-8f}};
    const ReferenceResult first = orFail(referenceRun(c, setup, 3, 12));
    const ReferenceResult again = orFail(referenceRun(c, setup, 3, 12));
    QCOMPARE(again.lossPerIteration, first.lossPerIteration);
    verifyOk(compareWeightSets(first.finalWeights, again.finalWeights, {}, "repeated run"));
    // It learns: the synthetic sequences are predictable from their context.
    QVERIFY2(first.lossPerIteration.back() < 0.8 * first.lossPerIteration.front(),
             qPrintable(QStringLiteral("loss %1 → %2")
                            .arg(first.lossPerIteration.front())
                            .arg(first.lossPerIteration.back())));
    QCOMPARE(first.finalWeights.size(), modelTensors(c).size());

    TrainingSetup otherSeed = setup;
    otherSeed.seed = 18;
    const ReferenceResult other = orFail(referenceRun(c, otherSeed, 3, 1));
    QVERIFY(other.lossPerIteration[0] != first.lossPerIteration[0]);

    // One reference iteration is one step of the whole model on the same micro-batches.
    const ReferenceResult one = orFail(referenceRun(c, setup, 3, 1));
    const StepOutcome step = tpTrainingStep(c, setup, 1, {{0, 3}, {3, 1}});
    QCOMPARE(one.lossPerIteration[0], step.loss);
    verifyOk(compareWeightSets(step.weights, one.finalWeights, {}, "reference vs step"));
}

// What the distributed runs check, on a model at --scale: 3 Adam iterations of a TP-4 cut with
// micro-batches of 1 against the reference's micro-batches of 2.
void TestModelParallel::threeIterationsAtScaleMatchTheReference()
{
    const ModelSpec spec{"llama2-13b-2-layers", 2, 5120, 13824, 40, 40, 32000, 4096,
                         MlpKind::SwiGlu};
    const ModelConfig c = orFail(scaledModelConfig(spec, 4096, 32));
    const TrainingSetup setup{2024, 4, {}};
    const ReferenceResult reference = orFail(referenceRun(c, setup, 2, 3));
    const StepOutcome cut = tpTraining(c, setup, 4, {{0, 1}, {1, 1}, {2, 1}, {3, 1}}, 3);
    for (int it = 0; it < 3; ++it)
        compareLoss(cut.lossPerIteration[std::size_t(it)],
                    reference.lossPerIteration[std::size_t(it)]);
    QVERIFY(reference.lossPerIteration[2] < reference.lossPerIteration[0]);
    verifyOk(compareWeightSets(reference.finalWeights, cut.weights,
                               adamWeightTolerance(setup.adam.learningRate, 3),
                               "weights after 3 iterations"));
}

void TestModelParallel::misuseIsAnErrorNotACrash()
{
    const ModelConfig c = tinyConfig(MlpKind::Gelu);
    ModelShard second = orFail(ModelShard::create(c, {1, 2, 0, 1, false, true}, {1, 2, {}}));
    SoloTpComm solo;
    QVERIFY(!second.forward(0, {0, 1}, std::vector<float>(5), solo)); // wrong input size
    QVERIFY(!second.forward(0, {1, 2}, {}, solo));                    // rows outside the batch
    QVERIFY(!second.backward(3, {}, solo));                           // never forwarded
    const std::vector<float> input(std::size_t(c.tokens(1) * c.hidden), 0.5f);
    QVERIFY(second.forward(0, {0, 1}, input, solo).ok());
    QVERIFY(!second.forward(0, {1, 1}, input, solo)); // micro-batch 0 is still in flight
    QVERIFY(second.backward(0, {}, solo).ok());
    QVERIFY(!ModelShard::create(c, wholeModel(c), {1, 0, {}}).ok()); // empty global batch
    QVERIFY(!referenceRun(c, {1, 2, {}}, 0, 1).ok());
}

HETPLAN_TEST_APPLESS_MAIN(TestModelParallel)
#include "tst_model_parallel.moc"
