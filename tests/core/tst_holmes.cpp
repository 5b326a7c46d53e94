// Holmes: on the hybrid InfiniBand + RoCE cluster it keeps every DP and TP collective off
// Ethernet (its speed-up over the baseline, which falls back to sockets for the whole job, is in
// tst_beats_baseline); its
// layer partition follows eq. 4–5 and gives way to memory; on random clusters it returns a
// valid plan or says clearly that none fits; the same seed gives the same plan.
#include "core/cost/cost_model.h"
#include "core/cost/problem.h"
#include "core/cost/validator.h"
#include "core/io/catalog_json.h"
#include "core/io/formats.h"
#include "core/io/loaders.h"
#include "core/plan/transport.h"
#include "core/planners/holmes/fabrics.h"
#include "core/planners/holmes/holmes_planner.h"
#include "core/planners/holmes/layer_partition.h"
#include "core/planners/megatron.h"
#include "tests/core/planner_test_support.h"
#include "tests/test_programs.h"
#include "tests/test_registry.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <array>
#include <random>

using namespace hetplan;
using namespace hetplan::test;

namespace {

// Holmes Table 2, parameter groups 3–4: GPT 7.5B, sequence 2048, global batch 1536.
QString issuesText(const std::vector<PlanIssue> &issues)
{
    QString text;
    for (const PlanIssue &issue : issues)
        text += QString::fromStdString(issue.message) + QLatin1Char('\n');
    return text;
}

// Empty when every TP group lies in one machine and every DP group (stage k of every pipeline)
// in machines of one NIC kind, recording that kind, reachable over its links; else what breaks.
QString nicAwareProblem(const Topology &topology, const Plan &plan)
{
    const std::vector<Machine> &machines = topology.cluster().machines;
    const auto machineOf = [&](int gpu) { return topology.gpu(gpu).machine; };
    for (size_t p = 0; p < plan.pipelines.size(); ++p)
        for (size_t k = 0; k < plan.pipelines[p].stages.size(); ++k) {
            const Stage &stage = plan.pipelines[p].stages[k];
            for (int gpu : stage.gpus)
                if (machineOf(gpu) != machineOf(stage.gpus.front()))
                    return QStringLiteral("pipeline %1 stage %2: TP group spans machines")
                        .arg(p)
                        .arg(k);
            const NicKind nic = machines[size_t(machineOf(stage.gpus.front()))].nic;
            if (stage.transport.dp != holmes::transportOf(nic))
                return QStringLiteral("pipeline %1 stage %2: dp transport is not its NIC's")
                    .arg(p)
                    .arg(k);
            const Stage &first = plan.pipelines.front().stages[k];
            if (stage.transport.dp != first.transport.dp)
                return QStringLiteral("stage %1: DP group mixes transports").arg(k);
            for (int x : first.gpus)
                for (int y : stage.gpus)
                    if (x != y && !topology.connected(x, y, pathOf(*stage.transport.dp)))
                        return QStringLiteral("stage %1: DP group not connected over its NIC")
                            .arg(k);
        }
    return {};
}

// 1–6 machines with InfiniBand, RoCE or Ethernet NICs, each fabric on its own switch, most
// machines (not all) on a shared Ethernet switch; mixed GPU types and counts.
Problem randomProblem(std::mt19937_64 &random)
{
    static const char *const kTypes[] = {"A100-80G", "A800-80G", "RTX4090-24G", "RTX3090-24G"};
    static const NicKind kNics[] = {NicKind::InfiniBand, NicKind::Roce, NicKind::Ethernet};
    Cluster cluster;
    cluster.name = "random";
    cluster.switches = {{"ib", {}}, {"roce", {}}, {"eth", {}}};
    const int machines = 1 + int(random() % 6);
    for (int m = 0; m < machines; ++m) {
        Machine machine;
        machine.name = "m" + std::to_string(m);
        machine.gpu = kTypes[random() % 4];
        machine.count = 1 + int(random() % 8);
        machine.intra = {LinkKind::NvLink, double(16 + random() % 300), 3};
        machine.nic = kNics[random() % 3];
        cluster.machines.push_back(machine);
        if (machine.nic == NicKind::InfiniBand && random() % 5 != 0)
            cluster.links.push_back({machine.name, "ib", LinkKind::InfiniBand, 25, 1.5});
        if (machine.nic == NicKind::Roce && random() % 5 != 0)
            cluster.links.push_back({machine.name, "roce", LinkKind::Roce, 12.5, 2.5});
        if (random() % 7 != 0)
            cluster.links.push_back(
                {machine.name, "eth", LinkKind::Ethernet, 0.5 + double(random() % 12) / 4.0, 25});
    }
    static const int kLayers[] = {4, 8, 12, 24};
    // The widest models do not fit on a few 24 GiB GPUs: NoPlanFits must say so.
    static const int kHidden[] = {1024, 2048, 4096, 16384};
    const int hidden = kHidden[random() % 4];
    const ModelSpec model{"random-gpt", kLayers[random() % 4], hidden, 4 * hidden, 16, 16, 51200,
                          2048,         MlpKind::Gelu};
    Workload workload;
    workload.train.globalBatch = 1 + int(random() % 64);
    workload.train.microBatchSizes = {1, 2};
    workload.train.seqLen = 1024;
    return {orFail(Topology::build(cluster, builtinGpuCatalog()), "random cluster"), model,
            workload};
}

} // namespace

class TestHolmes : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void fabricsFollowNicKinds()
    {
        const Problem problem = holmesHybridProblem();
        const std::vector<holmes::Fabric> fabrics = holmes::findFabrics(problem.topology);
        QCOMPARE(fabrics.size(), size_t(2));
        QVERIFY(fabrics[0].nic == NicKind::InfiniBand);
        QVERIFY(fabrics[0].transport() == Transport::InfiniBand);
        QCOMPARE(fabrics[0].machines, (std::vector<int>{0, 1, 2, 3}));
        QVERIFY(fabrics[1].transport() == Transport::Roce);
        QCOMPARE(fabrics[1].machines, (std::vector<int>{4, 5, 6, 7}));
    }

    // Eq. 4 with two equal fabrics: ⌊α · ½ · N⌋ to the first, the rest to the last.
    void selfAdaptingPartition_data()
    {
        QTest::addColumn<QList<double>>("speeds");
        QTest::addColumn<QList<int>>("stages");
        QTest::addColumn<int>("layers");
        QTest::addColumn<double>("alpha");
        QTest::addColumn<QList<int>>("expected");
        QTest::newRow("eq. 4, α 1.05")
            << QList<double>{1, 1} << QList<int>{1, 1} << 36 << 1.05 << QList<int>{18, 18};
        QTest::newRow("eq. 4, α 1.2")
            << QList<double>{1, 1} << QList<int>{1, 1} << 36 << 1.2 << QList<int>{21, 15};
        QTest::newRow("eq. 5, three fabrics")
            << QList<double>{2, 1, 1} << QList<int>{1, 1, 1} << 30 << 1.1 << QList<int>{16, 8, 6};
        QTest::newRow("every stage keeps a layer")
            << QList<double>{1, 1} << QList<int>{1, 3} << 4 << 2.0 << QList<int>{1, 3};
        QTest::newRow("one fabric takes all")
            << QList<double>{5} << QList<int>{2} << 30 << 1.05 << QList<int>{30};
    }

    void selfAdaptingPartition()
    {
        QFETCH(QList<double>, speeds);
        QFETCH(QList<int>, stages);
        QFETCH(int, layers);
        QFETCH(double, alpha);
        QFETCH(QList<int>, expected);
        const std::vector<double> s(speeds.begin(), speeds.end());
        const std::vector<int> n(stages.begin(), stages.end());
        const std::vector<int> counts = holmes::fabricLayers(s, n, layers, alpha);
        QCOMPARE(QList<int>(counts.begin(), counts.end()), expected);
        QCOMPARE(holmes::spreadLayers(7, std::vector<double>{1, 1, 2}),
                 (std::vector<int>{2, 2, 3}));
    }

    // The point of Holmes (§3.2, Table 3): DP stays on each fabric's RDMA, TP in the node, and
    // pipelines cross the fabrics over sockets only there (its speed-up over the baseline is in
    // tst_beats_baseline).
    void hybridClusterKeepsRdmaPerFabric_data()
    {
        QTest::addColumn<int>("costModel");
        QTest::newRow("hetplan") << int(CostModelKind::HetPlan);
        QTest::newRow("hexiscale-paper") << int(CostModelKind::HexiScalePaper);
    }

    void hybridClusterKeepsRdmaPerFabric()
    {
        QFETCH(int, costModel);
        const auto model = makeCostModel(CostModelKind(costModel));
        const Problem problem = holmesHybridProblem();
        const PlanSearch holmes = orFail(runPlanner(HolmesPlanner(), problem, *model), "holmes");
        QVERIFY2(validatePlan(problem, holmes.plan, model.get()).empty(),
                 qPrintable(issuesText(validatePlan(problem, holmes.plan, model.get()))));
        const QString nicProblem = nicAwareProblem(problem.topology, holmes.plan);
        QVERIFY2(nicProblem.isEmpty(), qPrintable(nicProblem));
        for (const Pipeline &pipeline : holmes.plan.pipelines)
            for (size_t k = 0; k + 1 < pipeline.stages.size(); ++k) {
                const Stage &stage = pipeline.stages[k];
                const bool crosses = pipeline.stages[k + 1].transport.dp != stage.transport.dp;
                QVERIFY(stage.transport.pp == (crosses ? Transport::Socket : *stage.transport.dp));
            }
    }

    void writtenPlanReadsBackIdentically()
    {
        const auto model = makeCostModel(CostModelKind::HetPlan);
        const Problem problem = holmesHybridProblem();
        const PlanSearch search = orFail(runPlanner(HolmesPlanner(), problem, *model), "holmes");
        const std::string text = writePlan(search.plan, problem.topology);
        QVERIFY(text.find("\"transport\"") != std::string::npos);
        const Plan back = orFail(parsePlan(text, "holmes.plan.json", problem.topology), "read");
        QVERIFY(back.sameLayout(search.plan));
        QCOMPARE(writePlan(back, problem.topology), text);
        QCOMPARE(model->evaluate(problem, back).iterationS, search.evaluation.iterationS);
    }

    void cliPlansComparesAndValidates()
    {
        if (!QFile::exists(hetplan::test::projectProgram("hetplan-cli")))
            QSKIP("hetplan-cli is not built");
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("holmes.plan.json"));
        const QStringList workload{
            QStringLiteral("--cluster"),      QStringLiteral("holmes-hybrid"),
            QStringLiteral("--model"),        QStringLiteral("gpt3-7.5b"),
            QStringLiteral("--global-batch"), QStringLiteral("1536"),
            QStringLiteral("--seq-len"),      QStringLiteral("2048")};
        const auto run = [](const QStringList &arguments) {
            QProcess process;
            process.start(hetplan::test::projectProgram("hetplan-cli"), arguments);
            process.waitForFinished(120000);
            return std::pair{process.exitCode(),
                             QString::fromUtf8(process.readAllStandardOutput()
                                               + process.readAllStandardError())};
        };
        const auto [planCode, planText]
            = run(QStringList{QStringLiteral("plan"), QStringLiteral("--planner"),
                              QStringLiteral("holmes"), QStringLiteral("--out"), out}
                  + workload);
        QVERIFY2(planCode == 0, qPrintable(planText));
        QFile file(out);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const std::string written = file.readAll().toStdString();
        QVERIFY(written.find("\"infiniband\"") != std::string::npos);
        QVERIFY(written.find("\"roce\"") != std::string::npos);
        const Problem problem = holmesHybridProblem();
        const Plan back = orFail(parsePlan(written, "holmes.plan.json", problem.topology), "read");
        QCOMPARE(writePlan(back, problem.topology), written);
        const auto [validCode, validText] = run({QStringLiteral("validate"), out});
        QVERIFY2(validCode == 0, qPrintable(validText));
        const auto [compareCode, compareText]
            = run(QStringList{QStringLiteral("compare"), QStringLiteral("--planners"),
                              QStringLiteral("holmes,megatron")}
                  + workload);
        QVERIFY2(compareCode == 0, qPrintable(compareText));
        QVERIFY(compareText.contains(QStringLiteral("holmes")));
    }

    // §3.3: Mem(N_ci) ≤ DMem(c_i). Two equally fast fabrics, one with little memory: eq. 5 would
    // give it half the layers, which do not fit; the partition moves them to the roomy one.
    void partitionGivesWayToMemory()
    {
        Cluster cluster;
        cluster.name = "memory";
        GpuType roomy{"Roomy", 150, 80, 2000, {}, 0.55, std::nullopt, "fp32", "test", {}};
        GpuType tight{"Tight", 150, 10, 2000, {}, 0.55, std::nullopt, "fp32", "test", {}};
        cluster.gpuTypes = {roomy, tight};
        cluster.machines
            = {{"a", "Roomy", 1, "", {LinkKind::NvLink, 300, 3}, NicKind::InfiniBand, {}},
               {"b", "Tight", 1, "", {LinkKind::NvLink, 300, 3}, NicKind::Roce, {}}};
        cluster.switches = {{"eth", {}}};
        cluster.links = {{"a", "eth", LinkKind::Ethernet, 12.5, 10},
                         {"b", "eth", LinkKind::Ethernet, 12.5, 10}};
        Workload workload;
        workload.train.globalBatch = 32;
        workload.train.microBatchSizes = {1};
        workload.train.seqLen = 2048;
        const Problem problem{orFail(Topology::build(cluster, builtinGpuCatalog()), "memory"),
                              orFail(loadModel("gpt3-1.3b"), "gpt3-1.3b"), workload};
        const auto model = makeCostModel(CostModelKind::HetPlan);
        const PlanSearch search = orFail(runPlanner(HolmesPlanner(), problem, *model), "holmes");
        QVERIFY(search.evaluation.fitsInMemory());
        const Pipeline &pipeline = search.plan.pipelines.front();
        QCOMPARE(pipeline.stages.size(), size_t(2));
        const Stage &onTight = problem.topology.gpu(pipeline.stages[0].gpus[0]).machine == 1
                                   ? pipeline.stages[0]
                                   : pipeline.stages[1];
        QVERIFY2(
            onTight.layerCount() < problem.model.layers / 2,
            qPrintable(QStringLiteral("%1 layers on the 10 GiB GPU").arg(onTight.layerCount())));
    }

    void alphaIsAKnob()
    {
        const auto model = makeCostModel(CostModelKind::HexiScalePaper);
        const Problem problem = holmesHybridProblem();
        PlannerOptions options;
        options.parameters.holmes.alpha = 1.3;
        const PlanSearch search
            = orFail(runPlanner(HolmesPlanner(), problem, *model, options), "holmes");
        QVERIFY(validatePlan(problem, search.plan, model.get()).empty());
        // With equally fast fabrics the first fabric of the pipeline gets ⌊1.3 · ½ · 36⌋ = 23.
        const Pipeline &pipeline = search.plan.pipelines.front();
        int firstFabricLayers = 0;
        for (const Stage &stage : pipeline.stages)
            if (stage.transport.dp == pipeline.stages.front().transport.dp)
                firstFabricLayers += stage.layerCount();
        QVERIFY(pipeline.stages.front().transport.dp != pipeline.stages.back().transport.dp);
        QCOMPARE(firstFabricLayers, 23);
    }

    void warmStartStopAndLimits()
    {
        const auto model = makeCostModel(CostModelKind::HetPlan);
        const Problem problem = holmesHybridProblem();
        const PlanSearch megatron
            = orFail(runPlanner(MegatronPlanner(), problem, *model), "megatron");
        PlannerOptions options;
        options.warmStart = megatron.plan;
        std::stop_source stop;
        stop.request_stop();
        const PlanSearch stopped
            = orFail(runPlanner(HolmesPlanner(), problem, *model, options, stop.get_token()),
                     "stopped with warm start");
        QVERIFY(stopped.stoppedEarly);
        QVERIFY(stopped.plan.sameLayout(megatron.plan));
        const Result<PlanSearch> cancelled
            = runPlanner(HolmesPlanner(), problem, *model, {}, stop.get_token());
        QVERIFY(!cancelled && cancelled.error().kind == ErrorKind::Cancelled);

        PlannerOptions one;
        one.maxIterations = 3;
        const PlanSearch limited
            = orFail(runPlanner(HolmesPlanner(), problem, *model, one), "three candidates");
        QCOMPARE(limited.trace.size(), size_t(3));
    }

    void noPlanFitsSaysWhy()
    {
        const auto model = makeCostModel(CostModelKind::HetPlan);
        Problem problem = holmesHybridProblem();
        // Eight layers of 51.5 B parameters: even one layer per 8-GPU stage needs > 100 GiB.
        problem.model = {"huge", 8, 65536, 262144, 64, 64, 51200, 2048, MlpKind::Gelu};
        const Result<PlanSearch> result = runPlanner(HolmesPlanner(), problem, *model);
        QVERIFY(!result);
        QCOMPARE(int(result.error().kind), int(ErrorKind::NoPlanFits));
        const QString message = QString::fromStdString(result.error().message);
        QVERIFY2(message.contains(QStringLiteral("fits in memory"))
                     && message.contains(QStringLiteral("GiB on ")),
                 qPrintable(message));
    }

    // Seeded random clusters: a valid, fitting, NIC-aware plan or a clear NoPlanFits; the same
    // seed gives the same plan.
    void randomClusters()
    {
        const auto models = std::array{makeCostModel(CostModelKind::HetPlan),
                                       makeCostModel(CostModelKind::HexiScalePaper)};
        int planned = 0;
        int refused = 0;
        for (std::uint64_t seed = 1; seed <= 150; ++seed) {
            std::mt19937_64 random(seed);
            const Problem problem = randomProblem(random);
            const CostModel &model = *models[seed % 2];
            PlannerOptions options;
            options.seed = seed;
            const Result<PlanSearch> first = runPlanner(HolmesPlanner(), problem, model, options);
            const Result<PlanSearch> again = runPlanner(HolmesPlanner(), problem, model, options);
            const QString where = QStringLiteral("seed %1").arg(seed);
            QCOMPARE(bool(first), bool(again));
            if (!first) {
                QVERIFY2(first.error().kind == ErrorKind::NoPlanFits,
                         qPrintable(where + QStringLiteral(": ")
                                    + QString::fromStdString(first.error().message)));
                QVERIFY2(first.error().message.find("Holmes") != std::string::npos,
                         first.error().message.c_str());
                QCOMPARE(again.error().message, first.error().message);
                if (refused++ == 0)
                    qInfo("%s: %s", qPrintable(where), first.error().message.c_str());
                continue;
            }
            ++planned;
            QVERIFY2(validatePlan(problem, first->plan, &model).empty(),
                     qPrintable(where + QStringLiteral(": ")
                                + issuesText(validatePlan(problem, first->plan, &model))));
            QVERIFY2(first->evaluation.fitsInMemory(), qPrintable(where));
            QVERIFY2(first->plan.sameLayout(again->plan), qPrintable(where));
            const QString nicProblem = nicAwareProblem(problem.topology, first->plan);
            QVERIFY2(nicProblem.isEmpty(), qPrintable(where + QStringLiteral(": ") + nicProblem));
        }
        qInfo("random clusters: %d planned, %d refused with NoPlanFits", planned, refused);
        QVERIFY(planned > 50);
        QVERIFY(refused > 0);
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestHolmes)
#include "tst_holmes.moc"
