// hetplan (the realistic default): outcomes a person planning a real run relies on.

#include "core/cost/cost_model.h"
#include "core/io/catalog_json.h"
#include "core/model/transport_figures.h"
#include "cost_test_fixtures.h"
#include "tests/test_registry.h"

#include <QtTest>

#include <cmath>

using namespace hetplan;
using namespace hetplan::testing;

Q_DECLARE_METATYPE(hetplan::Plan)

namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;

// HexiScale §3.1: A 3 × A800-80G (NVLink 200 GB/s), B 3 × RTX 4090 (PCIe 32 GB/s),
// C 2 × RTX 3090 (PCIe 16 GB/s), 1 GB/s between machines. Built-in GPU catalog.
Problem caseStudy()
{
    Cluster c;
    c.name = "case-study";
    c.machines = {machine("A", "A800-80G", 3, 200, 5), machine("B", "RTX4090-24G", 3, 32, 10),
                  machine("C", "RTX3090-24G", 2, 16, 10)};
    c.switches = {{"ethernet", {}}};
    c.links = {{"A", "ethernet", LinkKind::Ethernet, 1, 50},
               {"B", "ethernet", LinkKind::Ethernet, 1, 50},
               {"C", "ethernet", LinkKind::Ethernet, 1, 50}};
    auto topology = Topology::build(c, builtinGpuCatalog());
    if (!topology)
        qFatal("case study: %s", topology.error().message.c_str());
    const ModelSpec *llama = builtinModelCatalog().find("llama2-13b");
    if (!llama)
        qFatal("llama2-13b missing from the model catalog");
    Workload w = trainWorkload(24, 4096);
    return Problem{std::move(topology).value(), *llama, w};
}

// One pipeline over all 8 GPUs, cluster order, the given layer counts, 24 micro-batches of 1.
Plan onePipeline(std::initializer_list<int> layerCounts)
{
    Pipeline p;
    p.microBatch = 1;
    p.microBatches = 24;
    int gpu = 0;
    int layer = 0;
    for (int count : layerCounts) {
        p.stages.push_back(stage({gpu}, 1, 1, layer, layer + count));
        ++gpu;
        layer += count;
    }
    Plan plan;
    plan.pipelines = {p};
    return plan;
}

// A:0 + A:1 (tp 2) layers 0–5 → B:0 + B:1 (tp 2) layers 5–8; A:2 → B:2 as a second pipeline.
// Uses every kind of communication: TP in A and B, hops A → B, gradient sync across.
Plan mixedPlan()
{
    Plan plan;
    plan.pipelines = {pipeline(1, 4, {stage({0, 1}, 2, 1, 0, 5), stage({3, 4}, 2, 1, 5, 8)}),
                      pipeline(1, 4, {stage({2}, 1, 1, 0, 4), stage({5}, 1, 1, 4, 8)})};
    return plan;
}

} // namespace

class TestCostHetPlan : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void moreBandwidthIsNeverSlower_data();
    void moreBandwidthIsNeverSlower();
    void llama13bSymmetricPipelineDoesNotFitButAsymmetricDoes();
    void tpGroupRules_data();
    void tpGroupRules();
    void memoryGrowsWithMicroBatchesInFlight();
    void recomputationTradesMemoryForTime();
    void computeFromRealFlops();
    void workBesidesGemmsIsAStatedShareOnAnA100();
    void asymmetricGradientSyncRunsChunksInSequence();
    void replicasBehindOneLinkShareIt();
    void gradientRingsLeavingOneMachineShareItsLink();
    void breakdownAddsUpAndMfuIsAFraction();
    void inferenceLatencyAndMemory();
};

void TestCostHetPlan::moreBandwidthIsNeverSlower_data()
{
    QTest::addColumn<double>("slowInterGBps");
    QTest::addColumn<double>("fastInterGBps");
    QTest::addColumn<double>("slowIntraBGBps");
    QTest::addColumn<double>("fastIntraBGBps");
    QTest::addColumn<int>("mode");
    QTest::newRow("network 1 → 10 GB/s") << 1.0 << 10.0 << 10.0 << 10.0 << int(Mode::Train);
    QTest::newRow("network 0.1 → 1 GB/s") << 0.1 << 1.0 << 10.0 << 10.0 << int(Mode::Train);
    QTest::newRow("B's PCIe 10 → 50 GB/s") << 1.0 << 1.0 << 10.0 << 50.0 << int(Mode::Train);
    QTest::newRow("both, inference") << 1.0 << 5.0 << 10.0 << 50.0 << int(Mode::Infer);
}

void TestCostHetPlan::moreBandwidthIsNeverSlower()
{
    QFETCH(double, slowInterGBps);
    QFETCH(double, fastInterGBps);
    QFETCH(double, slowIntraBGBps);
    QFETCH(double, fastIntraBGBps);
    QFETCH(int, mode);
    Workload w = trainWorkload(8, 512);
    w.mode = Mode(mode);
    const Problem slow
        = makeProblem(twoMachineCluster(slowInterGBps, slowIntraBGBps), smallModel(), w);
    const Problem fast
        = makeProblem(twoMachineCluster(fastInterGBps, fastIntraBGBps), smallModel(), w);
    const CostModel model(CostModelKind::HetPlan);
    const Evaluation slowEvaluation = model.evaluate(slow, mixedPlan());
    const Evaluation fastEvaluation = model.evaluate(fast, mixedPlan());
    QVERIFY(slowEvaluation.valid && fastEvaluation.valid);
    // Every link that got faster carries traffic in this plan, so it is strictly faster.
    QVERIFY(fastEvaluation.iterationS < slowEvaluation.iterationS);
}

void TestCostHetPlan::llama13bSymmetricPipelineDoesNotFitButAsymmetricDoes()
{
    const Problem problem = caseStudy();
    // 13.0e9 parameters × 18 bytes (mixed-precision Adam, fp32 gradients) ≈ 218 GiB of the
    // 360 GiB in total: it fits only if the 80 GiB A800s hold most of the layers.
    const double stateGiB = problem.model.totalParams() * 18 / kGiB;
    QVERIFY(stateGiB > 210 && stateGiB < 225);
    const CostModel model(CostModelKind::HetPlan);

    // Megatron's symmetric pp = 8: 5 layers per GPU. A 24 GiB GPU would need
    // 5 × 317 204 480 params × 18 bytes = 26.6 GiB for weights and optimizer alone, plus the
    // CUDA context and NCCL buffers.
    const Evaluation symmetric = model.evaluate(problem, onePipeline({5, 5, 5, 5, 5, 5, 5, 5}));
    QVERIFY(!symmetric.fitsInMemory());
    QCOMPARE(symmetric.memory.size(), size_t(8));
    const double stateOf5LayersGiB = 5 * 317204480.0 * 18 / kGiB;
    for (const GpuMemory &m : symmetric.memory) {
        QVERIFY(m.usedGiB > stateOf5LayersGiB + 1.0);
        QCOMPARE(m.fits(), m.capacityGiB == 80); // only the A800s have room
    }
    QCOMPARE(symmetric.errors.size(), size_t(5));
    QVERIFY(QString::fromStdString(symmetric.errors.front())
                .startsWith(QStringLiteral("pipeline 0, stage 3, GPU B:0: needs ")));
    QVERIFY(std::isinf(model.objectiveS(problem, onePipeline({5, 5, 5, 5, 5, 5, 5, 5}))));

    // Layers by memory: 10 + 8 + 8 on the A800s, 3 on each 24 GiB GPU but the last, which also
    // holds the head and its fp32 logits over the whole vocabulary.
    const Plan asymmetric = onePipeline({10, 8, 8, 3, 3, 3, 3, 2});
    const Evaluation fitted = model.evaluate(problem, asymmetric);
    QVERIFY2(fitted.fitsInMemory(), fitted.errors.empty() ? "" : fitted.errors.front().c_str());
    QVERIFY(fitted.errors.empty());
    QCOMPARE(model.objectiveS(problem, asymmetric), fitted.iterationS);
}

void TestCostHetPlan::tpGroupRules_data()
{
    QTest::addColumn<QList<int>>("gpus");
    QTest::addColumn<int>("kvHeads");
    QTest::addColumn<QString>("problem");
    QTest::newRow("two A800s") << QList<int>{0, 1} << 40 << QString();
    QTest::newRow("one GPU") << QList<int>{3} << 40 << QString();
    QTest::newRow("across machines")
        << QList<int>{2, 3} << 40
        << QStringLiteral("GPUs A:2 and B:0 are in different machines; tensor parallelism needs "
                          "one machine");
    QTest::newRow("3 does not divide 40 heads")
        << QList<int>{0, 1, 2} << 40 << QStringLiteral("tp = 3 does not divide 40 attention heads");
    QTest::newRow("GQA: 2 divides 40 heads but not 5 kv heads")
        << QList<int>{0, 1} << 5 << QStringLiteral("tp = 2 does not divide 5 key-value heads");
}

void TestCostHetPlan::tpGroupRules()
{
    QFETCH(QList<int>, gpus);
    QFETCH(int, kvHeads);
    QFETCH(QString, problem);
    Problem p = caseStudy();
    p.model.kvHeads = kvHeads;
    const std::vector<int> group(gpus.begin(), gpus.end());
    const CostModel model(CostModelKind::HetPlan);
    QCOMPARE(QString::fromStdString(model.tpGroupProblem(p, group)), problem);
    QCOMPARE(model.allowsTpGroup(p, group), problem.isEmpty());
}

void TestCostHetPlan::memoryGrowsWithMicroBatchesInFlight()
{
    const Problem problem = caseStudy();
    const CostModel model(CostModelKind::HetPlan);
    const Stage first = stage({0}, 1, 1, 0, 10);
    // 1F1B: the first of 4 stages holds min(m, 4) micro-batches.
    double previousGiB = 0;
    for (int microBatches : {1, 2, 3, 4}) {
        const double gib
            = model.estimateStage(problem, queryOf(first, 1, 0, 4, microBatches)).peakMemoryGiB;
        QVERIFY(gib > previousGiB);
        previousGiB = gib;
    }
    const double atEight = model.estimateStage(problem, queryOf(first, 1, 0, 4, 8)).peakMemoryGiB;
    QCOMPARE(atEight, previousGiB);
    // The last stage holds one micro-batch whatever m is.
    const Stage last = stage({0}, 1, 1, 30, 40);
    QCOMPARE(model.estimateStage(problem, queryOf(last, 1, 3, 4, 1)).peakMemoryGiB,
             model.estimateStage(problem, queryOf(last, 1, 3, 4, 8)).peakMemoryGiB);
}

void TestCostHetPlan::recomputationTradesMemoryForTime()
{
    Problem problem = caseStudy();
    const CostModel model(CostModelKind::HetPlan);
    const Stage tenLayers = stage({0}, 1, 1, 0, 10);
    const StageQuery query = queryOf(tenLayers, 1, 0, 4, 4);
    double memoryGiB[3];
    double computeS[3];
    const Recompute modes[3] = {Recompute::None, Recompute::Selective, Recompute::Full};
    for (int i = 0; i < 3; ++i) {
        problem.workload.train.recompute = modes[i];
        const StageEstimate estimate = model.estimateStage(problem, query);
        memoryGiB[i] = estimate.peakMemoryGiB;
        computeS[i] = estimate.timing.computeS;
    }
    QVERIFY(memoryGiB[0] > memoryGiB[1] && memoryGiB[1] > memoryGiB[2]);
    QVERIFY(computeS[0] < computeS[1] && computeS[1] < computeS[2]);
}

void TestCostHetPlan::computeFromRealFlops()
{
    // One layer on one Fast GPU (100 tflops × 0.5 achieved), S = 512, b = 1, full
    // recomputation, not the last stage: forward 2·b·S·(GEMM params) + 2·b·S²·H (causal),
    // then backward 2× and the recomputed forward: 4 forwards in all.
    const Problem problem = makeProblem(twoMachineCluster(), smallModel(), trainWorkload(1, 512));
    const Stage oneLayer = stage({0}, 1, 1, 0, 1);
    const StageEstimate estimate
        = CostModel(CostModelKind::HetPlan).estimateStage(problem, queryOf(oneLayer, 1, 0, 2));
    // GEMM params of a layer: 4·1024² (attention) + 3·1024·4096 (SwiGLU) = 16 777 216.
    const double forwardFlops = 2.0 * 512 * 16777216 + 2.0 * 512 * 512 * 1024;
    // Besides the GEMMs, at 0.8 × 2000 GB/s (docs/cost-models.md, "Work besides the GEMMs"):
    // the layer's stash per token, 2·(4·1024 + 2·1024 + 2·1024 + 2·4096) + 2·4 = 32 776 bytes,
    // twice in the forward; 1.5× that in the backward and once more for the recomputed forward;
    // the optimizer reads and writes the 18 bytes per parameter of the layer and the embedding
    // (16 779 264 + 1 024 000) once in this iteration of one micro-batch.
    const double bytesPerS = 0.8 * 2000e9;
    const double forwardBytes = 2.0 * 32776 * 512;
    const double optimizerBytes = 2.0 * 18 * (16779264.0 + 1024000);
    const double forwardS = forwardFlops / (100e12 * 0.5) + forwardBytes / bytesPerS;
    const double backwardS
        = 3 * forwardFlops / (100e12 * 0.5) + (2.5 * forwardBytes + optimizerBytes) / bytesPerS;
    QVERIFY(near(estimate.timing.forwardS, forwardS));
    QVERIFY(near(estimate.timing.computeS, forwardS + backwardS));
    QCOMPARE(estimate.timing.tpCommS, 0.0);
}

void TestCostHetPlan::workBesidesGemmsIsAStatedShareOnAnA100()
{
    // One Llama 2 7B layer in the middle of a pipeline on one A100-80G (312 TFLOPS × 0.6,
    // 2039 GB/s × 0.8), a sequence of 2048, selective recomputation, 8 micro-batches per
    // iteration: a training step with no decode and no head. The GEMMs (attention scores
    // included) take 14.0 ms per micro-batch; the norms, rotary, activation and residual adds
    // move 5 × 109 576 bytes per token (0.69 ms, 4.9 % of the GEMMs), and the optimizer's
    // 36 bytes per parameter of 202 383 360, over 8 micro-batches, 0.56 ms more: 8.9 % in all,
    // as fused kernels move it (unfused, it is several times more: docs/cost-models.md).
    Cluster c;
    c.name = "one-a100";
    c.machines = {machine("A", "A100-80G", 1, 300, 1)};
    auto topology = Topology::build(c, builtinGpuCatalog());
    QVERIFY(topology);
    const ModelSpec *llama = builtinModelCatalog().find("llama2-7b");
    QVERIFY(llama);
    Workload w = trainWorkload(8, 2048);
    w.train.recompute = Recompute::Selective;
    const Problem problem{std::move(topology).value(), *llama, w};
    const StageTiming timing
        = CostModel(CostModelKind::HetPlan)
              .estimateStage(problem, queryOf(stage({0}, 1, 1, 1, 2), 1, 1, 3, 8))
              .timing;
    const double gemmForwardFlops = 2.0 * 2048 * 202375168 + 2.0 * 2048 * 2048 * 4096;
    const double gemmS = (3 * gemmForwardFlops + 2.0 * 2048 * 2048 * 4096) / (312e12 * 0.6);
    const double bytesPerS = 0.8 * 2039e9;
    const double layerS = 5.0 * 109576 * 2048 / bytesPerS;
    const double optimizerS = 36.0 * 202383360 / 8 / bytesPerS;
    QVERIFY2(near(timing.computeS, gemmS + layerS + optimizerS),
             std::to_string(timing.computeS).c_str());
    const double share = (timing.computeS - gemmS) / gemmS;
    QVERIFY2(share > 0.085 && share < 0.095, std::to_string(share).c_str());
}

void TestCostHetPlan::asymmetricGradientSyncRunsChunksInSequence()
{
    // Pipeline 0 holds every layer on A:0 + A:1 (tp 2), pipeline 1 on A:2 alone. Each tensor
    // is cut into 2 chunks (the tp 2 shard); chunk 0 is all-reduced by A:0 and A:2, chunk 1
    // by A:1 and A:2. A:2 runs both in sequence. Ring of 2 over A's 100 GB/s, 1 µs PCIe at
    // the PCIe transport's efficiency e and per-hop latency α_t:
    // 2·(2−1)/2 · bytes/(e·100e9) + 2·(2−1)·(1e-6 + α_t) per chunk, chunk = params·2 bytes / 2.
    const Problem problem = makeProblem(twoMachineCluster(), smallModel(), trainWorkload(2, 512));
    Plan plan;
    plan.pipelines
        = {pipeline(1, 1, {stage({0, 1}, 2, 1, 0, 8)}), pipeline(1, 1, {stage({2}, 1, 1, 0, 8)})};
    const TransportFigures &pcie = transportFigures(problem.topology.cluster(), LinkKind::Pcie);
    // A chunk's layers go out in buckets of 2^25 elements, one ring latency each.
    const auto twoChunksS = [&](double params, double buckets) {
        return 2
               * (params / (pcie.efficiency * 100e9)
                  + buckets * 2 * (1e-6 + pcie.latencyUs * 1e-6));
    };
    // Layer: 4·1024² + 3·1024·4096 + 2·1024 = 16 779 264, 8 of them: 67 117 056 elements per
    // chunk, 3 buckets; embedding 1000·1024; head + norm.
    const double expected
        = twoChunksS(8 * 16779264.0, 3) + twoChunksS(1024000, 1) + twoChunksS(1025024, 1);
    const Evaluation e = CostModel(CostModelKind::HetPlan).evaluate(problem, plan);
    QVERIFY(near(e.breakdown.dpCommS, expected));
    QVERIFY(near(e.pipelines[1].stages[0].dpCommS, expected));
    QVERIFY(near(e.pipelines[0].stages[0].dpCommS, expected / 2));
}

void TestCostHetPlan::replicasBehindOneLinkShareIt()
{
    // A:0 sends a micro-batch of 2 sequences to a dp 2 stage on B:0 and B:1, one sequence
    // each. Both shares cross the same 1 GB/s, 50 µs link into B at the same time, so the
    // forward hop moves 2 sequences' activations through it, not one. The gradient goes back
    // to the single A:0 replica: 2 sequences from the best sender. The link is Ethernet: TCP
    // sockets at their efficiency and per-hop latency.
    const Problem problem = makeProblem(twoMachineCluster(), smallModel(), trainWorkload(2, 512));
    const Stage sender = stage({0}, 1, 1, 0, 4);
    const Stage receiver = stage({3, 4}, 1, 2, 4, 8);
    const double sequenceBytes = 512.0 * 1024 * 2;
    const TransportFigures &tcp = transportFigures(problem.topology.cluster(), LinkKind::Ethernet);
    const double twoSequencesS
        = 50e-6 + tcp.latencyUs * 1e-6 + 2 * sequenceBytes / (tcp.efficiency * 1e9);
    const double hopS = CostModel(CostModelKind::HetPlan)
                            .hopS(problem, queryOf(sender, 2, 0, 2), queryOf(receiver, 2, 1, 2));
    QVERIFY2(near(hopS, 2 * twoSequencesS), std::to_string(hopS).c_str());

    // Each B replica's own sequence, alone, each way: what its rank's hop rows start from
    // (core/cost/rank_phases.h).
    const double oneSequenceS
        = 50e-6 + tcp.latencyUs * 1e-6 + sequenceBytes / (tcp.efficiency * 1e9);
    Plan plan;
    plan.pipelines = {pipeline(2, 1, {sender, receiver})};
    const StageTiming hop
        = CostModel(CostModelKind::HetPlan).evaluate(problem, plan).pipelines[0].stages[0];
    QVERIFY2(near(hop.hopForwardS, twoSequencesS), std::to_string(hop.hopForwardS).c_str());
    QVERIFY2(near(hop.hopForwardOwnS, oneSequenceS), std::to_string(hop.hopForwardOwnS).c_str());
    QVERIFY2(near(hop.hopBackwardOwnS, oneSequenceS), std::to_string(hop.hopBackwardOwnS).c_str());
}

void TestCostHetPlan::gradientRingsLeavingOneMachineShareItsLink()
{
    // Two tp 2 pipelines, one per machine: chunk 0 is all-reduced by A:0 and B:0, chunk 1 by
    // A:1 and B:1, at the same time, both over the one 1 GB/s link between A and B. Each ring
    // of 2 moves its whole chunk across that link, so the link carries every gradient byte
    // once: params · 2 bytes over the link's effective Ethernet bandwidth, twice what either
    // ring would take alone.
    const Problem problem = makeProblem(twoMachineCluster(), smallModel(), trainWorkload(2, 512));
    Plan plan;
    plan.pipelines = {pipeline(1, 1, {stage({0, 1}, 2, 1, 0, 8)}),
                      pipeline(1, 1, {stage({3, 4}, 2, 1, 0, 8)})};
    const double params = 8 * 16779264.0 + 1024000 + 1025024;
    const double efficiency
        = transportFigures(problem.topology.cluster(), LinkKind::Ethernet).efficiency;
    const Evaluation e = CostModel(CostModelKind::HetPlan).evaluate(problem, plan);
    QVERIFY2(near(e.breakdown.dpCommS, params * 2 / (efficiency * 1e9)),
             std::to_string(e.breakdown.dpCommS).c_str());
}

void TestCostHetPlan::breakdownAddsUpAndMfuIsAFraction()
{
    const Problem problem = caseStudy();
    const Evaluation e = CostModel(CostModelKind::HetPlan)
                             .evaluate(problem, onePipeline({9, 8, 8, 3, 3, 3, 3, 3}));
    QVERIFY(e.valid);
    QVERIFY(near(e.breakdown.totalS(), e.iterationS, 1e-12));
    QVERIFY(e.breakdown.bubbleS > 0);
    QCOMPARE(e.breakdown.dpCommS, 0.0); // one replica: nothing to synchronise
    QVERIFY(e.mfu > 0.05 && e.mfu < 1);
    QVERIFY(near(e.tokensPerS, 24.0 * 4096 / e.iterationS));
    QVERIFY(e.costPerMillionTokensUsd.has_value() && *e.costPerMillionTokensUsd > 0);

    const Evaluation mixed
        = CostModel(CostModelKind::HetPlan)
              .evaluate(makeProblem(twoMachineCluster(), smallModel(), trainWorkload(8, 512)),
                        mixedPlan());
    QVERIFY(mixed.breakdown.dpCommS > 0);
    QVERIFY(mixed.pipelines[0].breakdown.tpCommS > 0);
    QVERIFY(near(mixed.breakdown.totalS(), mixed.iterationS, 1e-12));
    QVERIFY(mixed.mfu > 0 && mixed.mfu < 1);
}

void TestCostHetPlan::inferenceLatencyAndMemory()
{
    Workload w;
    w.mode = Mode::Infer;
    w.infer.promptLen = 512;
    w.infer.outputLen = 128;
    w.infer.batch = 4;
    const Problem problem = makeProblem(twoMachineCluster(), smallModel(), w);
    const Evaluation e = CostModel(CostModelKind::HetPlan).evaluate(problem, mixedPlan());
    QVERIFY(e.valid && e.fitsInMemory());
    QCOMPARE(e.replicaLatencyS.size(), size_t(2));
    QCOMPARE(e.iterationS, std::max(e.replicaLatencyS[0], e.replicaLatencyS[1]));
    QVERIFY(
        near(e.tokensPerS, 4.0 * 128 / e.replicaLatencyS[0] + 4.0 * 128 / e.replicaLatencyS[1]));
    QVERIFY(near(e.breakdown.totalS(), e.iterationS, 1e-12));
    // Decoding is bound by memory bandwidth: no faster than scanning the stage's weights
    // 128 times at 80% of 1000 GB/s (B:2 holds 4 layers and the head in fp16).
    const double weightBytes = (4 * 16779264.0 + 1000 * 1024) * 2;
    QVERIFY(e.replicaLatencyS[1] > 128 * weightBytes / (0.8 * 1000e9));
}

HETPLAN_TEST_APPLESS_MAIN(TestCostHetPlan)
#include "tst_cost_hetplan.moc"
