// One rank's phases, as the prediction and the measurement both define them (docs/runtime.md,
// "Phases per rank"): a hand plan whose per-rank figures are worked out below by hand.
#include "core/cost/rank_phases.h"
#include "core/plan/plan.h"
#include "tests/test_registry.h"

#include <QtTest>

using namespace hetplan;

namespace {

// One pipeline of two single-GPU stages and two micro-batches. Per micro-batch each stage
// computes 1 s forward and 2 s backward; the hop between them takes 0.25 s each way.
struct HandPlan
{
    Plan plan;
    Evaluation evaluation;
};

HandPlan twoStages()
{
    HandPlan h;
    Pipeline pipeline;
    pipeline.microBatch = 1;
    pipeline.microBatches = 2;
    for (int s = 0; s < 2; ++s) {
        Stage stage;
        stage.gpus = {s};
        stage.layerBegin = 4 * s;
        stage.layerEnd = 4 * s + 4;
        pipeline.stages.push_back(stage);
    }
    h.plan.pipelines = {pipeline};
    h.evaluation.pipelines.resize(1);
    StageTiming first{1, 2, 3, 0, 0.5, 0, 0.25}; // forward, backward, compute, tp, hop, dp, fwd hop
    StageTiming last{1, 2, 3, 0, 0, 0, 0};
    h.evaluation.pipelines[0].stages = {first, last};
    return h;
}

RankPhases seat(int rank, int stage, int tpIndex = 0)
{
    RankPhases r;
    r.rank = rank;
    r.stage = stage;
    r.tpIndex = tpIndex;
    return r;
}

} // namespace

class TestRankPhases : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void exchangesFuseAsTheScheduleDoes_data()
    {
        QTest::addColumn<int>("stage");
        QTest::addColumn<int>("stageCount");
        QTest::addColumn<int>("microBatches");
        QTest::addColumn<bool>("handOff");
        QTest::addColumn<double>("expectedS");
        // Hops per micro-batch: in from prev 1, out to prev 2, in from next 4, out to next 8.
        // One stage: no hops at all.
        QTest::newRow("alone") << 0 << 1 << 3 << false << 0.0;
        // Middle stage of 3, 3 micro-batches: one warm-up forward (in 1 and out 8 alone), then
        // the first steady forward's in (1), two steady "out 8 with in 4" (8 each), the
        // gradient out 2 with the next in 1 (2), the last gradient out alone (2), then the
        // cool-down in 4 and out 2: 9 + 1 + 16 + 2 + 2 + 6.
        QTest::newRow("middle") << 1 << 3 << 3 << false << 36.0;
        // Fewer micro-batches than stages after it: every transfer alone, 2 × (1 + 2 + 4 + 8).
        QTest::newRow("all warm-up") << 0 << 4 << 2 << false << 30.0;
        // Sends that return on hand-off (Gloo) hold the rank for nothing: the same exchanges
        // take their receives' time, 1 + 4 + 1 + 2 × 4 + 1.
        QTest::newRow("middle, hand-off") << 1 << 3 << 3 << true << 15.0;
        QTest::newRow("all warm-up, hand-off") << 0 << 4 << 2 << true << 10.0;
    }
    void exchangesFuseAsTheScheduleDoes()
    {
        QFETCH(int, stage);
        QFETCH(int, stageCount);
        QFETCH(int, microBatches);
        QFETCH(bool, handOff);
        QFETCH(double, expectedS);
        HopPhases hops{1, 2, 4, 8};
        if (stageCount == 1)
            hops = {};
        const SendsReturn sends = handOff ? SendsReturn::OnHandOff : SendsReturn::OnArrival;
        QCOMPARE(scheduleExchanges(hops, stage, stageCount, microBatches, sends).ppCommS,
                 expectedS);
    }

    void aGlooSendAloneHoldsItsRankForNothing()
    {
        // The hand plan on Gloo: the first stage's warm-up send returns at once, its steady
        // exchange takes the gradient's receive; the last stage's last gradient goes out alone.
        HandPlan h = twoStages();
        QCOMPARE(sendsReturnOf(BackendKind::Gloo), SendsReturn::OnHandOff);
        QCOMPARE(sendsReturnOf(BackendKind::Cuda), SendsReturn::OnArrival);
        std::vector<RankPhases> ranks{seat(0, 0), seat(1, 1)};
        QVERIFY(predictRankPhases(h.plan, h.evaluation, ranks, SendsReturn::OnHandOff));
        QCOMPARE(ranks[0].hops, (HopPhases{0, 0, 0.5, 0.25}));
        QCOMPARE(ranks[0].breakdown.ppCommS, 0.5);
        QCOMPARE(ranks[1].hops, (HopPhases{0.5, 0.25, 0, 0}));
        QCOMPARE(ranks[1].breakdown.ppCommS, 0.5);
        // The schedule is the stage's either way: what a send does not hold, the rank waits.
        QCOMPARE(ranks[0].wallS, 9.75);
        QCOMPARE(ranks[0].breakdown.bubbleS, 9.75 - 6 - 0.5);
    }

    void handPlanPerRank()
    {
        HandPlan h = twoStages();
        std::vector<RankPhases> ranks{seat(0, 0), seat(1, 1)};
        QVERIFY(predictRankPhases(h.plan, h.evaluation, ranks));
        // 1F1B: stage 0 runs F0 [0, 1.25] and F1 [1.25, 2.5] (each with its 0.25 s send), B0
        // when stage 1's B0 is done at 4.5 until 6.5, B1 at 7.75 until 9.75. Stage 1 runs F0
        // [1.25, 2.25], B0 [2.25, 4.5] (with its send back), F1 [4.5, 5.5], B1 [5.5, 7.75].
        const RankPhases &first = ranks[0];
        QCOMPARE(first.breakdown.computeS, 6.0);
        QCOMPARE(first.hops, (HopPhases{0, 0, 0.5, 0.5}));
        // Warm-up: F0's send alone; steady: F1's send with B0's gradient in (0.25); cool-down:
        // B1's gradient in alone.
        QCOMPARE(first.breakdown.ppCommS, 0.75);
        QCOMPARE(first.breakdown.bubbleS, 9.75 - 6 - 0.75);
        QCOMPARE(first.wallS, 9.75);
        const RankPhases &last = ranks[1];
        QCOMPARE(last.hops, (HopPhases{0.5, 0.5, 0, 0}));
        // The last stage exchanges too: F0's activation in; B0's gradient out with F1's
        // activation in; B1's gradient out.
        QCOMPARE(last.breakdown.ppCommS, 0.75);
        QCOMPARE(last.breakdown.bubbleS, 7.75 - 6 - 0.75);
        QCOMPARE(last.wallS, 7.75);
        QCOMPARE(endingRank(ranks), std::size_t(0));
    }

    void tpFollowersReceiveButDoNotSend()
    {
        HandPlan h = twoStages();
        std::vector<RankPhases> ranks{seat(2, 1, 1)};
        QVERIFY(predictRankPhases(h.plan, h.evaluation, ranks));
        QCOMPARE(ranks[0].hops, (HopPhases{0.5, 0, 0, 0}));
    }

    void gradientSyncWaitsForTheStagesItSharesWith()
    {
        // A second pipeline holding the same layers, twice as slow: each stage of the first
        // waits for its twin before its gradient sync.
        HandPlan h = twoStages();
        h.plan.pipelines.push_back(h.plan.pipelines[0]);
        h.evaluation.pipelines.push_back(h.evaluation.pipelines[0]);
        for (StageTiming &t : h.evaluation.pipelines[1].stages) {
            t.forwardS *= 2;
            t.backwardS *= 2;
            t.computeS *= 2;
        }
        for (PipelineTiming &p : h.evaluation.pipelines)
            for (StageTiming &t : p.stages)
                t.dpCommS = 0.125;
        std::vector<RankPhases> ranks{seat(0, 0), seat(1, 1)};
        ranks.push_back(seat(2, 0));
        ranks.back().pipeline = 1;
        QVERIFY(predictRankPhases(h.plan, h.evaluation, ranks));
        QVERIFY(ranks[2].wallS > 9.75 + 0.125);
        QCOMPARE(ranks[0].wallS, ranks[2].wallS);
        QCOMPARE(ranks[0].breakdown.bubbleS, ranks[2].wallS - 6 - 0.75 - 0.125);
        QCOMPARE(endingRank(ranks), std::size_t(0)); // the first of the equally late ones
    }

    void theSyncWaitsForArrivalsNotForOptimizerSteps()
    {
        // Two single-stage replicas of the same layers, two micro-batches each: the first
        // computes 3 s per micro-batch, of which its optimizer step's share is 0.5 s; the
        // second 4 s, of which 1.5 s. The runtime runs the step after the sync, so the second
        // reaches the sync at 2 × (4 - 1.5) = 5 s, the first at 2 × (3 - 0.5) = 5 s: neither
        // waits, though the second ends 2 s later.
        Plan plan;
        Evaluation evaluation;
        for (int r = 0; r < 2; ++r) {
            Pipeline pipeline;
            pipeline.microBatch = 1;
            pipeline.microBatches = 2;
            Stage stage;
            stage.gpus = {r};
            stage.layerBegin = 0;
            stage.layerEnd = 4;
            pipeline.stages = {stage};
            plan.pipelines.push_back(pipeline);
            StageTiming t{1, 2, 3, 0, 0, 0.25, 0};
            t.optimizerS = 0.5;
            if (r == 1) {
                t.backwardS = 3;
                t.computeS = 4;
                t.optimizerS = 1.5;
            }
            evaluation.pipelines.push_back({});
            evaluation.pipelines.back().stages = {t};
        }
        std::vector<RankPhases> ranks = planRankPhases(plan, evaluation);
        QCOMPARE(ranks.size(), std::size_t(2));
        QCOMPARE(ranks[0].breakdown.bubbleS, 0.0);
        QCOMPARE(ranks[1].breakdown.bubbleS, 0.0);
        QCOMPARE(ranks[1].wallS - ranks[0].wallS, 2.0);
        // With the whole step before the sync, as the schedule spreads it, the first would
        // wait 2 s: what the arrivals correct.
        for (PipelineTiming &p : evaluation.pipelines)
            p.stages[0].optimizerS = 0;
        ranks = planRankPhases(plan, evaluation);
        QCOMPARE(ranks[0].breakdown.bubbleS, 2.0);
    }

    void everyRankOfThePlanInRankOrder()
    {
        // Ranks by pipeline, stage, DP replica, TP index: a TP 2 stage's second GPU is its
        // follower, which receives but does not send.
        HandPlan h = twoStages();
        h.plan.pipelines[0].stages[0].gpus = {0, 2};
        h.plan.pipelines[0].stages[0].tp = 2;
        const std::vector<RankPhases> ranks = planRankPhases(h.plan, h.evaluation);
        QCOMPARE(ranks.size(), std::size_t(3));
        QCOMPARE(ranks[1].rank, 1);
        QCOMPARE(ranks[1].tpIndex, 1);
        QCOMPARE(ranks[1].hops, (HopPhases{0, 0, 0.5, 0}));
        QCOMPARE(ranks[2].stage, 1);
        QCOMPARE(ranks[0].hops, (HopPhases{0, 0, 0.5, 0.5}));
        h.evaluation.pipelines.clear();
        QVERIFY(planRankPhases(h.plan, h.evaluation).empty());
    }

    void replicasFacingOneRankCarryTheirOwnPart()
    {
        // Stage 0 two DP replicas (GPUs 0 and 2), stage 1 one GPU: each replica's own rows take
        // 0.1 s alone each way, the whole hop over stage 1's link 0.25 s. A replica's part is
        // halfway (docs/runtime.md, "Phases per rank"); the single rank waits for the whole.
        HandPlan h = twoStages();
        Stage &several = h.plan.pipelines[0].stages[0];
        several.gpus = {0, 2};
        several.dp = 2;
        StageTiming &hop = h.evaluation.pipelines[0].stages[0];
        hop.hopForwardOwnS = hop.hopBackwardOwnS = 0.1;
        const std::vector<RankPhases> ranks = planRankPhases(h.plan, h.evaluation);
        QCOMPARE(ranks.size(), std::size_t(3));
        const double partS = (0.1 + 0.25) / 2;
        QCOMPARE(ranks[0].hops, (HopPhases{0, 0, 2 * partS, 2 * partS}));
        QCOMPARE(ranks[1].hops, ranks[0].hops);
        QCOMPARE(ranks[0].breakdown.ppCommS, 3 * partS);
        QCOMPARE(ranks[2].hops, (HopPhases{0.5, 0.5, 0, 0}));
        // The schedule and so each rank's end are the stage's: what the part saves is waiting.
        const std::vector<RankPhases> whole = planRankPhases(twoStages().plan, h.evaluation);
        QCOMPARE(ranks[0].wallS, whole[0].wallS);
        QCOMPARE(ranks[0].breakdown.bubbleS,
                 whole[0].breakdown.bubbleS + whole[0].breakdown.ppCommS - 3 * partS);
    }

    void aRankOutsideThePlanIsRefused()
    {
        HandPlan h = twoStages();
        std::vector<RankPhases> ranks{seat(0, 2)};
        QVERIFY(!predictRankPhases(h.plan, h.evaluation, ranks));
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestRankPhases)
#include "tst_rank_phases.moc"
