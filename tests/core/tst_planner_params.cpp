// The typed planner parameters: one table per planner that validates, documents and defaults
// every setting, as the CLI's --knob and the app's planner settings use it.
#include "core/cost/cost_model.h"
#include "core/cost/problem.h"
#include "core/io/catalog_json.h"
#include "core/io/loaders.h"
#include "core/planners/hexgen/kmeans_groups.h"
#include "core/planners/planner.h"
#include "tests/test_registry.h"

#include <QtTest>

#include <chrono>

using namespace hetplan;

class TestPlannerParams : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void tableDefaultsAreTheStructDefaults()
    {
        const PlannerParameters defaults;
        for (PlannerKind kind : {PlannerKind::HexiScale, PlannerKind::Metis, PlannerKind::Holmes,
                                 PlannerKind::HexGen, PlannerKind::Exhaustive}) {
            QVERIFY(!plannerParameters(kind).empty());
            for (const ParameterSpec &spec : plannerParameters(kind)) {
                QVERIFY(!spec.doc.empty());
                QVERIFY(spec.min <= spec.defaultValue && spec.defaultValue <= spec.max);
                QCOMPARE(plannerParameter(defaults, kind, spec.name).value(), spec.defaultValue);
            }
        }
        QVERIFY(plannerParameters(PlannerKind::Megatron).empty());
        QCOMPARE(defaults.hexiscale.tau, 2);
    }

    void setByNameValidates()
    {
        PlannerParameters parameters;
        QVERIFY(setPlannerParameter(parameters, PlannerKind::HexiScale, "tau", 4).ok());
        QCOMPARE(parameters.hexiscale.tau, 4);
        for (double bad : {1e12, 2e9, -5.0, 1.5}) {
            const Status refused
                = setPlannerParameter(parameters, PlannerKind::HexiScale, "iterations", bad);
            QVERIFY(!refused.ok());
            QCOMPARE(refused.error().kind, ErrorKind::BadInput);
            QVERIFY2(refused.error().message.find("[1, 100000]") != std::string::npos,
                     refused.error().message.c_str());
        }
        QCOMPARE(parameters.hexiscale.iterations, HexiScaleParameters{}.iterations);
        const Status unknown = setPlannerParameter(parameters, PlannerKind::Metis, "tau", 3);
        QVERIFY(!unknown.ok());
        QVERIFY(unknown.error().message.find("variance") != std::string::npos);
        QVERIFY(unknown.error().message.find("hexiscale") != std::string::npos);
        QVERIFY(
            setPlannerParameters(parameters, PlannerKind::HexGen, "prefer_replicas=0,requests=50")
                .ok());
        QCOMPARE(parameters.hexgen.preferReplicas, false);
        QCOMPARE(parameters.hexgen.requests, 50);
        QVERIFY(!setPlannerParameters(parameters, PlannerKind::HexGen, "prefer_replicas=2").ok());
    }

    void describeListsTheParameters()
    {
        PlannerOptions options;
        const std::string text = options.describe(PlannerKind::HexiScale);
        QVERIFY2(text.find("tau=2") != std::string::npos, text.c_str());
        QVERIFY2(text.find("iterations=50") != std::string::npos, text.c_str());
    }

    void timeLimitIsEnforcedByThePlannerFrontDoor()
    {
        const Cluster cluster = loadCluster("large-cluster").value();
        const Problem problem{Topology::build(cluster, builtinGpuCatalog()).value(),
                              loadModel("llama2-70b").value(), Workload{}};
        const auto costModel = makeCostModel(CostModelKind::HetPlan);
        PlannerOptions options;
        options.parameters.hexiscale.iterations = 100000;
        options.timeLimitS = 1;
        NullProgress progress;
        const auto started = std::chrono::steady_clock::now();
        const auto search = makePlanner(PlannerKind::HexiScale)
                                .value()
                                ->plan(problem, *costModel, options, {}, progress);
        const double tookS
            = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        QVERIFY(search.ok());
        QVERIFY(search->stoppedEarly);
        QVERIFY(search->timeLimitReached);
        QVERIFY2(tookS < 20, std::to_string(tookS).c_str()); // a hang check
    }

    void everyGpuExcludedIsBadInputNotACrash()
    {
        const Cluster cluster = loadCluster("hexgen-full-price").value();
        Workload workload;
        workload.mode = Mode::Infer;
        const Problem problem{Topology::build(cluster, builtinGpuCatalog()).value(),
                              loadModel("llama2-7b").value(), workload};
        PlannerOptions options;
        for (int g = 0; g < problem.topology.gpuCount(); ++g)
            options.excludedGpus.push_back(g);
        const auto costModel = makeCostModel(CostModelKind::HetPlan);
        NullProgress progress;
        const auto search = makePlanner(PlannerKind::HexGen)
                                .value()
                                ->plan(problem, *costModel, options, {}, progress);
        QVERIFY(!search.ok());
        QCOMPARE(search.error().kind, ErrorKind::BadInput);
        QVERIFY(search.error().message.find("no GPUs left") != std::string::npos);
    }

    void kMeansOfNoMachinesIsEmpty()
    {
        const Cluster cluster = loadCluster("hexgen-full-price").value();
        const Topology topology = Topology::build(cluster, builtinGpuCatalog()).value();
        const std::vector<std::vector<int>> none(cluster.machines.size());
        const CommunicationClusters clusters(topology, none, 1e6);
        QVERIFY(clusters.cluster(3, 1).empty());
        QCOMPARE(clusters.elbow(1), 0);
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestPlannerParams)
#include "tst_planner_params.moc"
