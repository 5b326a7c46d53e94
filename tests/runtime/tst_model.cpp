// The model on its own: --scale and the refusals, deterministic init and data, the hand-written
// backward against finite differences, and the reference run.
#include "core/io/catalog_json.h"
#include "model_test_support.h"
#include "runtime/model/model_init.h"
#include "runtime/model/reference_run.h"
#include "tests/test_registry.h"

#include <QtTest>

#include <cmath>

using namespace hetplan;
using namespace hetplan::runtime;
using namespace hetplan::runtime::test;

Q_DECLARE_METATYPE(hetplan::MlpKind)

namespace {

const ModelSpec &catalogModel(const char *name)
{
    const ModelSpec *spec = builtinModelCatalog().find(name);
    if (!spec)
        qFatal("no model '%s' in the catalog", name);
    return *spec;
}

// Σ of the loss contributions of `microBatches` (forward and backward, so nothing stays in
// flight; the gradients are cleared again).
double lossOf(ModelShard &model, const std::vector<SampleSpan> &microBatches)
{
    SoloTpComm solo;
    double loss = 0;
    for (const SampleSpan &rows : microBatches) {
        loss += orFail(model.forward(0, rows, {}, solo)).lossContribution;
        orFail(model.backward(0, {}, solo));
    }
    model.zeroGradients();
    return loss;
}

} // namespace

class TestModel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { setBlasThreads(1); }
    void scaleDividesWidthsAndKeepsLayersAndHeads();
    void scaleThatDoesNotDivideTheHeadIsRefused();
    void tpDegreeMustDivideHeadsKvHeadsAndFfn_data();
    void tpDegreeMustDivideHeadsKvHeadsAndFfn();
    void initDoesNotDependOnTheCut();
    void tokensAreDeterministicAndInRange();
    void gradientsMatchFiniteDifferences_data();
    void gradientsMatchFiniteDifferences();
    void optimizerSteps();
    void comparisonAllowsFewAdamOutliersOnly();
};

void TestModel::scaleDividesWidthsAndKeepsLayersAndHeads()
{
    const ModelConfig c = orFail(scaledModelConfig(catalogModel("llama2-13b"), 4096, 16));
    QCOMPARE(c.layers, 40);
    QCOMPARE(c.heads, 40);
    QCOMPARE(c.kvHeads, 40);
    QCOMPARE(c.headDim(), 8);
    QCOMPARE(c.hidden, 320);
    QCOMPARE(c.ffnHidden, 864);
    QCOMPARE(c.vocab, 2000);
    QCOMPARE(c.seqLen, 256);
    QCOMPARE(c.mlp, MlpKind::SwiGlu);

    const ModelConfig gqa = orFail(scaledModelConfig(catalogModel("llama2-70b"), 4096, 8));
    QCOMPARE(gqa.heads, 64);
    QCOMPARE(gqa.kvHeads, 8);
    QCOMPARE(gqa.hidden, 64 * 16);
    QCOMPARE(gqa.kvDim(), 8 * 16);
}

void TestModel::scaleThatDoesNotDivideTheHeadIsRefused()
{
    const Result<ModelConfig> c = scaledModelConfig(catalogModel("llama2-13b"), 4096, 3);
    QVERIFY(!c);
    QCOMPARE(c.error().kind, ErrorKind::BadInput);
    const QString message = QString::fromStdString(c.error().message);
    QVERIFY2(message.contains(QLatin1String("--scale 3")), qPrintable(message));
    QVERIFY2(message.contains(QLatin1String("head dimension 128")), qPrintable(message));
    QVERIFY2(message.contains(QLatin1String("16")), qPrintable(message)); // a valid scale
}

void TestModel::tpDegreeMustDivideHeadsKvHeadsAndFfn_data()
{
    QTest::addColumn<QString>("model");
    QTest::addColumn<int>("tp");
    QTest::addColumn<QString>("field");
    QTest::newRow("13b tp 3: heads 40") << "llama2-13b" << 3 << "heads = 40";
    QTest::newRow("70b tp 16: kv_heads 8") << "llama2-70b" << 16 << "kv_heads = 8";
    QTest::newRow("13b tp 8: fine") << "llama2-13b" << 8 << "";
}

void TestModel::tpDegreeMustDivideHeadsKvHeadsAndFfn()
{
    QFETCH(QString, model);
    QFETCH(int, tp);
    QFETCH(QString, field);
    const ModelConfig c = orFail(scaledModelConfig(catalogModel(qPrintable(model)), 4096, 16));
    ShardSpec shard{0, 4, tp - 1, tp, true, false};
    const Status status = validateShard(c, shard);
    QCOMPARE(status.ok(), field.isEmpty());
    if (!status.ok()) {
        const QString message = QString::fromStdString(status.error().message);
        QVERIFY2(message.contains(field), qPrintable(message));
        QVERIFY2(message.contains(QStringLiteral("tensor-parallel degree %1").arg(tp)),
                 qPrintable(message));
        QVERIFY(!ModelShard::create(c, shard, {}).ok());
    }
}

void TestModel::initDoesNotDependOnTheCut()
{
    const ModelConfig c = tinyConfig(MlpKind::SwiGlu);
    const TrainingSetup setup{42, 4, {}};
    WeightSet whole;
    placeShard(whole, orFail(ModelShard::create(c, wholeModel(c), setup)), ShardBuffer::Values);
    WeightSet cut;
    for (int t = 0; t < 4; ++t) {
        const ShardSpec first{0, 1, t, 4, true, false};
        const ShardSpec second{1, 2, t, 4, false, true};
        placeShard(cut, orFail(ModelShard::create(c, first, setup)), ShardBuffer::Values);
        placeShard(cut, orFail(ModelShard::create(c, second, setup)), ShardBuffer::Values);
    }
    QVERIFY2(compareWeightSets(whole, cut, {}, "4-way TP, 2 stages").ok(), "init differs");

    // The documented scale: std 0.02 for q (and 0.02/√(2L) for o), gains of 1.
    const std::vector<float> &q = whole.at("layer.0.attn.q");
    double sumSq = 0;
    for (float v : q)
        sumSq += double(v) * v;
    QVERIFY(std::abs(std::sqrt(sumSq / double(q.size())) - 0.02) < 0.002);
    QCOMPARE(whole.at("layer.1.mlp_norm"), std::vector<float>(32, 1.0f));

    WeightSet otherSeed;
    placeShard(otherSeed, orFail(ModelShard::create(c, wholeModel(c), {43, 4, {}})),
               ShardBuffer::Values);
    QVERIFY(otherSeed.at("embedding") != whole.at("embedding"));
}

void TestModel::tokensAreDeterministicAndInRange()
{
    int repeatsOfThePattern = 0;
    for (int sample = 0; sample < 50; ++sample) {
        for (int pos = 0; pos < 64; ++pos) {
            const int token = syntheticToken(7, sample, pos, 101);
            QVERIFY(token >= 0 && token < 101);
            QCOMPARE(syntheticToken(7, sample, pos, 101), token);
            const int next = syntheticToken(7, sample, pos + 1, 101);
            const int stride = (next - token + 101) % 101;
            repeatsOfThePattern += stride >= 1 && stride <= 4;
        }
    }
    // Mostly a progression (7 in 8 tokens follow it; both ends of a step must), not noise.
    QVERIFY(repeatsOfThePattern > 50 * 64 * 6 / 10);
    QVERIFY(syntheticToken(8, 0, 0, 1000) != syntheticToken(7, 0, 0, 1000)
            || syntheticToken(8, 1, 0, 1000) != syntheticToken(7, 1, 0, 1000));
}

void TestModel::gradientsMatchFiniteDifferences_data()
{
    QTest::addColumn<MlpKind>("mlp");
    QTest::addColumn<int>("seqLen");
    QTest::newRow("SwiGLU, GQA") << MlpKind::SwiGlu << 5;
    QTest::newRow("GELU, GQA") << MlpKind::Gelu << 5;
    // Longer than the attention's 64-row blocks: the causal blocking must add up.
    QTest::newRow("SwiGLU, GQA, 2 row blocks") << MlpKind::SwiGlu << 70;
}

// Central differences in fp32 with the weights made larger than at init (so every gradient is
// well above the loss's rounding noise): on 12 elements of every tensor, the difference is within
// 1% of the analytic gradient's norm (measured: at most 0.3%, the embedding's; the truncation error
// of the 1e-2 step dominates).
void TestModel::gradientsMatchFiniteDifferences()
{
    QFETCH(MlpKind, mlp);
    QFETCH(int, seqLen);
    ModelConfig c = tinyConfig(mlp);
    c.seqLen = seqLen;
    c.vocab = 11;
    const TrainingSetup setup{3, 3, {}};
    ModelShard model = orFail(ModelShard::create(c, wholeModel(c), setup));
    for (Parameter &p : model.parameters()) {
        for (std::size_t i = 0; i < p.value.size(); ++i) {
            const bool norm = p.tensor.rows == 1;
            p.value[i] = norm ? 1.0f + 0.3f * std::sin(float(i)) : p.value[i] * 15.0f;
        }
    }
    const std::vector<SampleSpan> batch{{0, 2}, {2, 1}};
    SoloTpComm solo;
    for (const SampleSpan &rows : batch) {
        orFail(model.forward(0, rows, {}, solo));
        orFail(model.backward(0, {}, solo));
    }
    WeightSet analyticGradients;
    placeShard(analyticGradients, model, ShardBuffer::Gradients);
    const float step = 1e-2f;
    for (Parameter &p : model.parameters()) {
        const std::vector<float> &analytic = analyticGradients.at(p.tensor.name);
        double errSq = 0;
        double refSq = 0;
        const std::size_t n = p.value.size();
        for (std::size_t k = 0; k < 12; ++k) {
            const std::size_t i = (k * 7919 + 13) % n;
            const float saved = p.value[i];
            p.value[i] = saved + step;
            const double up = lossOf(model, batch);
            p.value[i] = saved - step;
            const double down = lossOf(model, batch);
            p.value[i] = saved;
            const double numeric = (up - down) / (2.0 * step);
            errSq += (numeric - analytic[i]) * (numeric - analytic[i]);
            refSq += double(analytic[i]) * analytic[i];
        }
        const QByteArray what = QByteArray::fromStdString(p.tensor.name) + ": |fd − analytic| "
                                + QByteArray::number(std::sqrt(errSq)) + " on |analytic| "
                                + QByteArray::number(std::sqrt(refSq));
        QVERIFY2(std::sqrt(refSq) > 1e-2, what.constData());
        QVERIFY2(std::sqrt(errSq) <= 0.01 * std::sqrt(refSq), what.constData());
    }
}

// SGD moves by −lr·g exactly; Adam's first step by about −lr·sign(g); both clear the gradients.
void TestModel::optimizerSteps()
{
    const ModelConfig c = tinyConfig(MlpKind::Gelu);
    for (Optimizer optimizer : {Optimizer::Sgd, Optimizer::Adam}) {
        TrainingSetup setup{5, 2, {}};
        setup.optimizer = optimizer;
        ModelShard model = orFail(ModelShard::create(c, wholeModel(c), setup));
        SoloTpComm solo;
        orFail(model.forward(0, {0, 2}, {}, solo));
        orFail(model.backward(0, {}, solo));
        const Parameter &q = *model.findParameter("layer.1.attn.q");
        const std::vector<float> before = q.value;
        const std::vector<float> grad = q.grad;
        model.optimizerStep();
        int adamChecked = 0;
        QCOMPARE(model.stepsTaken(), 1);
        for (std::size_t i = 0; i < before.size(); ++i) {
            const float lr = setup.adam.learningRate;
            if (optimizer == Optimizer::Sgd) {
                QCOMPARE(q.value[i], before[i] - lr * grad[i]);
            } else if (std::abs(grad[i]) > 1e-4f) { // ε = 1e-8 is then negligible
                ++adamChecked;
                const float step = before[i] - q.value[i];
                QVERIFY(std::abs(step - std::copysign(lr, grad[i])) < 1e-3f * lr);
            }
            QCOMPARE(q.grad[i], 0.0f);
        }
        QVERIFY(optimizer == Optimizer::Sgd || adamChecked > 100);
    }
}

void TestModel::comparisonAllowsFewAdamOutliersOnly()
{
    const WeightTolerance tolerance = adamWeightTolerance(1e-3f, 3); // 3e-5, outliers to 6e-3
    const WeightSet expected{{"w", std::vector<float>(20000, 0.5f)}};
    WeightSet actual = expected;
    actual["w"][7] += 2e-5f;
    QVERIFY(compareWeightSets(expected, actual, tolerance, "bulk").ok());
    actual["w"][8] += 5e-3f; // a sign flip of a near-zero gradient: 1 outlier of 2 allowed
    QVERIFY(compareWeightSets(expected, actual, tolerance, "one outlier").ok());
    actual["w"][9] -= 5e-3f;
    actual["w"][10] -= 5e-3f;
    const Status three = compareWeightSets(expected, actual, tolerance, "three outliers");
    QVERIFY(!three.ok());
    QVERIFY2(three.error().message.find("'w' has 3 elements") != std::string::npos,
             three.error().message.c_str());
    WeightSet wrong = expected;
    wrong["w"][3] = 0.52f; // beyond any outlier bound
    QVERIFY(!compareWeightSets(expected, wrong, tolerance, "far").ok());
    wrong = expected;
    wrong["w"][3] = std::nanf("");
    QVERIFY(!compareWeightSets(expected, wrong, tolerance, "NaN").ok());
    wrong = expected;
    wrong["w"].pop_back();
    QVERIFY(!compareWeightSets(expected, wrong, tolerance, "size").ok());
}

HETPLAN_TEST_APPLESS_MAIN(TestModel)
#include "tst_model.moc"
