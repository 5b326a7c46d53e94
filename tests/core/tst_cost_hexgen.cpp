// hexgen-paper: HexGen Appendix B (Table 1) replica latency and memory, written out by hand.

#include "core/cost/cost_model.h"
#include "cost_test_fixtures.h"
#include "tests/test_registry.h"

#include <QtTest>

using namespace hetplan;
using namespace hetplan::testing;

namespace {

// b_t = 2, s_in = 128, s_out = 32, fp16; H = 1024, 8 layers.
Problem inferProblem()
{
    Workload w;
    w.mode = Mode::Infer;
    w.infer.promptLen = 128;
    w.infer.outputLen = 32;
    w.infer.batch = 2;
    w.infer.precision = Precision::Fp16;
    return makeProblem(twoMachineCluster(), smallModel(), w);
}

constexpr double kH2 = 1024.0 * 1024.0;

// Replica 0: A:0 + A:1 (tp 2), all 8 layers. Replica 1: A:2 layers 0–4 → B:0 layers 4–8.
Plan twoReplicas()
{
    Plan plan;
    plan.pipelines = {pipeline(2, 1, {stage({0, 1}, 2, 1, 0, 8)}),
                      pipeline(2, 1, {stage({2}, 1, 1, 0, 4), stage({3}, 1, 1, 4, 8)})};
    return plan;
}

// Eq. 4 + eq. 5 for A:0 + A:1 (m_d = 2000 GB/s, c_d = 100 tflops, 100 GB/s, 1 µs).
double singleStageLatency()
{
    const double scan = 12 * kH2 * 2 * 32 / (2 * 2000e9) * 8;
    const double flops = 24 * 2 * (128 + 32) * kH2 / (2 * 100e12) * 8;
    const double tp = (1e-6 + 2 * 128 * 1024 * 2 / (2 * 100e9)) * 4 * 8
                      + (1e-6 + 2 * 1024 * 2 / (2 * 100e9)) * 4 * 32 * 8;
    return scan + flops + tp;
}

struct TwoStage
{
    double compute = 0;
    double pp = 0;
};

// Eq. 4 for A:2 (Fast) and B:0 (Slow, 1000 GB/s, 50 tflops), 4 layers each; eq. 6 over the
// 1 GB/s, 50 µs link.
TwoStage twoStageLatency()
{
    const double fast
        = 12 * kH2 * 2 * 32 / (1 * 2000e9) * 4 + 24 * 2 * (128 + 32) * kH2 / (1 * 100e12) * 4;
    const double slow
        = 12 * kH2 * 2 * 32 / (1 * 1000e9) * 4 + 24 * 2 * (128 + 32) * kH2 / (1 * 50e12) * 4;
    const double pp = (50e-6 + 2 * 128 * 1024 * 2 / 1e9) + (50e-6 + 2 * 1024 * 2 / 1e9) * 32;
    return {fast + slow, pp};
}

} // namespace

class TestCostHexGen : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void replicaLatencies();
    void breakdownOfSlowestReplica();
    void memoryEquation7();
    void stageEstimateMatchesEvaluation();
    void trainingUsesHexiScaleFormulas();
};

void TestCostHexGen::replicaLatencies()
{
    const Evaluation e
        = CostModel(CostModelKind::HexGenPaper).evaluate(inferProblem(), twoReplicas());
    QVERIFY(e.valid);
    QCOMPARE(e.replicaLatencyS.size(), size_t(2));
    const TwoStage two = twoStageLatency();
    QVERIFY(near(e.replicaLatencyS[0], singleStageLatency()));
    QVERIFY(near(e.replicaLatencyS[1], two.compute + two.pp));
    QVERIFY(near(e.iterationS, std::max(singleStageLatency(), two.compute + two.pp)));
    // b·s_out tokens per replica per latency.
    QVERIFY(
        near(e.tokensPerS, 2.0 * 32 / singleStageLatency() + 2.0 * 32 / (two.compute + two.pp)));
}

void TestCostHexGen::breakdownOfSlowestReplica()
{
    const Evaluation e
        = CostModel(CostModelKind::HexGenPaper).evaluate(inferProblem(), twoReplicas());
    const TwoStage two = twoStageLatency();
    // The two-stage replica over the 1 GB/s link is the slower one.
    QVERIFY(two.compute + two.pp > singleStageLatency());
    QVERIFY(near(e.breakdown.computeS, two.compute));
    QCOMPARE(e.breakdown.tpCommS, 0.0);
    QVERIFY(near(e.breakdown.ppCommS, two.pp));
    QCOMPARE(e.breakdown.dpCommS, 0.0);
    QCOMPARE(e.breakdown.bubbleS, 0.0);
    QVERIFY(near(e.breakdown.totalS(), e.iterationS));
}

void TestCostHexGen::memoryEquation7()
{
    const Evaluation e
        = CostModel(CostModelKind::HexGenPaper).evaluate(inferProblem(), twoReplicas());
    QCOMPARE(e.memory.size(), size_t(4));
    // (12H²·B/|d| + 2·b·(s_in + s_out)·H·B/|d|)·l + 4·b·(s_in + s_out)·H·B.
    const double tp2Bytes
        = (12 * kH2 * 2 / 2 + 2.0 * 2 * 160 * 1024 * 2 / 2) * 8 + 4.0 * 2 * 160 * 1024 * 2;
    const double oneGpu4Layers
        = (12 * kH2 * 2 / 1 + 2.0 * 2 * 160 * 1024 * 2 / 1) * 4 + 4.0 * 2 * 160 * 1024 * 2;
    const double gib = 1024.0 * 1024 * 1024;
    QCOMPARE(e.memory[0].gpu, 0);
    QVERIFY(near(e.memory[0].usedGiB, tp2Bytes / gib));
    QVERIFY(near(e.memory[1].usedGiB, tp2Bytes / gib));
    QCOMPARE(e.memory[3].gpu, 3);
    QVERIFY(near(e.memory[3].usedGiB, oneGpu4Layers / gib));
    QCOMPARE(e.memory[3].capacityGiB, 24.0);
}

void TestCostHexGen::stageEstimateMatchesEvaluation()
{
    const Problem problem = inferProblem();
    const CostModel model(CostModelKind::HexGenPaper);
    const Plan plan = twoReplicas();
    const Evaluation e = model.evaluate(problem, plan);
    const Stage &first = plan.pipelines[1].stages[0];
    const Stage &second = plan.pipelines[1].stages[1];
    const StageQuery q0 = queryOf(first, 2, 0, 2);
    const StageQuery q1 = queryOf(second, 2, 1, 2);
    const StageEstimate s0 = model.estimateStage(problem, q0);
    QVERIFY(near(s0.timing.computeS, e.pipelines[1].stages[0].computeS));
    QVERIFY(near(model.hopS(problem, q0, q1), e.pipelines[1].stages[0].hopS));
    QVERIFY(near(model.objectiveS(problem, plan), e.iterationS));
}

void TestCostHexGen::trainingUsesHexiScaleFormulas()
{
    const Problem problem = makeProblem(twoMachineCluster(), smallModel(), trainWorkload(4, 512));
    Plan plan;
    plan.pipelines = {pipeline(1, 4, {stage({0, 1}, 2, 1, 0, 4), stage({3}, 1, 1, 4, 8)})};
    const Evaluation hexgen = CostModel(CostModelKind::HexGenPaper).evaluate(problem, plan);
    const Evaluation hexiscale = CostModel(CostModelKind::HexiScalePaper).evaluate(problem, plan);
    QVERIFY(hexgen.iterationS > 0);
    QCOMPARE(hexgen.iterationS, hexiscale.iterationS);
}

HETPLAN_TEST_APPLESS_MAIN(TestCostHexGen)
#include "tst_cost_hexgen.moc"
