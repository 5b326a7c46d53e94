// hexiscale-paper: each term of HexiScale Appendix A against arithmetic written out by hand.

#include "core/cost/cost_model.h"
#include "cost_test_fixtures.h"
#include "tests/test_registry.h"

#include <QtTest>

#include <cmath>

using namespace hetplan;
using namespace hetplan::testing;

Q_DECLARE_METATYPE(hetplan::Stage)
Q_DECLARE_METATYPE(hetplan::Plan)

namespace {

enum class Term { TpComm, Compute, Hop, Memory };

// S = 512, H = 1024, bf16: one sequence's activations b·S·H·B = 1 048 576 bytes; one layer's
// gradients 12·H²·B = 25 165 824 bytes.
constexpr int kSeqLen = 512;

Problem trainProblem(int globalBatch = 5)
{
    return makeProblem(twoMachineCluster(), smallModel(), trainWorkload(globalBatch, kSeqLen));
}

// A:0,A:1 (tp 2) layers 0–5 → B:0 layers 5–8, 3 micro-batches; A:2 all 8 layers, 2 micro-batches.
Plan twoPipelinePlan()
{
    Plan plan;
    plan.pipelines = {pipeline(1, 3, {stage({0, 1}, 2, 1, 0, 5), stage({3}, 1, 1, 5, 8)}),
                      pipeline(1, 2, {stage({2}, 1, 1, 0, 8)})};
    return plan;
}

} // namespace

class TestCostHexiScale : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void terms_data();
    void terms();
    void twoPipelinePlan_dataParallelAndIteration();
    void dataParallelOverManyGpus();
    void breakdownAddsUpToIteration_data();
    void breakdownAddsUpToIteration();
    void forwardBackwardSplitKeepsStageTotal();
    void memoryOverflowIsReportedPerGpu();
    void objectiveMatchesEvaluation();
    void throughputAndCost();
    void names();
};

void TestCostHexiScale::terms_data()
{
    QTest::addColumn<int>("term");
    QTest::addColumn<Stage>("from");
    QTest::addColumn<Stage>("to");
    QTest::addColumn<int>("microBatch");
    QTest::addColumn<double>("expected");

    const Stage none;
    // Eq. 3: 12 · max_x Σ_y (α_xy + b·S·H·B/(|d|·β_xy)), per layer.
    QTest::newRow("tp comm, 2 GPUs of A, 5 layers")
        << int(Term::TpComm) << stage({0, 1}, 2, 1, 0, 5) << none << 1
        << 5 * 12 * (1e-6 + 1048576.0 / (2 * 100e9));
    // B:0 talks to B:1 at 10 GB/s and to B:2 at 5 GB/s (override): B:0 and B:2 are the max.
    QTest::newRow("tp comm, 3 GPUs of B, uneven links, 4 layers")
        << int(Term::TpComm) << stage({3, 4, 5}, 3, 1, 0, 4) << none << 1
        << 4 * 12 * ((5e-6 + 1048576.0 / (3 * 10e9)) + (8e-6 + 1048576.0 / (3 * 5e9)));
    QTest::newRow("tp comm, A:0 and B:0 over the 1 GB/s link")
        << int(Term::TpComm) << stage({0, 3}, 2, 1, 0, 1) << none << 1
        << 12 * (50e-6 + 1048576.0 / (2 * 1e9));
    QTest::newRow("tp comm, micro-batch 2")
        << int(Term::TpComm) << stage({0, 1}, 2, 1, 0, 1) << none << 2
        << 12 * (1e-6 + 2 * 1048576.0 / (2 * 100e9));

    // Eq. 6: 96·b·S·H²·(1 + S/(6H)) / (c·|d|), per layer; c the slowest GPU (peak).
    QTest::newRow("compute, 2 Fast GPUs, 5 layers")
        << int(Term::Compute) << stage({0, 1}, 2, 1, 0, 5) << none << 1
        << 5 * 96.0 * 512 * 1024.0 * 1024 * (1 + 512.0 / (6 * 1024)) / (100e12 * 2);
    QTest::newRow("compute, Fast + Slow: the slow one sets c")
        << int(Term::Compute) << stage({2, 3}, 2, 1, 0, 2) << none << 1
        << 2 * 96.0 * 512 * 1024.0 * 1024 * (1 + 512.0 / (6 * 1024)) / (50e12 * 2);
    QTest::newRow("compute, dp 2 split 3:1, slowest replica")
        << int(Term::Compute) << stage({3, 4}, 1, 2, 0, 2, {3, 1}) << none << 4
        << 2 * 96.0 * 3 * 512 * 1024.0 * 1024 * (1 + 512.0 / (6 * 1024)) / (50e12 * 1);

    // Eq. 5: 2 · min_{x,y} [α_xy + b·S·H·B/β_xy + Σ_{z≠y} (α_yz + b·S·H·B/(|d'|·β_yz))].
    QTest::newRow("hop, A tp 2 to B:0")
        << int(Term::Hop) << stage({0, 1}, 2, 1, 0, 4) << stage({3}, 1, 1, 4, 8) << 1
        << 2 * (50e-6 + 1048576.0 / 1e9);
    // Every sender pays the same 1 GB/s; B:1 broadcasts cheapest (10 GB/s to both others).
    QTest::newRow("hop, A:0 to B tp 3, best receiver broadcasts")
        << int(Term::Hop) << stage({0}, 1, 1, 0, 4) << stage({3, 4, 5}, 3, 1, 4, 8) << 1
        << 2 * (50e-6 + 1048576.0 / 1e9 + 2 * (5e-6 + 1048576.0 / (3 * 10e9)));
    QTest::newRow("hop, inside A") << int(Term::Hop) << stage({0}, 1, 1, 0, 4)
                                   << stage({1}, 1, 1, 4, 8) << 1 << 2 * (1e-6 + 1048576.0 / 100e9);
    QTest::newRow("hop, into dp 2 split 3:1: the replica with 3 sequences")
        << int(Term::Hop) << stage({0}, 1, 1, 0, 4) << stage({3, 4}, 1, 2, 4, 8, {3, 1}) << 4
        << 2 * (50e-6 + 3 * 1048576.0 / 1e9);

    // Eq. 11: l · (48·H²·B/|d| + b·S·H·B) bytes.
    QTest::newRow("memory, B tp 3, 4 layers")
        << int(Term::Memory) << stage({3, 4, 5}, 3, 1, 0, 4) << none << 1
        << 4 * (48.0 * 1024 * 1024 * 2 / 3 + 1 * 512.0 * 1024 * 2);
    QTest::newRow("memory, dp 2 split 3:1: TP group 1, share 3")
        << int(Term::Memory) << stage({3, 4}, 1, 2, 0, 2, {3, 1}) << none << 4
        << 2 * (48.0 * 1024 * 1024 * 2 / 1 + 3 * 512.0 * 1024 * 2);
}

void TestCostHexiScale::terms()
{
    QFETCH(int, term);
    QFETCH(Stage, from);
    QFETCH(Stage, to);
    QFETCH(int, microBatch);
    QFETCH(double, expected);

    const Problem problem = trainProblem();
    const CostModel model(CostModelKind::HexiScalePaper);
    const StageQuery fromQuery = queryOf(from, microBatch, 0, 2);
    const StageQuery toQuery = queryOf(to, microBatch, 1, 2);
    const StageEstimate estimate = model.estimateStage(problem, fromQuery);
    double actual = 0;
    switch (Term(term)) {
    case Term::TpComm:
        actual = estimate.timing.tpCommS;
        break;
    case Term::Compute:
        actual = estimate.timing.computeS;
        break;
    case Term::Hop:
        actual = model.hopS(problem, fromQuery, toQuery);
        break;
    case Term::Memory:
        actual = estimate.peakMemoryGiB * 1024.0 * 1024 * 1024;
        break;
    }
    QVERIFY2(near(actual, expected), qPrintable(QStringLiteral("actual %1, expected %2")
                                                    .arg(actual, 0, 'g', 12)
                                                    .arg(expected, 0, 'g', 12)));
}

void TestCostHexiScale::twoPipelinePlan_dataParallelAndIteration()
{
    const Problem problem = trainProblem();
    const Evaluation e
        = CostModel(CostModelKind::HexiScalePaper).evaluate(problem, twoPipelinePlan());
    QVERIFY(e.valid);
    QVERIFY(e.fitsInMemory());

    // Eq. 4 per layer over D_k. Layers 0–5: D = {A:0, A:1, A:2} (2 replicas), all at
    // 100 GB/s, 1 µs. Layers 5–8: D = {B:0, A:2}, over the 1 GB/s, 50 µs link.
    const double layerInA = 2 * (2 * (1e-6 + 25165824.0 / (3 * 100e9)));
    const double layerAcross = 2 * (50e-6 + 25165824.0 / (2 * 1e9));
    // Eq. 7: pipeline 1's single stage holds all 8 layers, the largest sum.
    const double dp = 5 * layerInA + 3 * layerAcross;
    QVERIFY(near(e.breakdown.dpCommS, dp));
    QVERIFY(near(e.pipelines[0].stages[0].dpCommS, 5 * layerInA));
    QVERIFY(near(e.pipelines[0].stages[1].dpCommS, 3 * layerAcross));

    // Pipeline 0: stage 0 = 5 layers on 2 Fast GPUs + hop to B:0; stage 1 = 3 layers on Slow.
    const double computeFastLayer = 96.0 * 512 * 1024.0 * 1024 * (1 + 512.0 / 6144) / 100e12;
    const double computeSlowLayer = 96.0 * 512 * 1024.0 * 1024 * (1 + 512.0 / 6144) / 50e12;
    const double tpLayer = 12 * (1e-6 + 1048576.0 / (2 * 100e9));
    const double hop = 2 * (50e-6 + 1048576.0 / 1e9);
    const double w00 = 5 * (computeFastLayer / 2 + tpLayer) + hop;
    const double w01 = 3 * computeSlowLayer;
    const double pipeline0 = w00 + w01 + (3 - 1) * std::max(w00, w01);
    // Pipeline 1: one stage, 8 layers on A:2, 2 micro-batches.
    const double w10 = 8 * computeFastLayer;
    const double pipeline1 = w10 + (2 - 1) * w10;
    QVERIFY(near(e.pipelines[0].timeS, pipeline0));
    QVERIFY(near(e.pipelines[1].timeS, pipeline1));
    // Eq. 10.
    QVERIFY(near(e.iterationS, std::max(pipeline0, pipeline1) + dp));

    // The critical pipeline is 0 and its bottleneck stage 0 (w00 > w01).
    QVERIFY(w00 > w01 && pipeline0 > pipeline1);
    QVERIFY(near(e.breakdown.computeS, 3 * 5 * computeFastLayer / 2));
    QVERIFY(near(e.breakdown.tpCommS, 3 * 5 * tpLayer));
    QVERIFY(near(e.breakdown.ppCommS, 3 * hop));
    QVERIFY(near(e.breakdown.totalS(), e.iterationS));
}

void TestCostHexiScale::dataParallelOverManyGpus()
{
    // 3 machines × 8 Fast GPUs (100 GB/s, 1 µs inside; 2 GB/s, 20 µs between), 24 pipelines
    // of one GPU each: D_k holds all 24 GPUs. Large groups take a per-machine shortcut; a
    // pair override (equal to the intra link) forces the pair-by-pair sum: both must agree.
    Cluster cluster;
    cluster.name = "three-machines";
    cluster.machines = {machine("M0", "Fast", 8, 100, 1), machine("M1", "Fast", 8, 100, 1),
                        machine("M2", "Fast", 8, 100, 1)};
    cluster.switches = {{"switch", {}}};
    for (const char *name : {"M0", "M1", "M2"})
        cluster.links.push_back({name, "switch", LinkKind::Ethernet, 2, 10});
    Plan plan;
    for (int gpu = 0; gpu < 24; ++gpu)
        plan.pipelines.push_back(pipeline(1, 1, {stage({gpu}, 1, 1, 0, 8)}));
    const Problem problem = makeProblem(cluster, smallModel(), trainWorkload(24, kSeqLen));
    const double dpLayer
        = 2 * (7 * (1e-6 + 25165824.0 / (24 * 100e9)) + 16 * (20e-6 + 25165824.0 / (24 * 2e9)));
    const Evaluation shortcut = CostModel(CostModelKind::HexiScalePaper).evaluate(problem, plan);
    QVERIFY(near(shortcut.breakdown.dpCommS, 8 * dpLayer));

    cluster.pairOverrides = {{"M0:0", "M0:1", 100, 1}};
    const Evaluation pairwise
        = CostModel(CostModelKind::HexiScalePaper)
              .evaluate(makeProblem(cluster, smallModel(), trainWorkload(24, kSeqLen)), plan);
    QVERIFY(near(pairwise.breakdown.dpCommS, 8 * dpLayer));
}

void TestCostHexiScale::breakdownAddsUpToIteration_data()
{
    QTest::addColumn<Plan>("plan");
    Plan twoPipelines = twoPipelinePlan();
    Plan metisStyle;
    metisStyle.pipelines
        = {pipeline(4, 2, {stage({0, 1, 2}, 1, 3, 0, 6, {2, 1, 1}), stage({3, 4, 5}, 3, 1, 6, 8)})};
    Plan singleGpu;
    singleGpu.pipelines = {pipeline(1, 8, {stage({0}, 1, 1, 0, 8)})};
    QTest::newRow("two asymmetric pipelines") << twoPipelines;
    QTest::newRow("dp 3 stage with uneven split") << metisStyle;
    QTest::newRow("one GPU") << singleGpu;
}

void TestCostHexiScale::breakdownAddsUpToIteration()
{
    QFETCH(Plan, plan);
    const Evaluation e = CostModel(CostModelKind::HexiScalePaper).evaluate(trainProblem(8), plan);
    QVERIFY(e.valid);
    QVERIFY(e.iterationS > 0);
    QVERIFY(near(e.breakdown.totalS(), e.iterationS, 1e-12));
    for (const PipelineTiming &p : e.pipelines)
        QVERIFY(near(p.breakdown.totalS(), p.timeS, 1e-12));
}

void TestCostHexiScale::forwardBackwardSplitKeepsStageTotal()
{
    const Problem problem = trainProblem();
    const Stage threeSlow = stage({3, 4, 5}, 3, 1, 0, 4);
    const StageEstimate estimate
        = CostModel(CostModelKind::HexiScalePaper).estimateStage(problem, queryOf(threeSlow, 1));
    const StageTiming &t = estimate.timing;
    QVERIFY(t.tpCommS > 0 && t.computeS > 0);
    // 96 = 24 forward + 48 backward + 24 recomputation; 12 = 2 + 2 + 2 all-reduces × 2.
    QVERIFY(near(t.forwardS, t.computeS / 4 + t.tpCommS / 3));
    QVERIFY(near(t.forwardS + t.backwardS, t.computeS + t.tpCommS));
}

void TestCostHexiScale::memoryOverflowIsReportedPerGpu()
{
    ModelSpec wide = smallModel();
    wide.hidden = 8192;
    const Problem problem = makeProblem(twoMachineCluster(), wide, trainWorkload(1, kSeqLen));
    Plan plan;
    plan.pipelines = {pipeline(1, 1, {stage({0}, 1, 1, 0, 3), stage({3}, 1, 1, 3, 8)})};
    const Evaluation e = CostModel(CostModelKind::HexiScalePaper).evaluate(problem, plan);
    // Eq. 11: 5 · (48·8192²·2 + 512·8192·2) bytes = 30.04 GiB on the 24 GiB Slow GPU; the
    // Fast GPU holds 3 layers (18.02 GiB) in 80 GiB.
    const double needGiB = 5 * (48.0 * 8192 * 8192 * 2 + 512.0 * 8192 * 2) / (1024.0 * 1024 * 1024);
    QVERIFY(!e.fitsInMemory());
    QCOMPARE(e.memory.size(), size_t(2));
    QVERIFY(near(e.memory[1].usedGiB, needGiB));
    QCOMPARE(e.memory[1].capacityGiB, 24.0);
    QCOMPARE(e.errors.size(), size_t(1));
    QCOMPARE(QString::fromStdString(e.errors.front()),
             QStringLiteral("pipeline 0, stage 1, GPU B:0: needs 30.0 GiB of 24.0 GiB"));
}

void TestCostHexiScale::objectiveMatchesEvaluation()
{
    const CostModel model(CostModelKind::HexiScalePaper);
    const Problem problem = trainProblem();
    QCOMPARE(model.objectiveS(problem, twoPipelinePlan()),
             model.evaluate(problem, twoPipelinePlan()).iterationS);

    ModelSpec wide = smallModel();
    wide.hidden = 8192;
    const Problem tight = makeProblem(twoMachineCluster(), wide, trainWorkload(1, kSeqLen));
    Plan plan;
    plan.pipelines = {pipeline(1, 1, {stage({3}, 1, 1, 0, 8)})};
    QVERIFY(std::isinf(model.objectiveS(tight, plan)));
    QVERIFY(std::isinf(model.CostModel::objectiveS(tight, plan)));
}

void TestCostHexiScale::throughputAndCost()
{
    const Problem problem = trainProblem();
    const Evaluation e
        = CostModel(CostModelKind::HexiScalePaper).evaluate(problem, twoPipelinePlan());
    QVERIFY(near(e.tokensPerS, 5.0 * 512 / e.iterationS));
    // Used: A:0, A:1, A:2 (Fast, 2 $/h) and B:0 (Slow, 1 $/h); peak 3·100 + 50 tflops.
    QVERIFY(e.costPerIterationUsd.has_value());
    QVERIFY(near(*e.costPerIterationUsd, 7.0 / 3600 * e.iterationS));
    QVERIFY(near(*e.costPerMillionTokensUsd, 7.0 / 3600 / e.tokensPerS * 1e6));
    // MFU numerator (docs/cost-models.md): 72·G·S·L·H²·(1 + S/(6H) + V/(12·H·L)).
    const double modelFlops
        = 72.0 * 5 * 512 * 8 * 1024.0 * 1024 * (1 + 512.0 / 6144 + 1000.0 / (12 * 1024 * 8));
    QVERIFY(near(e.mfu, modelFlops / (e.iterationS * 350e12)));
    QVERIFY(e.mfu > 0 && e.mfu < 1);
}

void TestCostHexiScale::names()
{
    for (CostModelKind kind : allCostModels()) {
        const auto parsed = costModelKindFromName(costModelName(kind));
        QVERIFY(parsed.ok());
        QVERIFY(*parsed == kind);
        QVERIFY(makeCostModel(kind)->kind() == kind);
    }
    const auto unknown = costModelKindFromName("hexiscale");
    QVERIFY(!unknown.ok());
    QCOMPARE(QString::fromStdString(unknown.error().message),
             QStringLiteral("unknown cost model 'hexiscale'; valid: hetplan, hexiscale-paper, "
                            "hexgen-paper"));
}

HETPLAN_TEST_APPLESS_MAIN(TestCostHexiScale)
#include "tst_cost_hexiscale.moc"
