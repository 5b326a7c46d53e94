// Metis (its speed-up over the Megatron baseline is in tst_beats_baseline): balances layers and
// data by capacity, raises TP only where memory runs out, always returns a valid plan or says that
// none fits, is deterministic, honours warm starts and stops promptly.
#include "core/cost/cost_model.h"
#include "core/cost/problem.h"
#include "core/cost/validator.h"
#include "core/io/catalog_json.h"
#include "core/io/formats.h"
#include "core/io/loaders.h"
#include "core/planners/hexiscale/hexiscale_planner.h"
#include "core/planners/megatron.h"
#include "core/planners/metis/device_groups.h"
#include "core/planners/metis/load_balance.h"
#include "core/planners/metis/metis_planner.h"
#include "tests/core/planner_test_support.h"
#include "tests/test_programs.h"
#include "tests/test_registry.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QtTest>

#include <chrono>
#include <cmath>
#include <mutex>
#include <numeric>
#include <random>
#include <thread>

using namespace hetplan;
using namespace hetplan::test;

namespace {

Result<PlanSearch> runMetis(const Problem &problem, const CostModel &costModel,
                            PlannerOptions options = {}, std::stop_token stop = {})
{
    NullProgress progress;
    return MetisPlanner().plan(problem, costModel, options, stop, progress);
}

// One machine per entry: GPU type and count, all on one switch.
Problem smallProblem(const std::vector<std::pair<const char *, int>> &machines, const char *model,
                     int globalBatch)
{
    Cluster cluster;
    cluster.name = "small";
    cluster.switches = {{"sw", {}}};
    for (size_t m = 0; m < machines.size(); ++m) {
        Machine machine;
        machine.name = "m" + std::to_string(m);
        machine.gpu = machines[m].first;
        machine.count = machines[m].second;
        machine.intra = {LinkKind::Pcie, 16, 8};
        cluster.machines.push_back(machine);
        cluster.links.push_back({machine.name, "sw", LinkKind::Ethernet, 2.0, 25});
    }
    Workload workload;
    workload.train.globalBatch = globalBatch;
    workload.train.seqLen = 2048;
    workload.train.precision = Precision::Fp16;
    return {orFail(Topology::build(cluster, builtinGpuCatalog()), "small cluster"),
            orFail(loadModel(model), model), workload};
}

// 1–4 machines of 1–8 GPUs of mixed types, random intra and network links, and a model that
// sometimes does not fit.
Problem randomProblem(std::mt19937_64 &random)
{
    static const char *const kTypes[]
        = {"A800-80G", "RTX4090-24G", "RTX3090-24G", "V100-16G", "T4-16G"};
    static const char *const kModels[]
        = {"gpt3-1.3b", "gpt3-2.7b", "llama2-7b", "llama2-13b", "llama2-70b"};
    Cluster cluster;
    cluster.name = "random";
    cluster.switches = {{"sw", {}}};
    const int machines = 1 + int(random() % 4);
    for (int m = 0; m < machines; ++m) {
        Machine machine;
        machine.name = "m" + std::to_string(m);
        machine.gpu = kTypes[random() % 5];
        machine.count = 1 + int(random() % 8);
        machine.intra = {LinkKind::Pcie, double(5 + random() % 60), 8};
        cluster.machines.push_back(machine);
        cluster.links.push_back(
            {machine.name, "sw", LinkKind::Ethernet, 0.5 + double(random() % 40) / 4.0, 25});
    }
    Workload workload;
    workload.train.globalBatch = 8 << (random() % 4);
    workload.train.seqLen = 1024 << (random() % 2);
    workload.train.precision = Precision::Fp16;
    return {orFail(Topology::build(cluster, builtinGpuCatalog()), "random cluster"),
            orFail(loadModel(kModels[random() % 5]), "model"), workload};
}

struct CliRun
{
    int exitCode = -1;
    QByteArray out;
};

CliRun cli(const QStringList &arguments)
{
    QProcess process;
    process.start(hetplan::test::projectProgram("hetplan-cli"), arguments);
    if (!process.waitForFinished(120000)) {
        process.kill();
        process.waitForFinished();
        return {};
    }
    return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
            process.readAllStandardOutput()};
}

// Records every report; the planner calls it from its own thread.
class RecordingProgress final : public ProgressSink
{
public:
    void report(const Progress &progress) override
    {
        const std::lock_guard lock(m_mutex);
        m_costs.push_back(progress.bestCostS);
    }
    std::vector<double> costs() const
    {
        const std::lock_guard lock(m_mutex);
        return m_costs;
    }

private:
    mutable std::mutex m_mutex;
    std::vector<double> m_costs;
};

} // namespace

class TestMetis : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // §5.2.1: "Metis assigns more layers to the faster GPUs" — per GPU, V100 stages hold more
    // layers than T4 stages.
    void moreLayersOnFasterGpus()
    {
        const Problem problem = exampleProblem("metis-v100-t4", "gpt3-6.7b");
        const auto model = makeCostModel(CostModelKind::HetPlan);
        const auto metis = runMetis(problem, *model);
        QVERIFY(metis.ok());
        QCOMPARE(metis->plan.pipelines.size(), size_t(1));
        double layers[2] = {0, 0}; // V100, T4
        int gpus[2] = {0, 0};
        for (const Stage &stage : metis->plan.pipelines[0].stages) {
            const bool t4 = problem.topology.gpuType(stage.gpus.front()).name == "T4-16G";
            for (int gpu : stage.gpus)
                QCOMPARE(problem.topology.gpuType(gpu).name == "T4-16G", t4); // one type per stage
            layers[t4] += stage.layerCount();
            gpus[t4] += int(stage.gpus.size());
        }
        QVERIFY(gpus[0] > 0 && gpus[1] > 0);
        qInfo("layers per GPU: V100 %.2f, T4 %.2f", layers[0] / gpus[0], layers[1] / gpus[1]);
        QVERIFY(layers[0] / gpus[0] > 1.5 * layers[1] / gpus[1]);
    }

    // §4.1 data load balancing: in a group mixing a V100 and a T4, the V100 takes the larger
    // share of each micro-batch.
    void unevenSharesInMixedGroup()
    {
        const Problem problem = smallProblem({{"V100-16G", 1}, {"T4-16G", 1}}, "gpt3-350m", 16);
        const auto model = makeCostModel(CostModelKind::HetPlan);
        PlannerOptions options;
        options.maxIterations = 1; // one stage: both GPUs in one data-parallel group
        const auto metis = runMetis(problem, *model, options);
        QVERIFY2(metis.ok(), metis.ok() ? "" : metis.error().message.c_str());
        const Stage &stage = metis->plan.pipelines[0].stages[0];
        QCOMPARE(stage.dp, 2);
        QCOMPARE(stage.dpSplit.size(), size_t(2));
        const bool v100First = problem.topology.gpuType(stage.gpus[0]).name == "V100-16G";
        QVERIFY(stage.dpSplit[v100First ? 0 : 1] > stage.dpSplit[v100First ? 1 : 0]);
        QVERIFY(validatePlan(problem, metis->plan, model.get()).empty());

        // The balancer itself: 2.4× faster, 7 sequences → 5 and 2 (times 5 and 4.8).
        const std::vector<double> seconds{1.0, 2.4};
        const std::vector<double> memory{16, 16};
        QCOMPARE(metis::balanceData(seconds, memory, 7), (std::vector<int>{5, 2}));
    }

    // Algorithm 1: DP first; on predicted OOM the TP degree is raised (DP lowered).
    void raisesTpWhenDataParallelDoesNotFit()
    {
        // GPT-3 1.3B needs ~21 GiB of weights and Adam state per replica: DP over 16 GiB
        // V100s cannot hold it, TP 2 can.
        const Problem problem = smallProblem({{"V100-16G", 4}}, "gpt3-1.3b", 16);
        const auto model = makeCostModel(CostModelKind::HetPlan);
        PlannerOptions options;
        options.maxIterations = 1;
        const auto metis = runMetis(problem, *model, options);
        QVERIFY2(metis.ok(), metis.ok() ? "" : metis.error().message.c_str());
        const Stage &stage = metis->plan.pipelines[0].stages[0];
        QVERIFY(stage.tp >= 2);
        QVERIFY(metis->evaluation.fitsInMemory());
    }

    // Capacity-aware layer balancing moves layers off a stage that would run out of memory.
    void balanceLayersRespectsMemory()
    {
        const std::vector<metis::StageLoad> stages{{0.0, 1.0, 100}, {0.0, 1.0, 3}, {0.0, 4.0, 100}};
        const auto layers = metis::balanceLayers(stages, 12);
        QVERIFY(layers.has_value());
        QCOMPARE(*layers, (std::vector<int>{8, 3, 1})); // slowest stage 8 s; {7, 3, 2} ties
        const std::vector<metis::StageLoad> tooSmall{{0.0, 1.0, 2}, {0.0, 1.0, 3}};
        QVERIFY(!metis::balanceLayers(tooSmall, 6).has_value());
    }

    // §4.2.2 pruning: sizes at least N/S·(1 − var); the smallest blocks paired until the
    // permutation length is within its maximum (the paper's 5 → 3 example).
    void pruning()
    {
        const std::vector<int> sizes{1, 2, 4, 8, 16};
        for (const std::vector<int> &set : metis::stageSizeSets(4, 16, sizes, 0.5, 1000)) {
            QCOMPARE(std::accumulate(set.begin(), set.end(), 0), 16);
            QCOMPARE(set.size(), size_t(4));
            for (int size : set)
                QVERIFY(size >= 2);
        }
        const std::vector<int> paper{1, 1, 1, 1, 2};
        const auto blocks = metis::pairSmallest(paper, 3);
        QCOMPARE(blocks.size(), size_t(3));
        std::mt19937_64 random(1);
        QCOMPARE(metis::blockOrders(blocks, 100, random).size(), size_t(3)); // binom(3, 1)
        QCOMPARE(metis::blockOrders(metis::pairSmallest(paper, 5), 100, random).size(), size_t(5));

        // Cutting takes k GPUs from each machine it reaches, machine by machine.
        const Problem problem = exampleProblem("metis-v100-t4", "gpt3-6.7b");
        // Machines: v100-0 (4 GPUs), v100-1 (2), v100-2 (2), t4-0 (4), t4-1 (2), t4-2 (2).
        const std::vector<int> order{0, 1, 2, 3, 4, 5};
        const std::vector<int> cut{2, 4, 6, 4};
        const auto groups = metis::cutGroups(problem.topology, order, cut);
        QCOMPARE(groups.size(), size_t(4));
        QCOMPARE(groups[1], (std::vector<int>{2, 3, 4, 5})); // 2 of v100-0, both of v100-1
        // Machines of one kind and size are interchangeable: both orders of the two 2x V100
        // boxes agree.
        const auto classes = metis::machineClasses(problem.topology);
        const std::vector<int> swapped{0, 2, 1, 3, 4, 5};
        QCOMPARE(metis::sequenceKey(problem.topology, classes, groups),
                 metis::sequenceKey(problem.topology, classes,
                                    metis::cutGroups(problem.topology, swapped, cut)));
    }

    // HexiScale §5 reports 1.6x over Metis on setting 3; here both planners search under each
    // cost model (numbers reported, not asserted), and Metis's plan is valid under both.
    void settingThreeAgainstHexiScale_data()
    {
        QTest::addColumn<int>("costModel");
        QTest::newRow("hexiscale-paper") << int(CostModelKind::HexiScalePaper);
        QTest::newRow("hetplan") << int(CostModelKind::HetPlan);
    }

    void settingThreeAgainstHexiScale()
    {
        QFETCH(int, costModel);
        const Problem problem = exampleProblem("hetero-setting-3", "llama-30b");
        const auto model = makeCostModel(CostModelKind(costModel));
        const auto metis = runMetis(problem, *model);
        QVERIFY2(metis.ok(), metis.ok() ? "" : metis.error().message.c_str());
        QVERIFY(validatePlan(problem, metis->plan, model.get()).empty());
        const auto hexiscale = runPlanner(HexiScalePlanner(), problem, *model);
        QVERIFY(hexiscale.ok());
        const Pipeline &pipeline = metis->plan.pipelines[0];
        qInfo("setting 3, %s: Metis %.1f s (%zu stages, micro-batch %d), HexiScale %.1f s "
              "(%zu pipelines): HexiScale/Metis speedup %.2fx",
              std::string(model->name()).c_str(), metis->evaluation.iterationS,
              pipeline.stages.size(), pipeline.microBatch, hexiscale->evaluation.iterationS,
              hexiscale->plan.pipelines.size(),
              metis->evaluation.iterationS / hexiscale->evaluation.iterationS);
        // Appendix C's printed Metis plan does not fit our memory models; ours must.
        QVERIFY(metis->evaluation.fitsInMemory());
    }

    // Property over random small clusters: a plan that validates under the cost model (so
    // never out of memory) or NoPlanFits; the same seed gives the same plan.
    void randomClustersValidOrNoPlanFits()
    {
        std::mt19937_64 random(20240711);
        constexpr int kCases = 40;
        int planned = 0;
        int refused = 0;
        for (int c = 0; c < kCases; ++c) {
            const Problem problem = randomProblem(random);
            const auto model
                = makeCostModel(c % 2 ? CostModelKind::HexiScalePaper : CostModelKind::HetPlan);
            PlannerOptions options;
            options.seed = std::uint64_t(c);
            const auto first = runMetis(problem, *model, options);
            if (!first) {
                QCOMPARE(first.error().kind, ErrorKind::NoPlanFits);
                QVERIFY(!first.error().message.empty());
                ++refused;
                continue;
            }
            ++planned;
            const auto issues = validatePlan(problem, first->plan, model.get());
            QVERIFY2(issues.empty(), issues.empty() ? "" : issues.front().message.c_str());
            QVERIFY(first->evaluation.fitsInMemory());
            const auto second = runMetis(problem, *model, options);
            QVERIFY(second.ok());
            QVERIFY(first->plan.sameLayout(second->plan));
        }
        qInfo("random clusters: %d planned, %d with no plan that fits", planned, refused);
        QVERIFY(planned > 0);
        QVERIFY(refused > 0);
    }

    void noPlanFitsSaysWhy()
    {
        const Problem problem = smallProblem({{"T4-16G", 2}}, "llama2-70b", 8);
        const auto model = makeCostModel(CostModelKind::HetPlan);
        const auto metis = runMetis(problem, *model);
        QVERIFY(!metis.ok());
        QCOMPARE(metis.error().kind, ErrorKind::NoPlanFits);
        const QString message = QString::fromStdString(metis.error().message);
        QVERIFY2(message.contains(QStringLiteral("llama2-70b"))
                     && message.contains(QStringLiteral("fits in memory")),
                 metis.error().message.c_str());

        // Metis runs every GPU in one pipeline: a machine without a network path rules it out.
        const Problem connected = smallProblem({{"A800-80G", 2}, {"A800-80G", 2}}, "gpt3-1.3b", 8);
        QVERIFY(runMetis(connected, *model).ok());
        Cluster cut = connected.topology.cluster();
        cut.links.pop_back();
        const Problem island{orFail(Topology::build(cut, builtinGpuCatalog()), "cut"),
                             connected.model, connected.workload};
        const auto islandPlan = runMetis(island, *model);
        QVERIFY(!islandPlan.ok());
        QCOMPARE(islandPlan.error().kind, ErrorKind::NoPlanFits);
        QVERIFY2(QString::fromStdString(islandPlan.error().message)
                     .contains(QStringLiteral("machines 'm0' and 'm1' have no network path")),
                 islandPlan.error().message.c_str());
    }

    void warmStartNeverWorse()
    {
        const Problem problem = exampleProblem("metis-v100-t4", "gpt3-6.7b");
        const auto model = makeCostModel(CostModelKind::HetPlan);
        const auto hexiscale = runPlanner(HexiScalePlanner(), problem, *model);
        QVERIFY(hexiscale.ok());
        PlannerOptions options;
        options.maxIterations = 1; // Metis alone would find little with one stage count
        options.warmStart = hexiscale->plan;
        const auto metis = runMetis(problem, *model, options);
        QVERIFY(metis.ok());
        QVERIFY(metis->evaluation.iterationS <= hexiscale->evaluation.iterationS * (1 + 1e-12));
    }

    // One trace point and one progress report per stage count, never getting worse.
    void traceFollowsStageCounts()
    {
        const Problem problem = exampleProblem("metis-v100-t4", "gpt3-6.7b");
        const auto model = makeCostModel(CostModelKind::HetPlan);
        RecordingProgress progress;
        const auto metis = MetisPlanner().plan(problem, *model, PlannerOptions{}, {}, progress);
        QVERIFY(metis.ok());
        QCOMPARE(int(metis->trace.size()),
                 std::min(problem.topology.gpuCount(), problem.model.layers));
        QCOMPARE(progress.costs().size(), metis->trace.size());
        for (size_t i = 1; i < metis->trace.size(); ++i)
            QVERIFY(metis->trace[i].bestCostS <= metis->trace[i - 1].bestCostS);
        QVERIFY(std::abs(metis->trace.back().bestCostS - metis->evaluation.iterationS)
                <= 1e-9 * metis->evaluation.iterationS);
    }

    void stopsPromptly()
    {
        const Problem problem = exampleProblem("large-cluster", "llama2-70b");
        const auto model = makeCostModel(CostModelKind::HetPlan);
        PlannerOptions options;
        options.parameters.metis.sequences = 100000; // far longer than the stop takes to arrive
        std::stop_source stop;
        std::chrono::steady_clock::time_point requested;
        std::thread stopper([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(300));
            requested = std::chrono::steady_clock::now();
            stop.request_stop();
        });
        const auto found = runMetis(problem, *model, options, stop.get_token());
        const auto returned = std::chrono::steady_clock::now();
        stopper.join();
        const double latencyMs
            = std::chrono::duration<double, std::milli>(returned - requested).count();
        qInfo("returned %.1f ms after the stop request", latencyMs);
        QVERIFY(found.ok() ? found->stoppedEarly : found.error().kind == ErrorKind::Cancelled);
        QVERIFY(latencyMs < 500); // the budget is 50 ms; generous against a busy machine
    }

    // The command line runs Metis, alone and in `compare`.
    void commandLine()
    {
        const CliRun plan = cli({QStringLiteral("plan"), QStringLiteral("--cluster"),
                                 QStringLiteral("metis-v100-t4"), QStringLiteral("--model"),
                                 QStringLiteral("gpt3-6.7b"), QStringLiteral("--planner"),
                                 QStringLiteral("metis"), QStringLiteral("--json")});
        QCOMPARE(plan.exitCode, 0);
        const QJsonObject planJson = QJsonDocument::fromJson(plan.out).object();
        QCOMPARE(planJson.value(QStringLiteral("plan"))
                     .toObject()
                     .value(QStringLiteral("planner"))
                     .toString(),
                 QStringLiteral("metis"));

        const CliRun compare = cli({QStringLiteral("compare"), QStringLiteral("--cluster"),
                                    QStringLiteral("metis-v100-t4"), QStringLiteral("--model"),
                                    QStringLiteral("gpt3-6.7b"), QStringLiteral("--json")});
        QCOMPARE(compare.exitCode, 0);
        bool metisOk = false;
        const QJsonArray results = QJsonDocument::fromJson(compare.out)
                                       .object()
                                       .value(QStringLiteral("results"))
                                       .toArray();
        for (const QJsonValue &result : results)
            if (result.toObject().value(QStringLiteral("planner")).toString()
                == QStringLiteral("metis"))
                metisOk = result.toObject().value(QStringLiteral("status")).toString()
                          == QStringLiteral("ok");
        QVERIFY(metisOk);
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestMetis)
#include "tst_metis.moc"
