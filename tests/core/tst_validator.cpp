// Every plan rule of docs/formats.md produces one issue whose message tells the person where the
// problem is (pipeline, stage, GPU by name) and what is wrong.
#include "core/cost/cost_model.h"
#include "core/cost/problem.h"
#include "core/cost/validator.h"
#include "core/io/catalog_json.h"
#include "core/plan/plan.h"
#include "tests/test_registry.h"

#include <QRegularExpression>
#include <QtTest>

#include <memory>

using namespace hetplan;

Q_DECLARE_METATYPE(hetplan::Plan)

namespace {

// GPU indices of the fixture: A:0 = 0, A:1 = 1, B:0 = 2, B:1 = 3, C:0 = 4, C:1 = 5.
// A and B hang off one switch; C has no link at all.
Cluster fixtureCluster()
{
    Cluster cluster;
    cluster.name = "validator-fixture";
    cluster.machines = {
        {"A", "A100-80G", 2, "", {LinkKind::NvLink, 200, 5}, NicKind::InfiniBand, {}},
        {"B", "RTX4090-24G", 2, "", {LinkKind::Pcie, 16, 10}, NicKind::Ethernet, {}},
        {"C", "RTX3090-24G", 2, "", {LinkKind::Pcie, 16, 10}, NicKind::Ethernet, {}},
    };
    cluster.switches = {{"tor", {}}};
    cluster.links
        = {{"A", "tor", LinkKind::Ethernet, 10, 20}, {"B", "tor", LinkKind::Ethernet, 10, 20}};
    return cluster;
}

// Eight small layers: fits on any GPU of the fixture.
ModelSpec tinyModel()
{
    return {"tiny", 8, 1024, 4096, 16, 16, 32000, 2048, MlpKind::SwiGlu};
}

// Llama-2 13B: does not fit on a single 24 GiB GPU.
ModelSpec largeModel()
{
    return {"llama2-13b", 40, 5120, 13824, 40, 40, 32000, 4096, MlpKind::SwiGlu};
}

Problem makeProblem(ModelSpec model, int globalBatch)
{
    auto topology = Topology::build(fixtureCluster(), builtinGpuCatalog());
    if (!topology)
        qFatal("fixture cluster does not build: %s", topology.error().message.c_str());
    Workload workload;
    workload.train.globalBatch = globalBatch;
    workload.train.seqLen = 1024;
    return {std::move(topology).value(), std::move(model), workload};
}

Stage stage(std::vector<int> gpus, int tp, int dp, int layerBegin, int layerEnd,
            std::vector<int> dpSplit = {})
{
    return {std::move(gpus), tp, dp, layerBegin, layerEnd, std::move(dpSplit)};
}

// One pipeline, A's pair then B's pair, TP 2 each, layers 0..3 and 4..7, 4 micro-batches of 1.
Plan validPlan()
{
    Plan plan;
    plan.pipelines = {{1, 4, {stage({0, 1}, 2, 1, 0, 4), stage({2, 3}, 2, 1, 4, 8)}}};
    return plan;
}

// Two pipelines of one GPU per stage, 2 micro-batches each.
Plan twoPipelines(std::vector<int> first, std::vector<int> second)
{
    Plan plan;
    plan.pipelines = {{1, 2, {stage({first[0]}, 1, 1, 0, 4), stage({first[1]}, 1, 1, 4, 8)}},
                      {1, 2, {stage({second[0]}, 1, 1, 0, 4), stage({second[1]}, 1, 1, 4, 8)}}};
    return plan;
}

QString issuesText(const std::vector<PlanIssue> &issues)
{
    QString text;
    for (const PlanIssue &issue : issues)
        text += QString::fromStdString(issue.message) + QLatin1Char('\n');
    return text;
}

} // namespace

class TestValidator : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void validPlanHasNoIssues()
    {
        const Problem problem = makeProblem(tinyModel(), 4);
        QVERIFY2(validatePlan(problem, validPlan()).empty(),
                 qPrintable(issuesText(validatePlan(problem, validPlan()))));
        const auto model = makeCostModel(CostModelKind::HetPlan);
        const auto issues = validatePlan(problem, validPlan(), model.get());
        QVERIFY2(issues.empty(), qPrintable(issuesText(issues)));
    }

    void eachRuleReportsOneIssue_data()
    {
        QTest::addColumn<Plan>("plan");
        QTest::addColumn<int>("globalBatch");
        QTest::addColumn<int>("pipeline");
        QTest::addColumn<int>("stage");
        QTest::addColumn<QString>("message");

        QTest::newRow("empty plan")
            << Plan{} << 4 << -1 << -1 << QStringLiteral("the plan has no pipelines");
        {
            Plan plan;
            plan.pipelines = {{1, 4, {}}};
            QTest::newRow("pipeline without stages")
                << plan << 4 << 0 << -1 << QStringLiteral("pipeline 0: no stages");
        }
        {
            Plan plan = twoPipelines({0, 2}, {1, 2});
            QTest::newRow("GPU in two pipelines")
                << plan << 4 << 1 << 1
                << QStringLiteral("GPU B:0 appears in pipeline 0 stage 1 and pipeline 1 stage 1");
        }
        {
            Plan plan = validPlan();
            plan.pipelines[0].stages[0].gpus = {0, 0};
            QTest::newRow("GPU twice in one stage")
                << plan << 4 << 0 << 0
                << QStringLiteral("GPU A:0 appears twice in pipeline 0 stage 0");
        }
        {
            Plan plan = validPlan();
            plan.pipelines[0].stages[1].layerBegin = 5;
            QTest::newRow("one-layer gap")
                << plan << 4 << 0 << -1
                << QStringLiteral("pipeline 0: stages leave layer 4 uncovered");
        }
        {
            Plan plan = validPlan();
            plan.pipelines[0].stages[0].layerEnd = 2;
            QTest::newRow("gap of layers")
                << plan << 4 << 0 << -1
                << QStringLiteral("pipeline 0: stages leave layers 2..3 uncovered");
        }
        {
            Plan plan = validPlan();
            plan.pipelines[0].stages[1].layerEnd = 6;
            QTest::newRow("layers missing at the end")
                << plan << 4 << 0 << -1
                << QStringLiteral("pipeline 0: stages leave layers 6..7 uncovered");
        }
        {
            Plan plan = validPlan();
            plan.pipelines[0].stages[1].layerBegin = 2;
            QTest::newRow("overlap")
                << plan << 4 << 0 << 1
                << QStringLiteral("pipeline 0: stage 1 overlaps stage 0 on layers 2..3");
        }
        {
            Plan plan = validPlan();
            plan.pipelines[0].stages[1].layerEnd = 10;
            QTest::newRow("layers beyond the model")
                << plan << 4 << 0 << 1
                << QStringLiteral(
                       "pipeline 0, stage 1: layers 4..9 go beyond the model's layers 0..7");
        }
        {
            Plan plan = validPlan();
            plan.pipelines[0].stages[0].tp = 1;
            QTest::newRow("tp × dp ≠ GPUs")
                << plan << 4 << 0 << 0
                << QStringLiteral(
                       "pipeline 0, stage 0: tp × dp = 1 but the stage has 2 GPUs (A:0, A:1)");
        }
        {
            Plan plan = validPlan();
            plan.pipelines[0].stages[0].tp = 0;
            QTest::newRow("tp below 1")
                << plan << 4 << 0 << 0
                << QStringLiteral("pipeline 0, stage 0: tp is 0; it must be at least 1");
        }
        {
            Plan plan = validPlan();
            plan.pipelines[0].stages[1].gpus = {2, 17};
            QTest::newRow("unknown GPU")
                << plan << 4 << 0 << 1
                << QStringLiteral(
                       "pipeline 0, stage 1: GPU index 17 does not exist (the cluster has 6 "
                       "GPUs, 0..5)");
        }
        {
            Plan plan = validPlan();
            plan.pipelines[0].stages[1].gpus.clear();
            QTest::newRow("stage without GPUs")
                << plan << 4 << 0 << 1 << QStringLiteral("pipeline 0, stage 1: no GPUs");
        }
        {
            Plan plan = validPlan();
            plan.pipelines[0].microBatches = 3;
            QTest::newRow("batch sum mismatch")
                << plan << 4 << -1 << -1
                << QStringLiteral("pipeline 0: micro-batches sum to 3 sequences (1 × 3) but "
                                  "global_batch is 4");
        }
        {
            Plan plan = twoPipelines({0, 2}, {1, 3});
            plan.pipelines[1].microBatches = 3;
            QTest::newRow("batch sum mismatch over pipelines")
                << plan << 4 << -1 << -1
                << QStringLiteral(
                       "the pipelines' micro-batches sum to 5 sequences (1 × 2 + 1 × 3) but "
                       "global_batch is 4");
        }
        // Metis-style DP inside stage 1: two replicas of one GPU, micro-batch 2.
        const auto withStageDp = [](std::vector<int> dpSplit) {
            Plan plan;
            plan.pipelines = {
                {2, 2, {stage({0, 1}, 2, 1, 0, 4), stage({2, 3}, 1, 2, 4, 8, std::move(dpSplit))}}};
            return plan;
        };
        QTest::newRow("dp_split sum")
            << withStageDp({1, 2}) << 4 << 0 << 1
            << QStringLiteral("pipeline 0, stage 1: dp_split sums to 3 but micro_batch is 2");
        QTest::newRow("dp_split size")
            << withStageDp({2}) << 4 << 0 << 1
            << QStringLiteral("pipeline 0, stage 1: dp_split has 1 entry but dp = 2");
        QTest::newRow("dp_split zero")
            << withStageDp({2, 0}) << 4 << 0 << 1
            << QStringLiteral("pipeline 0, stage 1: dp_split[1] is 0; every DP replica needs at "
                              "least 1 sequence");
        {
            Plan plan = withStageDp({});
            plan.pipelines[0].microBatch = 3;
            QTest::newRow("uneven DP without dp_split")
                << plan << 6 << 0 << 1
                << QStringLiteral(
                       "pipeline 0, stage 1: micro_batch 3 does not split evenly over dp = 2; "
                       "give dp_split");
        }
        {
            Plan plan = validPlan();
            plan.pipelines[0].stages[1].gpus = {4, 5};
            QTest::newRow("disconnected stages")
                << plan << 4 << 0 << 0
                << QStringLiteral(
                       "pipeline 0, stage 0 → stage 1: GPUs A:0 and C:0 are not connected "
                       "(no network path)");
        }
        {
            Plan plan;
            plan.pipelines = {{1, 4, {stage({4, 0}, 2, 1, 0, 8)}}};
            QTest::newRow("disconnected TP group")
                << plan << 4 << 0 << 0
                << QStringLiteral("pipeline 0, stage 0: GPUs C:0 and A:0 of one TP group are not "
                                  "connected (no network path)");
        }
        QTest::newRow("DP across disconnected pipelines")
            << twoPipelines({0, 2}, {4, 5}) << 4 << 1 << 0
            << QStringLiteral(
                   "pipelines 0 and 1: GPUs A:0 and C:0 both hold layers 0..3 but are not "
                   "connected, so their gradients cannot be synchronised");
    }
    void eachRuleReportsOneIssue()
    {
        QFETCH(Plan, plan);
        QFETCH(int, globalBatch);
        QFETCH(int, pipeline);
        QFETCH(int, stage);
        QFETCH(QString, message);
        const Problem problem = makeProblem(tinyModel(), globalBatch);
        const std::vector<PlanIssue> issues = validatePlan(problem, plan);
        QVERIFY2(issues.size() == 1, qPrintable(issuesText(issues)));
        QCOMPARE(QString::fromStdString(issues.front().message), message);
        QCOMPARE(issues.front().pipeline, pipeline);
        QCOMPARE(issues.front().stage, stage);
    }

    void gpuIndexOfIssueNamesTheGpu()
    {
        const Problem problem = makeProblem(tinyModel(), 4);
        const auto issues = validatePlan(problem, twoPipelines({0, 2}, {1, 2}));
        QCOMPARE(issues.size(), size_t(1));
        QCOMPARE(issues.front().gpu, 2);
    }

    void inferenceReplicasNeedNoGradientLinks()
    {
        Problem problem = makeProblem(tinyModel(), 4);
        problem.workload.mode = Mode::Infer;
        const Plan plan = twoPipelines({0, 2}, {4, 5}); // replica 1 on the unlinked machine C
        const auto issues = validatePlan(problem, plan);
        QVERIFY2(issues.empty(), qPrintable(issuesText(issues)));
        problem.workload.mode = Mode::Train;
        QCOMPARE(validatePlan(problem, plan).size(), size_t(1));
    }

    void tpGroupAcrossMachinesRejectedByRealisticModelOnly()
    {
        const Problem problem = makeProblem(tinyModel(), 4);
        Plan plan;
        plan.pipelines = {{1, 4, {stage({0, 2}, 2, 1, 0, 4), stage({1}, 1, 1, 4, 8)}}};

        const auto realistic = makeCostModel(CostModelKind::HetPlan);
        const auto issues = validatePlan(problem, plan, realistic.get());
        QVERIFY2(issues.size() == 1, qPrintable(issuesText(issues)));
        QVERIFY2(QString::fromStdString(issues.front().message)
                     .startsWith(
                         QStringLiteral("pipeline 0, stage 0: TP group (A:0, B:0) is not allowed "
                                        "by the hetplan cost model: ")),
                 issues.front().message.c_str());
        QCOMPARE(issues.front().gpu, 0);

        const auto paper = makeCostModel(CostModelKind::HexiScalePaper);
        const auto paperIssues = validatePlan(problem, plan, paper.get());
        QVERIFY2(paperIssues.empty(), qPrintable(issuesText(paperIssues)));
    }

    void memoryOverflowNamesGpuAndAmounts()
    {
        const Problem problem = makeProblem(largeModel(), 4);
        Plan plan;
        plan.pipelines = {{1, 4, {stage({0}, 1, 1, 0, 20), stage({2}, 1, 1, 20, 40)}}};

        QVERIFY(validatePlan(problem, plan).empty()); // structure alone is fine
        const auto model = makeCostModel(CostModelKind::HetPlan);
        const auto issues = validatePlan(problem, plan, model.get());
        QVERIFY2(!issues.empty(), "13B parameters with Adam on one 24 GiB GPU must overflow");
        // Half of a 13B model with mixed-precision Adam is ~100 GiB: B:0 overflows, and so
        // does A:0 (80 GiB); each names its stage, GPU and amounts.
        const QRegularExpression pattern(QStringLiteral(
            "^pipeline 0, stage (\\d), GPU ([AB]:0): needs (\\d+\\.\\d) GiB of (\\d+\\.\\d) GiB$"));
        bool sawB0 = false;
        for (const PlanIssue &issue : issues) {
            const auto match = pattern.match(QString::fromStdString(issue.message));
            QVERIFY2(match.hasMatch(), issue.message.c_str());
            QVERIFY(match.captured(3).toDouble() > match.captured(4).toDouble());
            if (match.captured(2) == QStringLiteral("B:0")) {
                sawB0 = true;
                QCOMPARE(match.captured(1), QStringLiteral("1"));
                QCOMPARE(match.captured(4), QStringLiteral("24.0"));
                QCOMPARE(issue.gpu, 2);
                QCOMPARE(issue.stage, 1);
            }
        }
        QVERIFY(sawB0);
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestValidator)
#include "tst_validator.moc"
