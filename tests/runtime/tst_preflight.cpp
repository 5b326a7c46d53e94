// The pre-flight without a network (docs/launcher.md, "Pre-flight"): its checks follow the
// plan's groups at the sizes the plan's run sends and the cost model's assumptions; ranks
// started by hand on loopback run them and report every check; a slow measured figure is
// judged slow and folds into the cluster as a measured pair, after which re-planning moves the
// pipeline hop off that pair.
#include "core/cost/cost_model.h"
#include "core/cost/hetplan_comm.h"
#include "core/io/catalog_json.h"
#include "core/io/formats.h"
#include "core/io/loaders.h"
#include "core/io/preflight_json.h"
#include "core/launch/preflight_fold.h"
#include "core/planners/exhaustive.h"
#include "runtime/worker/job.h"
#include "runtime/worker/preflight_checks.h"
#include "tests/core/planner_test_support.h"
#include "tests/runtime/run_test_support.h"
#include "tests/test_registry.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>

using namespace hetplan;
using namespace hetplan::runtime;
using namespace hetplan::runtime::test;
using hetplan::test::hopPairs;

namespace {

Result<Job> preflightJob(const char *plan = "preflight.plan.json")
{
    JobSource source;
    source.planPath = runtimeData(plan).toStdString();
    source.cluster = runtimeData("preflight.cluster.json").toStdString();
    source.model = runtimeData("preflight.model.json").toStdString();
    return loadJob(source);
}

// A one-GPU-per-machine cluster behind a switch, every link alike: where the planner puts a
// pipeline's hops is up to it until a pair is measured slower.
Cluster threeMachines()
{
    Cluster cluster;
    cluster.name = "three";
    for (const char *name : {"A", "B", "C"})
        cluster.machines.push_back(
            {name, "RTX4090-24G", 1, "", {LinkKind::Pcie, 16, 8}, NicKind::Ethernet, {}});
    cluster.switches = {{"sw", {}}};
    for (const char *name : {"A", "B", "C"})
        cluster.links.push_back({name, "sw", LinkKind::Ethernet, 2, 25});
    return cluster;
}

// A model that does not fit one 24 GiB GPU with its optimizer state: the plan is a pipeline.
Problem problemOn(const Cluster &cluster)
{
    auto topology = Topology::build(cluster, builtinGpuCatalog());
    if (!topology)
        qFatal("fixture: %s", topology.error().message.c_str());
    Workload workload;
    workload.mode = Mode::Train;
    workload.train.globalBatch = 8;
    workload.train.microBatchSizes = {1};
    workload.train.seqLen = 2048;
    return {std::move(topology).value(),
            {"pipeline-sized", 24, 2048, 5504, 16, 16, 32000, 2048, MlpKind::SwiGlu},
            workload};
}

Result<Plan> bestPlan(const Problem &problem)
{
    NullProgress progress;
    auto model = makeCostModel(CostModelKind::HetPlan);
    auto search = ExhaustivePlanner().plan(problem, *model, PlannerOptions{}, {}, progress);
    if (!search)
        return search.error();
    return search->plan;
}

} // namespace

class TestPreflight : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void checksFollowThePlan();
    void tensorParallelCheck();
    void resultLinesRoundTrip();
    void verdictsAndExitCodes();
    void ranksReportEveryCheck_data();
    void ranksReportEveryCheck();
    void foldedSlowPairMovesTheHop();
};

// Two checks for the hop (one per direction) and one per gradient group, at the plan's sizes:
// the hop a micro-batch's activation (8 rows × 128 tokens × 128 hidden, fp32), a gradient group
// the parameters of the layers it holds; the assumptions are the model's reading of the links.
void TestPreflight::checksFollowThePlan()
{
    auto job = preflightJob();
    QVERIFY2(job.ok(), job.ok() ? "" : job.error().message.c_str());
    const std::vector<PreflightCheck> checks = preflightChecks(*job);
    QCOMPARE(checks.size(), std::size_t(4));
    const Topology &topology = *job->topology;
    const int a = *topology.findGpu("A:0");
    const int b = *topology.findGpu("B:0");
    const int c = *topology.findGpu("C:0");

    QCOMPARE(checks[0].kind, GroupKind::Hop);
    QCOMPARE(checks[0].from, 0); // A:0 is rank 0, B:0 rank 1, C:0 rank 2
    QCOMPARE(checks[0].to, 1);
    QCOMPARE(checks[1].from, 1);
    QCOMPARE(checks[1].to, 0);
    QCOMPARE(checks[0].messageBytes, 8.0 * 128 * 128 * 4);
    QCOMPARE(checks[1].messageBytes, checks[0].messageBytes);
    // 0.025 GB/s nominal, halved by the Ethernet transport's default efficiency.
    QCOMPARE(checks[0].assumedBytesPerS, topology.effectiveBandwidthBytesPerS(a, b));
    QVERIFY(qAbs(checks[0].assumedBytesPerS - 0.0125e9) < 1);
    QCOMPARE(checks[0].assumedLatencyS, topology.effectiveLatencyS(a, b));

    const double layerParams = job->model.paramsPerLayer();
    for (int i : {2, 3}) {
        QCOMPARE(checks[std::size_t(i)].kind, GroupKind::Gradient);
        QVERIFY(!checks[std::size_t(i)].isHop());
        QCOMPARE(checks[std::size_t(i)].messageBytes, 2 * layerParams * 4);
    }
    QCOMPARE(checks[2].members, (std::vector<int>{0, 2})); // layers 0–1: A:0 and C:0
    QCOMPARE(checks[3].members, (std::vector<int>{1, 2})); // layers 2–3: B:0 and C:0
    const std::vector<int> ac{a, c};
    const GroupLinks links = groupLinks(topology, ac);
    QCOMPARE(checks[2].assumedBytesPerS, links.slowestBytesPerS);
    QCOMPARE(checks[2].assumedLatencyS, 2 * links.worstLatencyS);
}

// A TP group's check: one all-reduce of the replica's rows of a micro-batch (1 row × 16 tokens
// × 64 hidden, fp32), against the model's reading of the machine's intra link.
void TestPreflight::tensorParallelCheck()
{
    JobSource source;
    source.planPath = runtimeData("asymmetric.plan.json").toStdString();
    source.model = runtimeData("tiny.model.json").toStdString();
    auto job = loadJob(source);
    QVERIFY2(job.ok(), job.ok() ? "" : job.error().message.c_str());
    const std::vector<PreflightCheck> checks = preflightChecks(*job);
    const auto tp = std::find_if(checks.begin(), checks.end(), [](const PreflightCheck &c) {
        return c.kind == GroupKind::TensorParallel;
    });
    QVERIFY(tp != checks.end());
    QCOMPARE(tp->group, std::string("tp/p0/s0/r0"));
    QCOMPARE(tp->members, (std::vector<int>{0, 1}));
    QCOMPARE(tp->messageBytes, 1.0 * 16 * 64 * 4);
    const Topology &topology = *job->topology;
    const std::vector<int> gpus{*topology.findGpu("A:0"), *topology.findGpu("A:1")};
    QCOMPARE(tp->assumedBytesPerS, topology.effectiveBandwidthBytesPerS(gpus[0], gpus[1]));
    QCOMPARE(tp->assumedLatencyS, 2 * topology.effectiveLatencyS(gpus[0], gpus[1]));
    // Every group of two or more ranks is checked, hops twice.
    std::size_t expected = 0;
    for (const Group &group : job->program.groups)
        if (group.members.size() > 1)
            expected += group.kind == GroupKind::Hop ? 2 : 1;
    QCOMPARE(checks.size(), expected);
}

void TestPreflight::resultLinesRoundTrip()
{
    PreflightResult measured{3, 1, 12, 0.48, 0.0002, {}, "nccl"};
    const std::string line = preflightLine(measured);
    // Numbers in the shortest text that reads back the same.
    QCOMPARE(line, std::string("hetplan-preflight check=3 rank=1 transport=nccl ops=12 "
                               "seconds=0.48 latency_s=2e-04"));
    auto back = parsePreflightLine(line);
    QVERIFY(back);
    QCOMPARE(back->transport, std::string("nccl"));
    QCOMPARE(back->ops, 12);
    QCOMPARE(back->seconds, 0.48);
    QCOMPARE(*back->latencyS, 0.0002);

    PreflightResult failed{2,     0, 0, 0, std::nullopt, "recv in group hop/p0 failed:\ntimed out",
                           "gloo"};
    back = parsePreflightLine(preflightLine(failed));
    QVERIFY(back);
    QCOMPARE(back->check, 2);
    QCOMPARE(back->transport, std::string("gloo"));
    QCOMPARE(back->error, std::string("recv in group hop/p0 failed: timed out"));
    // A line of a rank that did not name its transport still reads.
    back = parsePreflightLine("hetplan-preflight check=1 rank=2 ops=3 seconds=0.5");
    QVERIFY(back);
    QVERIFY(back->transport.empty());
    QCOMPARE(back->ops, 3);

    QVERIFY(!parsePreflightLine("iteration 1/3: loss 4.1"));
    QVERIFY(!parsePreflightLine("hetplan-preflight check=x rank=1 ops=1 seconds=1"));
}

// Below half the assumption is slow, by the ratio; exit codes tell ok, slow and hung apart.
void TestPreflight::verdictsAndExitCodes()
{
    PreflightRow row;
    row.assumedBytesPerS = 1e9;
    row.achievedBytesPerS = 0.6e9;
    judgeMeasured(row);
    QCOMPARE(row.verdict, PreflightVerdict::Ok);
    row.achievedBytesPerS = 0.1e9;
    judgeMeasured(row);
    QCOMPARE(row.verdict, PreflightVerdict::Slow);
    QCOMPARE(row.slowBy, 10.0);
    QCOMPARE(verdictText(row), std::string("slow by 10\u00d7"));
    // Plain numbers however slow: "100×", not "1e+02×".
    PreflightRow slower = row;
    slower.achievedBytesPerS = 0.01e9;
    judgeMeasured(slower);
    QCOMPARE(verdictText(slower), std::string("slow by 100\u00d7"));

    PreflightReport report;
    report.rows = {row};
    QCOMPARE(preflightExitCode(report), kPreflightSlowExit);
    report.rows[0].verdict = PreflightVerdict::Ok;
    QCOMPARE(preflightExitCode(report), 0);
    report.rows[0].verdict = PreflightVerdict::Hung;
    QCOMPARE(preflightExitCode(report), kPreflightBrokenExit);
    report.rows[0].verdict = PreflightVerdict::Ok;
    report.jobError = "host B: its agent said nothing for 5 s";
    QCOMPARE(preflightExitCode(report), kPreflightBrokenExit);

    // The table names both figures beside the verdict, and who did not answer.
    row.group = "dp/l0-1/all";
    row.kind = "DP";
    row.members = {{0, "A:0", "10.0.0.1"}, {2, "C:0", "10.0.0.3"}};
    PreflightRow hung = row;
    hung.achievedBytesPerS.reset();
    hung.verdict = PreflightVerdict::Hung;
    hung.detail = "C:0 (rank 2, 10.0.0.3) did not answer";
    row.transport = "nccl";
    hung.transport = "gloo tcp";
    report.rows = {row, hung};
    const std::string table = preflightTable(report);
    // The transport each check ran over, in the table and the report's JSON.
    QVERIFY2(table.find("transport") != std::string::npos, table.c_str());
    QVERIFY2(table.find("  nccl ") != std::string::npos, table.c_str());
    QVERIFY2(table.find("  gloo tcp ") != std::string::npos, table.c_str());
    const std::string json = writePreflightJson(report);
    QVERIFY2(json.find("\"transport\": \"nccl\"") != std::string::npos, json.c_str());
    QVERIFY2(table.find("0.1 GB/s") != std::string::npos, table.c_str());
    QVERIFY2(table.find("1 GB/s") != std::string::npos, table.c_str());
    QVERIFY2(table.find("slow by 10×") != std::string::npos, table.c_str());
    QVERIFY2(table.find("hung: C:0 (rank 2, 10.0.0.3) did not answer") != std::string::npos,
             table.c_str());
}

// hetplan-worker --preflight-s, three ranks on loopback meeting in a folder: each reports every
// check it is a member of, measured. In a chain of three stages the middle rank takes part in
// both hops, its peers in one each. Checks that run longer than an operation's timeout are no
// failure: the rank outside the hops waits for them to end, and blames no member.
void TestPreflight::ranksReportEveryCheck_data()
{
    QTest::addColumn<QString>("plan");
    QTest::addColumn<QString>("timeoutS");
    QTest::addColumn<QString>("checkS");
    QTest::newRow("two pipelines")
        << QStringLiteral("preflight.plan.json") << QStringLiteral("20") << QStringLiteral("0.05");
    QTest::newRow("three stages") << QStringLiteral("preflight-chain.plan.json")
                                  << QStringLiteral("20") << QStringLiteral("0.05");
    QTest::newRow("checks longer than the timeout")
        << QStringLiteral("preflight.plan.json") << QStringLiteral("3") << QStringLiteral("4");
}

void TestPreflight::ranksReportEveryCheck()
{
    QFETCH(QString, plan);
    QFETCH(QString, timeoutS);
    QFETCH(QString, checkS);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    std::vector<std::unique_ptr<QProcess>> ranks;
    for (int r = 0; r < 3; ++r) {
        auto process = std::make_unique<QProcess>();
        process->start(hetplan::test::projectProgram("hetplan-worker"),
                       {QStringLiteral("--plan"), runtimeData(qPrintable(plan)),
                        QStringLiteral("--cluster"), runtimeData("preflight.cluster.json"),
                        QStringLiteral("--model"), runtimeData("preflight.model.json"),
                        QStringLiteral("--rank"), QString::number(r), QStringLiteral("--world"),
                        QStringLiteral("3"), QStringLiteral("--rendezvous"), dir.path(),
                        QStringLiteral("--timeout-s"), timeoutS, QStringLiteral("--preflight-s"),
                        checkS});
        ranks.push_back(std::move(process));
    }
    auto job = preflightJob(qPrintable(plan));
    QVERIFY(job.ok());
    const std::vector<PreflightCheck> checks = preflightChecks(*job);
    for (int r = 0; r < 3; ++r) {
        QProcess &process = *ranks[std::size_t(r)];
        const bool ended = process.waitForFinished(60000);
        if (!ended)
            process.kill();
        const QString out = QString::fromUtf8(process.readAllStandardOutput());
        QVERIFY2(ended && process.exitCode() == 0,
                 qPrintable(out + QString::fromUtf8(process.readAllStandardError())));
        std::set<int> reported;
        for (const QString &line : out.split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
            auto result = parsePreflightLine(line.toStdString());
            QVERIFY2(result, qPrintable(line));
            QVERIFY2(result->error.empty(), qPrintable(line));
            QCOMPARE(result->rank, r);
            QCOMPARE(result->transport, std::string("gloo"));
            QVERIFY(result->ops >= 1 && result->seconds > 0);
            reported.insert(result->check);
        }
        std::set<int> expected;
        for (std::size_t i = 0; i < checks.size(); ++i)
            for (int member : checks[i].members)
                if (member == r)
                    expected.insert(int(i));
        QCOMPARE(reported, expected);
    }
}

// The re-plan of issue's "Done when": the best plan's hop crosses some pair; a pre-flight that
// measured that pair at a hundredth of its claim folds into the cluster as a measured pair, and
// the best plan for the folded cluster crosses it no more.
void TestPreflight::foldedSlowPairMovesTheHop()
{
    const Cluster cluster = threeMachines();
    const Problem before = problemOn(cluster);
    auto first = bestPlan(before);
    QVERIFY2(first.ok(), first.ok() ? "" : first.error().message.c_str());
    const auto crossed = hopPairs(*first, before.topology);
    QVERIFY2(!crossed.empty(), "the fixture's best plan is not a pipeline");
    const auto [x, y] = *crossed.begin();

    PreflightReport report;
    PreflightRow hop;
    hop.group = "hop/p0/s0-s1/r0-r0";
    hop.kind = "hop";
    hop.fromGpu = x;
    hop.toGpu = y;
    hop.members = {{0, x, "10.0.0.1"}, {1, y, "10.0.0.2"}};
    hop.messageBytes = 1 << 24;
    hop.ops = 3;
    hop.seconds = 2.5;
    hop.achievedBytesPerS = 0.02e9; // a hundredth of the 2 GB/s the cluster claims
    hop.latencyS = 400e-6;
    hop.assumedBytesPerS = 1e9;
    judgeMeasured(hop);
    QCOMPARE(hop.verdict, PreflightVerdict::Slow);
    report.rows = {hop};

    Cluster folded = cluster;
    QCOMPARE(foldPreflight(folded, report), 1);
    QCOMPARE(folded.pairOverrides.size(), std::size_t(1));
    QCOMPARE(folded.pairOverrides[0].bandwidthGBps, 0.02);
    QCOMPARE(folded.pairOverrides[0].latencyUs, 400.0);
    QCOMPARE(folded.origin.figures.size(), std::size_t(2));
    QCOMPARE(folded.origin.figures[0].source, std::string(kPreflightSource));
    // Written and read back, the figure stays measured: the model takes it undiminished.
    auto reread = parseCluster(writeCluster(folded), "folded.cluster.json");
    QVERIFY2(reread.ok(), reread.ok() ? "" : reread.error().message.c_str());
    const Problem after = problemOn(*reread);
    const int gx = *after.topology.findGpu(x);
    const int gy = *after.topology.findGpu(y);
    QVERIFY(after.topology.measuredPair(gx, gy));
    QCOMPARE(after.topology.effectiveBandwidthBytesPerS(gx, gy), 0.02e9);

    auto second = bestPlan(after);
    QVERIFY2(second.ok(), second.ok() ? "" : second.error().message.c_str());
    const auto crossedAfter = hopPairs(*second, after.topology);
    QVERIFY2(!crossedAfter.empty(), "the re-planned plan is no pipeline");
    QVERIFY2(!crossedAfter.contains({x, y}),
             qPrintable(QStringLiteral("the hop still crosses %1-%2")
                            .arg(QString::fromStdString(x), QString::fromStdString(y))));
}

HETPLAN_TEST_GUILESS_MAIN(TestPreflight)
#include "tst_preflight.moc"
