// The pre-flight over NCCL where no GPU is (docs/launcher.md, "Pre-flight"): the four ranks of a
// two-stage TP plan, one thread each, run hetplan-worker's pre-flight with --backend cuda
// against the host emulation of CUDA and NCCL (cuda_model_emulation.cpp, nccl_emulation.cpp),
// through the CUDA backend's own communicators. Every check is run by its members in order, over
// NCCL, at the plan's message size in the run's bf16; a peer stalled inside its check is found
// within the hang guard by its check's members, and nobody else is blamed.
#include "cuda_emulation_log.h"
#include "runtime/worker/job.h"
#include "runtime/worker/preflight_checks.h"
#include "runtime/worker/preflight_rank.h"
#include "tests/runtime/run_test_support.h"
#include "tests/test_registry.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QtTest>

#include <map>
#include <sstream>
#include <thread>

using namespace hetplan;
using namespace hetplan::runtime;
using namespace hetplan::runtime::test;
namespace emulation = hetplan::runtime::cuda::emulation;

namespace {

constexpr int kRanks = 4;
constexpr double kTimeoutS = 1; // an operation's bound: half the hang guard

Result<Job> tpJob(std::optional<int> rank = std::nullopt)
{
    JobSource source;
    source.planPath = runtimeData("preflight-tp.plan.json").toStdString();
    source.model = runtimeData("tiny.model.json").toStdString();
    source.rank = rank;
    return loadJob(source);
}

struct Told
{
    std::map<int, std::vector<PreflightResult>> lines; // by rank
    double othersDoneS = 0; // until every rank but the stalled one had returned
};

// One pre-flight of the plan over the emulated NCCL, a thread per rank. A `stalled` rank is
// released only once the others have returned, and what it said until then is what counts: a
// stopped process says nothing more before the launcher stops it.
Told runRanks(const QString &rendezvous, int stalled = -1)
{
    std::vector<std::ostringstream> outs(kRanks);
    std::vector<std::jthread> ranks;
    QElapsedTimer clock;
    clock.start();
    for (int r = 0; r < kRanks; ++r)
        ranks.emplace_back([&, r] {
            WorkerArgs args;
            args.rank = r;
            args.world = kRanks;
            args.backend = BackendKind::Cuda;
            args.device = 0; // the emulation has one device, which every rank shares
            args.comm.rendezvous = rendezvous.toStdString();
            args.comm.timeoutS = kTimeoutS;
            args.preflightS = 0.02;
            auto job = tpJob(r);
            if (!job)
                qFatal("fixture: %s", job.error().message.c_str());
            runPreflightRank(args, *job, openNcclPreflight(args, *job), outs[std::size_t(r)]);
        });
    for (int r = 0; r < kRanks; ++r)
        if (r != stalled)
            ranks[std::size_t(r)].join();
    Told told;
    told.othersDoneS = double(clock.elapsed()) / 1000;
    std::vector<std::string> said(kRanks);
    for (int r = 0; r < kRanks; ++r)
        said[std::size_t(r)] = outs[std::size_t(r)].str(); // the stalled rank is blocked
    emulation::releaseStalled();
    ranks.clear(); // joins the stalled rank
    for (int r = 0; r < kRanks; ++r) {
        std::istringstream lines(said[std::size_t(r)]);
        for (std::string line; std::getline(lines, line);)
            if (auto result = parsePreflightLine(line))
                told.lines[r].push_back(*result);
    }
    return told;
}

// The counts of the NCCL calls the emulation saw, by name and element count.
std::map<std::pair<std::string, std::size_t>, int> ncclCalls()
{
    std::map<std::pair<std::string, std::size_t>, int> calls;
    for (const emulation::Entry &e : emulation::log())
        if (e.kind == emulation::Kind::Nccl)
            ++calls[{e.name, e.count}];
    return calls;
}

} // namespace

class TestPreflightNccl : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void everyCheckRunsOverNccl();
    void stalledPeerIsFoundByItsCheck();
};

// The checks of two TP stages: each TP group's all-reduce and the hop between the stages' TP
// leaders both ways; each member reports each of its checks measured, over NCCL, and the NCCL
// calls carry the plan's messages in bf16 (half the elements of the bytes).
void TestPreflightNccl::everyCheckRunsOverNccl()
{
    auto job = tpJob();
    QVERIFY2(job.ok(), job.ok() ? "" : job.error().message.c_str());
    const std::vector<PreflightCheck> checks = preflightChecks(*job);
    std::vector<std::string> groups;
    for (const PreflightCheck &c : checks)
        groups.push_back(c.group);
    QCOMPARE(groups, (std::vector<std::string>{"tp/p0/s0/r0", "tp/p0/s1/r0", "hop/p0/s0-s1/r0-r0",
                                               "hop/p0/s0-s1/r0-r0"}));
    QCOMPARE(checks[0].members, (std::vector<int>{0, 1}));
    QCOMPARE(checks[1].members, (std::vector<int>{2, 3}));
    QCOMPARE(checks[2].from, 0);
    QCOMPARE(checks[2].to, 2);

    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    emulation::log().clear();
    const auto told = runRanks(dir.path()).lines;
    for (int r = 0; r < kRanks; ++r) {
        std::vector<int> expected;
        for (std::size_t i = 0; i < checks.size(); ++i)
            if (std::count(checks[i].members.begin(), checks[i].members.end(), r) > 0)
                expected.push_back(int(i));
        std::vector<int> reported;
        for (const PreflightResult &result :
             told.count(r) ? told.at(r) : std::vector<PreflightResult>{}) {
            QVERIFY2(result.error.empty(), result.error.c_str());
            QCOMPARE(result.transport, std::string("nccl"));
            QVERIFY(result.ops >= 1 && result.seconds > 0);
            reported.push_back(result.check);
        }
        QCOMPARE(reported, expected);
    }
    const auto calls = ncclCalls();
    for (const PreflightCheck &c : checks) {
        const std::size_t elements = std::size_t(c.messageBytes / 2);
        const char *name = c.isHop() ? "send" : "allReduce";
        QVERIFY2(calls.contains({name, elements}),
                 qPrintable(QStringLiteral("no %1 of %2 elements for %3")
                                .arg(QString::fromLatin1(name))
                                .arg(elements)
                                .arg(QString::fromStdString(c.group))));
    }
}

// Rank 3 stalls inside its TP check (as a stopped process: it makes no call and says nothing
// more). Its peer rank 2 gives up within the operation's bound and names the group it waited on;
// ranks 0 and 1, no members of that check, keep their own check measured; all three are done
// within the hang guard; rank 3 reports nothing for the check, which the launcher reads as "did
// not answer", naming it (runtime/launcher/preflight_job.h).
void TestPreflightNccl::stalledPeerIsFoundByItsCheck()
{
    auto job = tpJob();
    QVERIFY(job.ok());
    const std::vector<PreflightCheck> checks = preflightChecks(*job);
    QCOMPARE(checks[1].members, (std::vector<int>{2, 3}));
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    emulation::stallMember("tp/p0/s1/r0", 1, 1); // rank 3, after its warm-up at setup
    const Told told = runRanks(dir.path(), 3);
    qInfo("the others were done %.2f s after the start (hang guard %.0f s)", told.othersDoneS,
          2 * kTimeoutS);
    QVERIFY(told.othersDoneS < 2 * kTimeoutS + 1);

    const auto said = [&](int rank, int check) -> std::optional<PreflightResult> {
        if (!told.lines.contains(rank))
            return std::nullopt;
        for (const PreflightResult &r : told.lines.at(rank))
            if (r.check == check)
                return r;
        return std::nullopt;
    };
    QVERIFY2(!said(3, 1), "the stalled rank reported its check");
    const auto peer = said(2, 1);
    QVERIFY(peer);
    QVERIFY2(peer->error.find("tp/p0/s1/r0") != std::string::npos, peer->error.c_str());
    QVERIFY2(peer->error.find("timed out") != std::string::npos, peer->error.c_str());
    QCOMPARE(peer->transport, std::string("nccl"));
    for (int r : {0, 1}) {
        const auto own = said(r, 0);
        QVERIFY(own);
        QVERIFY2(own->error.empty(), own->error.c_str());
    }
}

HETPLAN_TEST_GUILESS_MAIN(TestPreflightNccl)
#include "tst_preflight_nccl.moc"
