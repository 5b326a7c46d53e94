// HexGen: valid plans of serving replicas on the paper's clusters, at least as good as the
// paper's own schedule (Appendix F) and better than a symmetric layout, quick re-planning when
// GPUs leave (§5.3), determinism, and the CLI's inference output.
#include "core/cost/cost_model.h"
#include "core/cost/problem.h"
#include "core/cost/validator.h"
#include "core/io/catalog_json.h"
#include "core/io/formats.h"
#include "core/io/loaders.h"
#include "core/planners/hexgen/hexgen_planner.h"
#include "core/planners/hexgen/kmeans_groups.h"
#include "core/planners/hexgen/pipeline_dp.h"
#include "core/planners/hexgen/replica_packing.h"
#include "core/planners/hexgen/symmetric_baseline.h"
#include "core/serving/plan_serving.h"
#include "tests/core/cli_runner.h"
#include "tests/test_registry.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <chrono>
#include <nlohmann/json.hpp>
#include <set>

using namespace hetplan;

namespace {

// HexGen §5.1: the paper's request rates (0.125 … 8 requests/s).
const std::vector<double> kPaperRatesPerS{0.125, 0.25, 0.5, 1, 2, 4, 8};

// hexgen-full-price with Llama-2 70B and its bundled workload (SLO scale 5, §5.4).
Problem fullPrice()
{
    const Cluster cluster = loadCluster("hexgen-full-price").value();
    const auto example = findExample("hexgen-full-price", ExampleKind::Workload);
    const Workload workload = parseWorkload(example->text, example->path).value();
    return {Topology::build(cluster, builtinGpuCatalog()).value(), loadModel("llama2-70b").value(),
            workload};
}

// The full-price workload and model on one machine of `count` GPUs.
Problem onOneMachine(const char *gpu, int count)
{
    Cluster cluster;
    cluster.name = "one-machine";
    Machine machine;
    machine.name = "A";
    machine.gpu = gpu;
    machine.count = count;
    cluster.machines.push_back(machine);
    Problem problem = fullPrice();
    problem.topology = Topology::build(cluster, builtinGpuCatalog()).value();
    return problem;
}

Plan appendixF(const Problem &problem)
{
    const auto example = findExample("hexgen-full-price-appendix-f", ExampleKind::Plan);
    return parsePlan(example->text, example->path, problem.topology).value();
}

PlanSearch plan(const Problem &problem, const CostModel &costModel, PlannerOptions options = {},
                std::vector<int> offline = {})
{
    NullProgress progress;
    options.excludedGpus = std::move(offline);
    auto search = HexGenPlanner().plan(problem, costModel, options, {}, progress);
    if (!search)
        qFatal("hexgen: %s", search.error().message.c_str());
    return std::move(search).value();
}

std::vector<double> latencies(const Problem &problem, const CostModel &costModel, const Plan &p)
{
    std::vector<double> latencyS;
    for (const Pipeline &pipeline : p.pipelines)
        latencyS.push_back(replicaLatencyS(problem, costModel, pipeline));
    return latencyS;
}

using Run = hetplan::test::CliRun;
using hetplan::test::cli;

QStringList planGpus(const QJsonObject &plan)
{
    QStringList gpus;
    for (const QJsonValue &pipeline : plan[QStringLiteral("pipelines")].toArray())
        for (const QJsonValue &stage : pipeline[QStringLiteral("stages")].toArray())
            for (const QJsonValue &gpu : stage[QStringLiteral("gpus")].toArray())
                gpus << gpu.toString();
    return gpus;
}

} // namespace

class TestHexGen : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void atLeastAsGoodAsAppendixF()
    {
        const Problem problem = fullPrice();
        const auto costModel = makeCostModel(CostModelKind::HexGenPaper);
        const PlanSearch search = plan(problem, *costModel);
        QVERIFY(validatePlan(problem, search.plan, costModel.get()).empty());
        const Plan paper = appendixF(problem);
        const ServingSimulator simulator;
        const double sloS = sloSeconds(problem, *costModel);
        const std::vector<double> ours = latencies(problem, *costModel, search.plan);
        const std::vector<double> theirs = latencies(problem, *costModel, paper);
        qInfo("HexGen: %zu replicas, Appendix F: %zu", ours.size(), theirs.size());
        // Appendix F: "as many model replicas as possible", 12 on this cluster.
        QVERIFY(ours.size() >= theirs.size());
        QVERIFY(ours.size() >= 12);
        for (double rate : kPaperRatesPerS) {
            const double a = simulator.attainment(ours, rate, sloS);
            const double b = simulator.attainment(theirs, rate, sloS);
            qInfo("  %.3f requests/s: attainment %.4f (Appendix F %.4f)", rate, a, b);
            QVERIFY2(a >= b, qPrintable(QStringLiteral("rate %1").arg(rate)));
        }
        QVERIFY(simulator.maxSustainableRate(ours, sloS)
                >= simulator.maxSustainableRate(theirs, sloS));
    }

    void sustainsMoreThanSymmetric()
    {
        const Problem problem = fullPrice();
        const auto costModel = makeCostModel(CostModelKind::HexGenPaper);
        // Asked for the highest traffic (ties on attainment broken by the sustainable rate):
        // twelve replicas sustain less here, four of them within 1 % of the SLO.
        PlannerOptions options;
        options.parameters.hexgen.preferReplicas = false;
        const PlanSearch search = plan(problem, *costModel, options);
        const ServingSimulator simulator;
        const double sloS = sloSeconds(problem, *costModel);
        const std::optional<Plan> symmetric
            = bestSymmetricPlan(problem, *costModel, simulator, sloS);
        QVERIFY(symmetric);
        QVERIFY(validatePlan(problem, *symmetric, costModel.get()).empty());
        const double ours
            = simulator.maxSustainableRate(latencies(problem, *costModel, search.plan), sloS);
        const double theirs
            = simulator.maxSustainableRate(latencies(problem, *costModel, *symmetric), sloS);
        qInfo("max sustainable rate: HexGen %.3f, symmetric %.3f requests/s (%zu vs %zu replicas)",
              ours, theirs, search.plan.pipelines.size(), symmetric->pipelines.size());
        QVERIFY(ours > theirs);
    }

    void replansWhenFourGpusLeave()
    {
        const Problem problem = fullPrice();
        const auto costModel = makeCostModel(CostModelKind::HexGenPaper);
        const PlanSearch before = plan(problem, *costModel);
        // Four GPUs of the first replica go offline (§5.3's scenario).
        std::vector<int> offline = before.plan.pipelines.front().stages.front().gpus;
        for (const Stage &stage : before.plan.pipelines.front().stages)
            offline.insert(offline.end(), stage.gpus.begin(), stage.gpus.end());
        std::sort(offline.begin(), offline.end());
        offline.erase(std::unique(offline.begin(), offline.end()), offline.end());
        offline.resize(4);

        PlannerOptions options;
        options.warmStart = before.plan;
        const auto started = std::chrono::steady_clock::now();
        const PlanSearch after = plan(problem, *costModel, options, offline);
        const double seconds
            = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        for (const Pipeline &pipeline : after.plan.pipelines)
            for (const Stage &stage : pipeline.stages)
                for (int gpu : stage.gpus)
                    QVERIFY(std::find(offline.begin(), offline.end(), gpu) == offline.end());

        const ServingSimulator simulator;
        const double sloS = sloSeconds(problem, *costModel);
        const double rateBefore
            = simulator.maxSustainableRate(latencies(problem, *costModel, before.plan), sloS);
        const double rateAfter
            = simulator.maxSustainableRate(latencies(problem, *costModel, after.plan), sloS);
        qInfo("re-planned in %.2f s: max rate %.3f -> %.3f requests/s, %zu -> %zu replicas",
              seconds, rateBefore, rateAfter, before.plan.pipelines.size(),
              after.plan.pipelines.size());
        QVERIFY(seconds < 10); // the bound; the paper took under 30 s
        QVERIFY(rateAfter >= 0.8 * rateBefore);
    }

    void propertiesOfEveryPlan_data()
    {
        QTest::addColumn<QString>("cluster");
        QTest::addColumn<QString>("costModel");
        QTest::addColumn<int>("seed");
        QTest::newRow("full price, paper")
            << QStringLiteral("hexgen-full-price") << QStringLiteral("hexgen-paper") << 1;
        QTest::newRow("full price, hetplan")
            << QStringLiteral("hexgen-full-price") << QStringLiteral("hetplan") << 2;
        QTest::newRow("half price, paper")
            << QStringLiteral("hexgen-half-price") << QStringLiteral("hexgen-paper") << 3;
        QTest::newRow("half price, hetplan")
            << QStringLiteral("hexgen-half-price") << QStringLiteral("hetplan") << 4;
    }

    void propertiesOfEveryPlan()
    {
        QFETCH(QString, cluster);
        QFETCH(QString, costModel);
        QFETCH(int, seed);
        Problem problem = fullPrice();
        problem.topology
            = Topology::build(loadCluster(cluster.toStdString()).value(), builtinGpuCatalog())
                  .value();
        const auto model = makeCostModel(costModelKindFromName(costModel.toStdString()).value());
        PlannerOptions options;
        options.seed = std::uint64_t(seed);
        const PlanSearch first = plan(problem, *model, options);
        const PlanSearch second = plan(problem, *model, options);
        QVERIFY(first.plan.sameLayout(second.plan)); // same seed, same plan
        QVERIFY(!first.plan.pipelines.empty());
        QVERIFY(first.evaluation.fitsInMemory());
        std::set<int> used;
        for (const Pipeline &pipeline : first.plan.pipelines)
            for (const Stage &stage : pipeline.stages) {
                // §4.2: a TP group is one GPU type inside one machine.
                QCOMPARE(int(stage.gpus.size()), stage.tp);
                for (int gpu : stage.gpus) {
                    QVERIFY(used.insert(gpu).second);
                    QCOMPARE(problem.topology.gpu(gpu).machine,
                             problem.topology.gpu(stage.gpus.front()).machine);
                }
            }
        double previous = 2;
        for (const TracePoint &t : first.trace) {
            QVERIFY(t.bestCostS <= previous && t.bestCostS >= 0);
            previous = t.bestCostS;
        }
    }

    void layoutOfOneGroup()
    {
        const Problem problem = onOneMachine("RTXA6000-48G", 3);
        const auto costModel = makeCostModel(CostModelKind::HexGenPaper);
        ReplicaLayouts layouts(problem, *costModel, {{0, 1, 2}}, 8);
        // Two A6000 (96 GiB) cannot hold 70B parameters: rejected before any DP.
        QVERIFY(!layouts.canHoldModel({{0, 2}}));
        QVERIFY(!layouts.layout({{0, 2}}).fits);
        const ReplicaDraft &draft = layouts.layout({{0, 3}});
        QVERIFY(draft.fits);
        int layers = 0;
        int gpus = 0;
        for (const DraftStage &stage : draft.stages) {
            layers += stage.layers;
            gpus += stage.tp;
        }
        QCOMPARE(layers, 80);
        QCOMPARE(gpus, 3); // one GPU would hold far fewer than 80 layers
        Plan p;
        p.pipelines.push_back(layouts.materialise(draft, {{0, 1, 2}}));
        QVERIFY(validatePlan(problem, p, costModel.get()).empty());
        QCOMPARE(replicaLatencyS(problem, *costModel, p.pipelines.front()), draft.latencyS);
    }

    void packsAsManyReplicasAsMemoryAllows()
    {
        const Problem problem = fullPrice();
        const auto costModel = makeCostModel(CostModelKind::HexGenPaper);
        std::vector<std::vector<int>> available(problem.topology.cluster().machines.size());
        for (int g = 0; g < problem.topology.gpuCount(); ++g)
            available[size_t(problem.topology.gpu(g).machine)].push_back(g);
        ReplicaLayouts layouts(problem, *costModel, available, 8);
        const double sloS = sloSeconds(problem, *costModel);
        ReplicaPacker packer(layouts, sloS);
        // Illinois: 16 A6000, 8 A5000, 4 A40 hold 8 replicas of 144 GiB each (Appendix F).
        const GpuGroup illinois{{5, 8}, {6, 8}, {7, 8}, {8, 4}};
        const auto &packed = packer.pack(illinois);
        QVERIFY(packed);
        int replicas = 0;
        int gpus = 0;
        for (const GpuGroup &group : *packed) {
            const ReplicaDraft &draft = layouts.layout(group);
            replicas += draft.fits && draft.latencyS <= sloS ? 1 : 0;
            for (const GroupPart &part : group)
                gpus += part.count;
        }
        QCOMPARE(replicas, 8);
        QCOMPARE(gpus, 28); // a partition of the pool
        // Two 3090 Ti cannot hold a replica.
        QVERIFY(!packer.pack({{0, 2}}));
    }

    void kMeansFollowsRegions()
    {
        const Problem problem = fullPrice();
        std::vector<std::vector<int>> available(problem.topology.cluster().machines.size());
        for (int g = 0; g < problem.topology.gpuCount(); ++g)
            available[size_t(problem.topology.gpu(g).machine)].push_back(g);
        const CommunicationClusters clusters(problem.topology, available, 8e6);
        const int k = clusters.elbow(1);
        QVERIFY(k >= 2);
        for (const GpuGroup &group : clusters.cluster(4, 1)) {
            const auto &machines = problem.topology.cluster().machines;
            const std::string region = machines[size_t(group.front().machine)].name.substr(0, 3);
            for (const GroupPart &part : group)
                QCOMPARE(machines[size_t(part.machine)].name.substr(0, 3), region);
        }
    }

    void noPlanFitsIsAnError()
    {
        const Problem problem = onOneMachine("RTX3090-24G", 2);
        const auto costModel = makeCostModel(CostModelKind::HexGenPaper);
        NullProgress progress;
        const auto search = HexGenPlanner().plan(problem, *costModel, {}, {}, progress);
        QVERIFY(!search);
        QCOMPARE(search.error().kind, ErrorKind::NoPlanFits);
        QVERIFY(search.error().message.find("llama2-70b") != std::string::npos);
    }

    void stopsAtOnce()
    {
        const Problem problem = fullPrice();
        const auto costModel = makeCostModel(CostModelKind::HexGenPaper);
        std::stop_source stop;
        stop.request_stop();
        NullProgress progress;
        const auto search
            = HexGenPlanner().plan(problem, *costModel, {}, stop.get_token(), progress);
        QVERIFY(search);
        QVERIFY(search->stoppedEarly);
        QCOMPARE(search->trace.size(), size_t(1));
    }

    void cliPlansEvaluatesAndReplans()
    {
        QTemporaryDir dir;
        const QString planPath = dir.filePath(QStringLiteral("hexgen.plan.json"));
        const QStringList common{
            QStringLiteral("--cluster"),    QStringLiteral("hexgen-full-price"),
            QStringLiteral("--model"),      QStringLiteral("llama2-70b"),
            QStringLiteral("--cost-model"), QStringLiteral("hexgen-paper")};
        Run run = cli(QStringList{QStringLiteral("plan"), QStringLiteral("--planner"),
                                  QStringLiteral("hexgen"), QStringLiteral("--out"), planPath,
                                  QStringLiteral("--json")}
                      + common);
        QCOMPARE(run.exitCode, 0);
        const QJsonObject planned = QJsonDocument::fromJson(run.out).object();
        const QJsonObject serving
            = planned[QStringLiteral("estimate")][QStringLiteral("serving")].toObject();
        for (const char *field : {"attainment", "p50_s", "p99_s", "max_rate", "slo_s"})
            QVERIFY2(serving.contains(QLatin1String(field)), field);
        // The bundled workload (1 request/s at SLO scale 5) is one the cluster can serve.
        QVERIFY(serving[QStringLiteral("attainment")].toDouble() >= 0.99);

        run = cli({QStringLiteral("evaluate"), QStringLiteral("--plan"), planPath});
        QCOMPARE(run.exitCode, 0);
        QVERIFY(run.out.contains("SLO attainment"));
        QVERIFY(run.out.contains("p50 / p99"));
        QVERIFY(run.out.contains("max sustainable rate"));
        run = cli({QStringLiteral("evaluate"), QStringLiteral("--plan"), planPath,
                   QStringLiteral("--json")});
        QCOMPARE(run.exitCode, 0);
        QVERIFY(QJsonDocument::fromJson(run.out).object()[QStringLiteral("serving")].isObject());

        // GPUs leave: the old plan is the warm start, trimmed to what is still online.
        const QStringList gone = planGpus(planned[QStringLiteral("plan")].toObject()).mid(0, 4);
        run = cli(QStringList{QStringLiteral("plan"), QStringLiteral("--planner"),
                              QStringLiteral("hexgen"), QStringLiteral("--warm-start"), planPath,
                              QStringLiteral("--remove-gpus"), gone.join(QLatin1Char(',')),
                              QStringLiteral("--json")}
                  + common);
        QCOMPARE(run.exitCode, 0);
        const QStringList used = planGpus(
            QJsonDocument::fromJson(run.out).object()[QStringLiteral("plan")].toObject());
        for (const QString &gpu : gone)
            QVERIFY(!used.contains(gpu));

        // Or the cluster itself shrinks: the warm start names GPUs that no longer exist.
        nlohmann::json cluster
            = nlohmann::json::parse(findExample("hexgen-full-price", ExampleKind::Cluster)->text);
        for (auto &machine : cluster["machines"])
            if (machine["name"] == "ice-3090Ti-0")
                machine["count"] = 4;
        QFile clusterFile(dir.filePath(QStringLiteral("smaller.cluster.json")));
        QVERIFY(clusterFile.open(QIODevice::WriteOnly));
        clusterFile.write(QByteArray::fromStdString(cluster.dump()));
        clusterFile.close();
        run = cli({QStringLiteral("plan"), QStringLiteral("--planner"), QStringLiteral("hexgen"),
                   QStringLiteral("--cluster"), clusterFile.fileName(), QStringLiteral("--model"),
                   QStringLiteral("llama2-70b"), QStringLiteral("--cost-model"),
                   QStringLiteral("hexgen-paper"), QStringLiteral("--mode"),
                   QStringLiteral("infer"), QStringLiteral("--warm-start"), planPath});
        QVERIFY2(run.exitCode == 0, run.err.constData());

        run = cli(QStringList{QStringLiteral("plan"), QStringLiteral("--remove-gpus"),
                              QStringLiteral("X:9"), QStringLiteral("--planner"),
                              QStringLiteral("hexgen")}
                  + common);
        QCOMPARE(run.exitCode, 2);
        QVERIFY(run.err.contains("X:9"));
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestHexGen)
#include "tst_hexgen.moc"
