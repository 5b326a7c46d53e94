// The Megatron baseline is the yardstick every planner is compared with: it must really be
// the best symmetric layout, valid, on every GPU, and say what ran out when nothing fits.
#include "core/cost/cost_model.h"
#include "core/cost/problem.h"
#include "core/cost/validator.h"
#include "core/io/catalog_json.h"
#include "core/planners/megatron.h"
#include "core/planners/planner.h"
#include "tests/test_registry.h"

#include <QRegularExpression>
#include <QtTest>

#include <cmath>
#include <limits>
#include <set>
#include <stop_token>

using namespace hetplan;

namespace {

// A: 4 × A100-80G over NVLink, B: 4 × RTX 4090 over PCIe, 10 GB/s through one switch.
Cluster mixedCluster(bool linked = true)
{
    Cluster cluster;
    cluster.name = "megatron-fixture";
    cluster.machines = {
        {"A", "A100-80G", 4, "", {LinkKind::NvLink, 200, 5}, NicKind::InfiniBand, {}},
        {"B", "RTX4090-24G", 4, "", {LinkKind::Pcie, 16, 10}, NicKind::Ethernet, {}},
    };
    cluster.switches = {{"tor", {}}};
    if (linked)
        cluster.links
            = {{"A", "tor", LinkKind::Ethernet, 10, 20}, {"B", "tor", LinkKind::Ethernet, 10, 20}};
    return cluster;
}

// Eight layers of a 1.3B-class model: many symmetric layouts fit.
ModelSpec smallModel()
{
    return {"small", 8, 2048, 8192, 16, 16, 32000, 2048, MlpKind::Gelu};
}

Problem makeProblem(const Cluster &cluster, ModelSpec model, int globalBatch,
                    std::vector<int> microBatchSizes = {1, 2})
{
    auto topology = Topology::build(cluster, builtinGpuCatalog());
    if (!topology)
        qFatal("fixture cluster does not build: %s", topology.error().message.c_str());
    Workload workload;
    workload.train.globalBatch = globalBatch;
    workload.train.microBatchSizes = std::move(microBatchSizes);
    workload.train.seqLen = 1024;
    return {std::move(topology).value(), std::move(model), workload};
}

Result<PlanSearch> runMegatron(const Problem &problem, const CostModel &costModel,
                               std::stop_token stop = {})
{
    auto planner = makePlanner(PlannerKind::Megatron);
    if (!planner)
        qFatal("no megatron planner: %s", planner.error().message.c_str());
    NullProgress progress;
    return (*planner)->plan(problem, costModel, PlannerOptions{}, stop, progress);
}

bool tpAllowed(const Problem &problem, const CostModel &costModel, const Plan &plan)
{
    for (const Pipeline &pipeline : plan.pipelines)
        for (const Stage &stage : pipeline.stages)
            if (!costModel.allowsTpGroup(problem, stage.gpus))
                return false;
    return true;
}

QString issuesText(const std::vector<PlanIssue> &issues)
{
    QString text;
    for (const PlanIssue &issue : issues)
        text += QString::fromStdString(issue.message) + QLatin1Char('\n');
    return text;
}

// Hands out a plan that leaves layers uncovered: Planner::plan must catch it.
class BrokenPlanner final : public Planner
{
public:
    PlannerKind kind() const override { return PlannerKind::HexiScale; }

private:
    Result<PlanSearch> planImpl(const Problem &problem, const CostModel &, const PlannerOptions &,
                                std::stop_token, ProgressSink &) const override
    {
        PlanSearch search;
        search.plan = megatronPlan(problem, {8, 1, 1, 1});
        search.plan.pipelines[0].stages[0].layerEnd = 7;
        return search;
    }
};

} // namespace

class TestMegatron : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void shapesFollowMegatronRules()
    {
        const Problem problem = makeProblem(mixedCluster(), smallModel(), 16);
        const std::vector<MegatronShape> shapes = megatronShapes(problem);
        QVERIFY(!shapes.empty());
        std::set<std::tuple<int, int, int, int>> seen;
        for (const MegatronShape &s : shapes) {
            QCOMPARE(s.dp * s.tp * s.pp, 8);
            QCOMPARE(8 % s.pp, 0); // pp | layers
            QCOMPARE(16 % (s.microBatch * s.dp), 0);
            QVERIFY(seen.insert({s.dp, s.tp, s.pp, s.microBatch}).second);
        }
        // dp·tp·pp = 8 has 10 factorisations, all with pp | 8; both micro-batches divide.
        QCOMPARE(shapes.size(), size_t(20));
    }

    void rankOrderIsTpThenDpThenPp()
    {
        const Problem problem = makeProblem(mixedCluster(), smallModel(), 16);
        const Plan plan = megatronPlan(problem, {2, 2, 2, 1});
        QCOMPARE(plan.pipelines.size(), size_t(2));
        // Ranks 0..7: tp pairs (0,1) (2,3) form dp 0 and 1 of pp stage 0; (4,5) (6,7) stage 1.
        QVERIFY(plan.pipelines[0].stages[0].gpus == std::vector<int>({0, 1}));
        QVERIFY(plan.pipelines[1].stages[0].gpus == std::vector<int>({2, 3}));
        QVERIFY(plan.pipelines[0].stages[1].gpus == std::vector<int>({4, 5}));
        QVERIFY(plan.pipelines[1].stages[1].gpus == std::vector<int>({6, 7}));
        QCOMPARE(plan.pipelines[0].stages[1].layerBegin, 4);
        QCOMPARE(plan.pipelines[0].microBatches, 8);
        QVERIFY(validatePlan(problem, plan).empty());
    }

    void returnsFastestValidSymmetricPlan_data()
    {
        QTest::addColumn<int>("costModel");
        QTest::newRow("hetplan") << int(CostModelKind::HetPlan);
        QTest::newRow("hexiscale-paper") << int(CostModelKind::HexiScalePaper);
    }
    void returnsFastestValidSymmetricPlan()
    {
        QFETCH(int, costModel);
        const Problem problem = makeProblem(mixedCluster(), smallModel(), 16);
        const auto model = makeCostModel(static_cast<CostModelKind>(costModel));
        const auto search = runMegatron(problem, *model);
        QVERIFY2(search.ok(), search.ok() ? "" : search.error().message.c_str());

        const Plan &plan = search->plan;
        const auto issues = validatePlan(problem, plan, model.get());
        QVERIFY2(issues.empty(), qPrintable(issuesText(issues)));
        std::multiset<int> used;
        for (const Pipeline &pipeline : plan.pipelines)
            for (const Stage &stage : pipeline.stages)
                used.insert(stage.gpus.begin(), stage.gpus.end());
        QCOMPARE(used, (std::multiset<int>{0, 1, 2, 3, 4, 5, 6, 7}));
        QCOMPARE(plan.planner, std::string("megatron"));
        QCOMPARE(plan.costModel, std::string(model->name()));
        QVERIFY(plan.estimate.has_value());

        // Brute force over every symmetric candidate the test can build itself.
        const double foundS = model->objectiveS(problem, plan);
        QVERIFY(std::isfinite(foundS));
        QVERIFY(std::abs(search->evaluation.iterationS - foundS) <= 1e-9 * foundS);
        double bestS = std::numeric_limits<double>::infinity();
        int evaluated = 0;
        for (const MegatronShape &shape : megatronShapes(problem)) {
            const Plan candidate = megatronPlan(problem, shape);
            if (!tpAllowed(problem, *model, candidate))
                continue;
            ++evaluated;
            if (!validatePlan(problem, candidate, model.get()).empty())
                continue;
            bestS = std::min(bestS, model->objectiveS(problem, candidate));
        }
        QCOMPARE(foundS, bestS);
        QCOMPARE(search->trace.size(), size_t(evaluated));
        for (size_t i = 1; i < search->trace.size(); ++i)
            QVERIFY(search->trace[i].bestCostS <= search->trace[i - 1].bestCostS);
        QCOMPARE(search->trace.back().bestCostS, bestS);
    }

    void realisticModelKeepsTpInsideMachines()
    {
        const Problem problem = makeProblem(mixedCluster(), smallModel(), 16);
        const auto model = makeCostModel(CostModelKind::HetPlan);
        const auto search = runMegatron(problem, *model);
        QVERIFY(search.ok());
        for (const Pipeline &pipeline : search->plan.pipelines)
            for (const Stage &stage : pipeline.stages)
                QVERIFY(stage.tp <= 4); // tp = 8 would span both machines
    }

    void deterministic()
    {
        const Problem problem = makeProblem(mixedCluster(), smallModel(), 16);
        const auto model = makeCostModel(CostModelKind::HetPlan);
        const auto first = runMegatron(problem, *model);
        const auto second = runMegatron(problem, *model);
        QVERIFY(first.ok() && second.ok());
        QVERIFY(first->plan.sameLayout(second->plan));
        QCOMPARE(first->evaluation.iterationS, second->evaluation.iterationS);
    }

    void noPlanFitsNamesTheGpuThatOverflows()
    {
        // Llama-2 70B on eight GPUs: no symmetric layout fits in 4 × 80 + 4 × 24 GiB.
        const Problem problem
            = makeProblem(mixedCluster(),
                          {"llama2-70b", 80, 8192, 28672, 64, 8, 32000, 4096, MlpKind::SwiGlu}, 16);
        const auto model = makeCostModel(CostModelKind::HetPlan);
        const auto search = runMegatron(problem, *model);
        QVERIFY(!search.ok());
        QCOMPARE(search.error().kind, ErrorKind::NoPlanFits);
        const QString message = QString::fromStdString(search.error().message);
        const QRegularExpression pattern(QStringLiteral(
            "^no symmetric plan fits in memory: the closest \\(dp=\\d+, tp=\\d+, pp=\\d+, "
            "micro-batch \\d+\\) needs \\d+\\.\\d GiB on [AB]:\\d \\((A100-80G|RTX4090-24G), "
            "(80|24)\\.0 GiB\\)"));
        QVERIFY2(pattern.match(message).hasMatch(), qPrintable(message));
    }

    void disconnectedClusterHasNoSymmetricPlan()
    {
        const Problem problem = makeProblem(mixedCluster(false), smallModel(), 16);
        const auto model = makeCostModel(CostModelKind::HexiScalePaper);
        const auto search = runMegatron(problem, *model);
        QVERIFY(!search.ok());
        QCOMPARE(search.error().kind, ErrorKind::NoPlanFits);
        QVERIFY2(
            QString::fromStdString(search.error().message).contains(QStringLiteral("connected")),
            search.error().message.c_str());
    }

    void noShapeWhenBatchCannotBeSplit()
    {
        // 7 layers leave only pp = 1 on 8 GPUs, and micro-batch 2 never divides global batch 1.
        ModelSpec model = smallModel();
        model.layers = 7;
        const Problem problem = makeProblem(mixedCluster(), model, 1, {2});
        const auto costModel = makeCostModel(CostModelKind::HexiScalePaper);
        const auto search = runMegatron(problem, *costModel);
        QVERIFY(!search.ok());
        QCOMPARE(search.error().kind, ErrorKind::NoPlanFits);
        QVERIFY2(
            QString::fromStdString(search.error().message).contains(QStringLiteral("pp dividing")),
            search.error().message.c_str());
    }

    void stopBeforeStartCancels()
    {
        const Problem problem = makeProblem(mixedCluster(), smallModel(), 16);
        const auto model = makeCostModel(CostModelKind::HetPlan);
        std::stop_source source;
        source.request_stop();
        const auto search = runMegatron(problem, *model, source.get_token());
        QVERIFY(!search.ok());
        QCOMPARE(search.error().kind, ErrorKind::Cancelled);
    }

    void inferenceIsUnsupported()
    {
        Problem problem = makeProblem(mixedCluster(), smallModel(), 16);
        problem.workload.mode = Mode::Infer;
        const auto model = makeCostModel(CostModelKind::HetPlan);
        const auto search = runMegatron(problem, *model);
        QVERIFY(!search.ok());
        QCOMPARE(search.error().kind, ErrorKind::Unsupported);
        QVERIFY2(QString::fromStdString(search.error().message).contains(QStringLiteral("hexgen")),
                 search.error().message.c_str());
    }

    void invalidPlanFromAPlannerIsAnInternalError()
    {
        const Problem problem = makeProblem(mixedCluster(), smallModel(), 16);
        const auto model = makeCostModel(CostModelKind::HexiScalePaper);
        NullProgress progress;
        const auto search = BrokenPlanner().plan(problem, *model, {}, {}, progress);
        QVERIFY(!search.ok());
        QCOMPARE(search.error().kind, ErrorKind::Internal);
        QVERIFY2(QString::fromStdString(search.error().message)
                     .contains(QStringLiteral("pipeline 0: stages leave layer 7 uncovered")),
                 search.error().message.c_str());
    }

    void factoryAndNames()
    {
        for (PlannerKind kind :
             {PlannerKind::HexiScale, PlannerKind::Metis, PlannerKind::Holmes, PlannerKind::HexGen,
              PlannerKind::Megatron, PlannerKind::Exhaustive}) {
            const auto parsed = plannerKindFromName(plannerName(kind));
            QVERIFY(parsed.ok());
            QCOMPARE(*parsed, kind);
        }
        QVERIFY(plannerKindFromName("MegaTron").ok());
        const auto unknown = plannerKindFromName("galvatron");
        QVERIFY(!unknown.ok());
        QCOMPARE(
            unknown.error().message,
            std::string("unknown planner 'galvatron'; valid: hexiscale, metis, holmes, hexgen, "
                        "megatron, exhaustive"));
        for (PlannerKind kind :
             {PlannerKind::HexiScale, PlannerKind::Metis, PlannerKind::Holmes, PlannerKind::HexGen,
              PlannerKind::Megatron, PlannerKind::Exhaustive}) {
            const auto planner = makePlanner(kind);
            QVERIFY(planner.ok());
            QCOMPARE((*planner)->kind(), kind);
        }

        PlannerOptions options;
        options.seed = 7;
        options.parameters.holmes.alpha = 1.05;
        QCOMPARE(
            options.describe(PlannerKind::Holmes),
            std::string("seed=7 max_iterations=default time_limit=none warm_start=no alpha=1.05"));
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestMegatron)
#include "tst_megatron.moc"
