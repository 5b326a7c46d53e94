// Transports of communication groups (docs/formats.md, "Plan"): paths restricted to one link
// kind, the socket fallback of a job that mixes InfiniBand and RoCE, the plan file's record,
// the validator's checks and what every cost model charges for it.
#include "core/cost/cost_model.h"
#include "core/cost/problem.h"
#include "core/cost/validator.h"
#include "core/io/catalog_json.h"
#include "core/io/formats.h"
#include "core/io/loaders.h"
#include "core/plan/transport.h"
#include "tests/core/planner_test_support.h"
#include "tests/test_registry.h"

#include <QtTest>

#include <string>

using namespace hetplan;
using namespace hetplan::test;

namespace {

const Topology &hybrid()
{
    static const Topology topology = orFail(
        Topology::build(orFail(loadCluster("holmes-hybrid"), "holmes-hybrid"), builtinGpuCatalog()),
        "holmes-hybrid topology");
    return topology;
}

int gpu(const Topology &topology, const char *name)
{
    const auto index = topology.findGpu(name);
    if (!index)
        qFatal("no GPU %s", name);
    return *index;
}

Problem hybridProblem()
{
    Workload workload;
    workload.train.globalBatch = 64;
    workload.train.microBatchSizes = {1};
    workload.train.seqLen = 2048;
    return {hybrid(), orFail(loadModel("gpt3-3.6b"), "gpt3-3.6b"), workload};
}

// Holmes' shape on holmes-hybrid (§3, Fig. 3): 4 pipelines of two stages, each stage one whole
// node (t = 8), pipeline j on ib-j then roce-j: DP inside each fabric, PP across them.
Plan holmesShapedPlan(const Problem &problem, bool recordTransports)
{
    const Topology &t = problem.topology;
    Plan plan;
    plan.cluster = "holmes-hybrid";
    plan.model = problem.model.name;
    plan.workload = problem.workload;
    const int layers = problem.model.layers;
    for (int j = 0; j < 4; ++j) {
        Pipeline pipeline;
        pipeline.microBatch = 1;
        pipeline.microBatches = problem.workload.train.globalBatch / 4;
        for (int s = 0; s < 2; ++s) {
            Stage stage;
            const std::string machine = (s == 0 ? "ib-" : "roce-") + std::to_string(j);
            for (int i = 0; i < 8; ++i)
                stage.gpus.push_back(gpu(t, (machine + ":" + std::to_string(i)).c_str()));
            stage.tp = 8;
            stage.layerBegin = s == 0 ? 0 : layers / 2;
            stage.layerEnd = s == 0 ? layers / 2 : layers;
            if (recordTransports) {
                stage.transport.dp = s == 0 ? Transport::InfiniBand : Transport::Roce;
                if (s == 0)
                    stage.transport.pp = Transport::Socket;
            }
            pipeline.stages.push_back(std::move(stage));
        }
        plan.pipelines.push_back(std::move(pipeline));
    }
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

class TestTransport : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void pathsRestrictedToOneLinkKind_data()
    {
        QTest::addColumn<QString>("a");
        QTest::addColumn<QString>("b");
        QTest::addColumn<int>("path");
        QTest::addColumn<double>("bandwidthGBps");
        QTest::addColumn<double>("latencyUs");
        const auto row = [](const char *name, const char *a, const char *b, PathKind path,
                            double bandwidthGBps, double latencyUs) {
            QTest::newRow(name) << QString::fromLatin1(a) << QString::fromLatin1(b) << int(path)
                                << bandwidthGBps << latencyUs;
        };
        row("ib widest", "ib-0:0", "ib-1:0", PathKind::Widest, 25, 3);
        row("ib over infiniband", "ib-0:0", "ib-1:0", PathKind::InfiniBand, 25, 3);
        row("ib over ethernet", "ib-0:0", "ib-1:0", PathKind::Ethernet, 3.125, 50);
        row("ib over roce", "ib-0:0", "ib-1:0", PathKind::Roce, 0, 0);
        row("roce over roce", "roce-1:3", "roce-2:0", PathKind::Roce, 25, 5);
        row("across fabrics widest", "ib-0:0", "roce-0:0", PathKind::Widest, 3.125, 50);
        row("across fabrics over infiniband", "ib-0:0", "roce-0:0", PathKind::InfiniBand, 0, 0);
        row("same machine, any kind", "ib-2:1", "ib-2:5", PathKind::Roce, 300, 2.5);
    }

    void pathsRestrictedToOneLinkKind()
    {
        QFETCH(QString, a);
        QFETCH(QString, b);
        QFETCH(int, path);
        QFETCH(double, bandwidthGBps);
        QFETCH(double, latencyUs);
        const Topology &t = hybrid();
        const int x = gpu(t, a.toLatin1().constData());
        const int y = gpu(t, b.toLatin1().constData());
        QCOMPARE(t.bandwidthGBps(x, y, PathKind(path)), bandwidthGBps);
        QCOMPARE(t.bandwidthGBps(y, x, PathKind(path)), bandwidthGBps);
        if (bandwidthGBps > 0)
            QCOMPARE(t.latencyUs(x, y, PathKind(path)), latencyUs);
        QCOMPARE(t.connected(x, y, PathKind(path)), bandwidthGBps > 0);
        // The widest path of the pair is unchanged by the restricted ones.
        QCOMPARE(t.bandwidthGBps(x, y), t.bandwidthGBps(x, y, PathKind::Widest));
    }

    void copiesShareRestrictedPaths()
    {
        const Topology copy = hybrid();
        QVERIFY(copy.mixesRdmaNics());
        QCOMPARE(copy.bandwidthGBps(gpu(copy, "ib-0:0"), gpu(copy, "ib-3:0"), PathKind::Ethernet),
                 3.125);
    }

    void measuredPairsWinOverTransports()
    {
        Cluster cluster = orFail(loadCluster("holmes-hybrid"), "holmes-hybrid");
        cluster.pairOverrides = {{"ib-0:0", "roce-0:0", 7.5, 12}};
        const Topology t = orFail(Topology::build(cluster, builtinGpuCatalog()), "overrides");
        QCOMPARE(t.bandwidthGBps(gpu(t, "ib-0:0"), gpu(t, "roce-0:0"), PathKind::InfiniBand), 7.5);
        QCOMPARE(t.latencyUs(gpu(t, "ib-0:0"), gpu(t, "roce-0:0"), PathKind::Ethernet), 12.0);
    }

    // Holmes §2.2, §3.2: stock NCCL falls back to sockets when a job spans IB and RoCE NICs.
    void unrecordedGroupsFallBackToSocketsWhenRdmaKindsMix()
    {
        const Problem problem = hybridProblem();
        const Plan mixed = holmesShapedPlan(problem, false);
        QVERIFY(PlanPaths(problem.topology, mixed).unrecorded() == PathKind::Ethernet);

        Plan ibOnly = mixed;
        for (Pipeline &pipeline : ibOnly.pipelines)
            pipeline.stages.resize(1);
        QVERIFY(PlanPaths(problem.topology, ibOnly).unrecorded() == PathKind::Widest);

        const Plan recorded = holmesShapedPlan(problem, true);
        const PlanPaths paths(problem.topology, recorded);
        QVERIFY(paths.dp(recorded.pipelines[0].stages[0]) == PathKind::InfiniBand);
        QVERIFY(paths.dp(recorded.pipelines[0].stages[1]) == PathKind::Roce);
        QVERIFY(paths.hop(recorded.pipelines[0].stages[0]) == PathKind::Ethernet);
        QVERIFY(paths.tp(recorded.pipelines[0].stages[0]) == PathKind::Ethernet); // unrecorded
        QVERIFY(PlanPaths::shared(PathKind::InfiniBand, PathKind::Roce) == PathKind::Ethernet);
    }

    // Every training cost model charges a group its transport: the same layout is slower in
    // data-parallel communication without the record (all over 25 Gb/s Ethernet) than with it.
    void costModelsChargeTransports_data()
    {
        QTest::addColumn<int>("costModel");
        for (CostModelKind kind : allCostModels())
            QTest::newRow(std::string(costModelName(kind)).c_str()) << int(kind);
    }

    void costModelsChargeTransports()
    {
        QFETCH(int, costModel);
        const auto model = makeCostModel(CostModelKind(costModel));
        const Problem problem = hybridProblem();
        const Plan recorded = holmesShapedPlan(problem, true);
        const Plan unrecorded = holmesShapedPlan(problem, false);
        QVERIFY2(validatePlan(problem, recorded, model.get()).empty(),
                 qPrintable(issuesText(validatePlan(problem, recorded, model.get()))));
        const Evaluation fast = model->evaluate(problem, recorded);
        const Evaluation slow = model->evaluate(problem, unrecorded);
        QVERIFY(fast.valid && slow.valid);
        QVERIFY2(slow.breakdown.dpCommS > 4 * fast.breakdown.dpCommS,
                 qPrintable(QStringLiteral("dp %1 s recorded, %2 s unrecorded")
                                .arg(fast.breakdown.dpCommS)
                                .arg(slow.breakdown.dpCommS)));
        QVERIFY(slow.iterationS > fast.iterationS);

        // Sockets recorded for every group cost what the fallback costs.
        Plan sockets = recorded;
        for (Pipeline &pipeline : sockets.pipelines)
            for (Stage &stage : pipeline.stages)
                stage.transport.dp = Transport::Socket;
        QCOMPARE(model->evaluate(problem, sockets).iterationS, slow.iterationS);

        // Within one RDMA kind nothing falls back: unrecorded equals the fabric's own transport.
        Plan ibOnly = holmesShapedPlan(problem, false);
        for (Pipeline &pipeline : ibOnly.pipelines) {
            pipeline.stages.resize(1);
            pipeline.stages[0].layerEnd = problem.model.layers;
        }
        Plan ibRecorded = ibOnly;
        for (Pipeline &pipeline : ibRecorded.pipelines)
            pipeline.stages[0].transport.dp = Transport::InfiniBand;
        QCOMPARE(model->evaluate(problem, ibRecorded).iterationS,
                 model->evaluate(problem, ibOnly).iterationS);
    }

    void planFileRoundTripsTransports()
    {
        const Problem problem = hybridProblem();
        Plan plan = holmesShapedPlan(problem, true);
        plan.pipelines[1].stages[0].transport.tp = Transport::Socket;
        const std::string text = writePlan(plan, problem.topology);
        QVERIFY(text.find("\"transport\"") != std::string::npos);
        QVERIFY(text.find("\"infiniband\"") != std::string::npos);
        const Plan back = orFail(parsePlan(text, "round-trip", problem.topology), "round trip");
        QVERIFY(back.sameLayout(plan));
        QVERIFY(back.pipelines[1].stages[0].transport == plan.pipelines[1].stages[0].transport);
        QCOMPARE(writePlan(back, problem.topology), text);

        // Without a record nothing is written, and nothing comes back.
        const std::string plain = writePlan(holmesShapedPlan(problem, false), problem.topology);
        QVERIFY(plain.find("transport") == std::string::npos);
        const Plan plainBack = orFail(parsePlan(plain, "plain", problem.topology), "plain");
        QVERIFY(plainBack.pipelines[0].stages[0].transport.empty());
    }

    void hostileTransportsAreRefused_data()
    {
        QTest::addColumn<QString>("transport");
        QTest::addColumn<QString>("expected");
        QTest::newRow("unknown kind") << QStringLiteral(R"({"dp": "nvlink"})")
                                      << QStringLiteral("pipelines[0].stages[0].transport.dp");
        QTest::newRow("unknown group")
            << QStringLiteral(R"({"ep": "roce"})") << QStringLiteral("ep");
        QTest::newRow("not an object")
            << QStringLiteral("3") << QStringLiteral("pipelines[0].stages[0].transport");
        QTest::newRow("null") << QStringLiteral("null")
                              << QStringLiteral("pipelines[0].stages[0].transport");
        QTest::newRow("number kind") << QStringLiteral(R"({"pp": 1})")
                                     << QStringLiteral("pipelines[0].stages[0].transport.pp");
        QTest::newRow("case") << QStringLiteral(R"({"pp": "Socket "})") << QStringLiteral("socket");
    }

    void hostileTransportsAreRefused()
    {
        QFETCH(QString, transport);
        QFETCH(QString, expected);
        const auto document = [](const std::string &value) {
            return R"({"format": "hetplan.plan/1", "cluster": "holmes-hybrid",
                "model": "gpt3-3.6b", "workload": {"mode": "train", "global_batch": 1,
                "seq_len": 2048}, "pipelines": [{"micro_batch": 1, "stages": [
                {"gpus": ["ib-0:0"], "layers": [0, 30], "transport": )"
                   + value + "}]}]}";
        };
        const Result<Plan> valid = parsePlan(document(R"({"dp": "roce"})"), "ok", hybrid());
        QVERIFY2(valid, valid ? "" : valid.error().message.c_str());
        QVERIFY(valid->pipelines[0].stages[0].transport.dp == Transport::Roce);
        const Result<Plan> plan
            = parsePlan(document(transport.toStdString()), "hostile.plan.json", hybrid());
        QVERIFY(!plan);
        const QString message = QString::fromStdString(plan.error().message);
        QVERIFY2(message.contains(QStringLiteral("hostile.plan.json")), qPrintable(message));
        QVERIFY2(message.contains(expected), qPrintable(message));
    }

    void validatorChecksTransports()
    {
        const Problem problem = hybridProblem();
        const auto model = makeCostModel(CostModelKind::HetPlan);

        Plan lastHop = holmesShapedPlan(problem, true);
        lastHop.pipelines[2].stages[1].transport.pp = Transport::Roce;
        QVERIFY(issuesText(validatePlan(problem, lastHop, model.get()))
                    .contains(QStringLiteral(
                        "pipeline 2, stage 1: transport.pp is roce but the last stage")));

        Plan disagree = holmesShapedPlan(problem, true);
        disagree.pipelines[3].stages[0].transport.dp = Transport::Socket;
        const QString text = issuesText(validatePlan(problem, disagree, model.get()));
        QVERIFY2(text.contains(QStringLiteral("record dp transports infiniband and socket")),
                 qPrintable(text));

        // RoCE NICs cannot carry an InfiniBand group: no InfiniBand link reaches them.
        Plan wrongFabric = holmesShapedPlan(problem, true);
        for (Pipeline &pipeline : wrongFabric.pipelines)
            pipeline.stages[1].transport.dp = Transport::InfiniBand;
        const QString wrong = issuesText(validatePlan(problem, wrongFabric, model.get()));
        QVERIFY2(wrong.contains(QStringLiteral("not connected over InfiniBand links")),
                 qPrintable(wrong));

        // A hop across fabrics only exists over Ethernet.
        Plan rdmaHop = holmesShapedPlan(problem, true);
        rdmaHop.pipelines[0].stages[0].transport.pp = Transport::InfiniBand;
        const QString hop = issuesText(validatePlan(problem, rdmaHop, model.get()));
        QVERIFY2(hop.contains(QStringLiteral("stage 0 → stage 1")), qPrintable(hop));
        QVERIFY2(hop.contains(QStringLiteral("no path over InfiniBand links")), qPrintable(hop));
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestTransport)
#include "tst_transport.moc"
