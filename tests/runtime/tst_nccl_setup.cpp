// runtime/cuda/nccl_setup: what the NCCL backend decides before any GPU is touched. The unique
// ids and the readiness barrier travel through a FileStore between ranks (threads and separate
// processes here, as the workers do), within the setup budget rather than the step timeout, and
// every program group gets a non-blocking config, owning its strings, whose network is the one
// the plan recorded for it (Holmes §3.2).
#include "program_test_support.h"
#include "runtime/comm/rendezvous.h"
#include "runtime/cuda/nccl_comms.h"
#include "runtime/cuda/nccl_setup.h"
#include "tests/test_registry.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QTemporaryDir>

#include <cstring>
#include <gloo/rendezvous/file_store.h>
#include <thread>

using namespace hetplan;
using namespace hetplan::runtime;
using namespace hetplan::runtime::cuda;
using namespace hetplan::test;

namespace {

constexpr std::chrono::milliseconds kWait{20000};

// One group's id as every member sees it: member 0 creates it, the others wait for it.
std::vector<Result<ncclUniqueId>> shareOnThreads(const std::string &dir, const std::string &key,
                                                 int members)
{
    std::vector<Result<ncclUniqueId>> ids(std::size_t(members), ncclUniqueId{});
    std::vector<std::thread> threads;
    // Waiters first, so they really wait for the creator.
    for (int m = members - 1; m >= 0; --m)
        threads.emplace_back([&, m] {
            gloo::rendezvous::FileStore store(dir);
            ids[std::size_t(m)] = shareUniqueId(store, key, m == 0, kWait);
        });
    for (std::thread &t : threads)
        t.join();
    return ids;
}

// A step timeout scaled down from the default 60 s: a peer later than this still makes it
// within the setup budget, 10 × as long.
constexpr double kStepTimeoutS = 0.5;

// This executable again, running only `slot`, with the store's directory (and a rank) in its
// environment: a worker process of its own.
std::unique_ptr<QProcess> startChild(const QString &dir, const char *slot, int rank = 0)
{
    auto child = std::make_unique<QProcess>();
    auto env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("HETPLAN_TEST_STORE"), dir);
    env.insert(QStringLiteral("HETPLAN_TEST_RANK"), QString::number(rank));
    child->setProcessEnvironment(env);
    child->setProcessChannelMode(QProcess::MergedChannels);
    child->start(
        QCoreApplication::applicationFilePath(),
        {QString::fromLatin1(hetplan::testmain::runningTest()), QString::fromLatin1(slot)});
    return child;
}

bool sameId(const ncclUniqueId &a, const ncclUniqueId &b)
{
    return std::memcmp(a.internal, b.internal, sizeof a.internal) == 0;
}

// Stage 0 on A:0-1 (TP 2) over InfiniBand inside, sockets to stage 1; stage 1 on A:2-3 as two
// DP replicas whose gradients go over RoCE. (Inside one machine NCCL takes the intra-machine
// link whatever the network; the config must still carry the plan's choice.)
Plan transportPlan()
{
    Stage first = stage({0, 1}, 2, 1, 0, 4);
    first.transport = {Transport::InfiniBand, Transport::Socket, std::nullopt};
    Stage second = stage({2, 3}, 1, 2, 4, 8);
    second.transport = {std::nullopt, std::nullopt, Transport::Roce};
    return trainingPlan({{2, 2, {first, second}}});
}

} // namespace

class TestNcclSetup : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void everyMemberGetsTheCreatorsId()
    {
        QTemporaryDir dir;
        const auto ids = shareOnThreads(dir.path().toStdString(), "tp/p0/s0/r0", 4);
        for (const auto &id : ids)
            QVERIFY2(id, id ? "" : id.error().message.c_str());
        for (const auto &id : ids)
            QVERIFY(sameId(*id, *ids.front()));
    }

    void groupsGetTheirOwnIds()
    {
        QTemporaryDir dir;
        const auto a = shareOnThreads(dir.path().toStdString(), "hop/p0/s0-s1/r0-r0", 2);
        const auto b = shareOnThreads(dir.path().toStdString(), "hop/p0/s0-s1/r0-r1", 2);
        QVERIFY(a[1] && b[1]);
        QVERIFY(!sameId(*a[1], *b[1]));
    }

    // The workers are separate processes: the id one process publishes reaches another.
    void theIdCrossesProcesses()
    {
        QTemporaryDir dir;
        const std::unique_ptr<QProcess> child = startChild(dir.path(), "fetchIdInChild");
        QProcess &waiter = *child;
        QVERIFY(waiter.waitForStarted());

        gloo::rendezvous::FileStore store(dir.path().toStdString());
        const auto id = shareUniqueId(store, "dp/l0-8/all", true, kWait);
        QVERIFY(id);
        QVERIFY(waiter.waitForFinished(30000));
        QCOMPARE(waiter.exitCode(), 0);
        const QByteArray printed = waiter.readAllStandardOutput();
        QVERIFY2(printed.contains(QByteArray(id->internal, sizeof id->internal).toHex()),
                 printed.constData());
    }

    // Run as a child by theIdCrossesProcesses: fetch the id and print it.
    void fetchIdInChild()
    {
        const QByteArray dir = qgetenv("HETPLAN_TEST_STORE");
        if (dir.isEmpty())
            QSKIP("only run as the child of theIdCrossesProcesses");
        gloo::rendezvous::FileStore store(dir.toStdString());
        const auto id = shareUniqueId(store, "dp/l0-8/all", false, kWait);
        QVERIFY(id);
        std::printf("id %s\n", QByteArray(id->internal, sizeof id->internal).toHex().constData());
    }

    // The creator of a group arrives three step timeouts after its members (as a rank that
    // built a large shard before connecting did): within the setup budget they still get its id.
    void aLateCreatorsIdArrivesWithinTheSetupBudget()
    {
        QTemporaryDir dir;
        const std::string path = dir.path().toStdString();
        const std::chrono::milliseconds budget = setupTimeout(kStepTimeoutS);
        QVERIFY(budget.count() >= 5 * 1000 * kStepTimeoutS);
        std::vector<Result<ncclUniqueId>> ids(3, ncclUniqueId{});
        std::vector<std::thread> members;
        for (int m = 1; m < 3; ++m)
            members.emplace_back([&, m] {
                gloo::rendezvous::FileStore store(path);
                ids[std::size_t(m)] = shareUniqueId(store, "tp/p0/s3/r0", false, budget);
            });
        std::this_thread::sleep_for(std::chrono::duration<double>(3 * kStepTimeoutS));
        gloo::rendezvous::FileStore store(path);
        ids[0] = shareUniqueId(store, "tp/p0/s3/r0", true, budget);
        for (std::thread &t : members)
            t.join();
        for (const auto &id : ids)
            QVERIFY2(id, id ? "" : id.error().message.c_str());
        QVERIFY(sameId(*ids[1], *ids[0]) && sameId(*ids[2], *ids[0]));
    }

    void theSetupBudgetIsTenStepTimeouts()
    {
        QCOMPARE(setupTimeout(60).count(), 600000);
        QCOMPARE(setupTimeout(0.5).count(), 5000);
    }

    // A store's wait of 0 ms would wait for ever: a deadline already passed leaves 1 ms.
    void aPassedDeadlineLeavesOneMillisecond()
    {
        const auto now = std::chrono::steady_clock::now();
        QCOMPARE(timeLeft(now - std::chrono::seconds(5)).count(), 1);
        QVERIFY(timeLeft(now + std::chrono::seconds(5)).count() > 4000);
    }

    // Three worker processes: two wait at the readiness barrier, the third arrives three step
    // timeouts later (its shard took that long); all three pass.
    void aSlowRankPassesTheReadinessBarrier()
    {
        QTemporaryDir dir;
        std::vector<std::unique_ptr<QProcess>> ranks;
        for (int rank = 0; rank < 2; ++rank) {
            ranks.push_back(startChild(dir.path(), "awaitReadyInChild", rank));
            QVERIFY(ranks.back()->waitForStarted());
        }
        std::this_thread::sleep_for(std::chrono::duration<double>(3 * kStepTimeoutS));
        for (const auto &rank : ranks)
            QCOMPARE(rank->state(), QProcess::Running); // still waiting for rank 2
        ranks.push_back(startChild(dir.path(), "awaitReadyInChild", 2));
        for (const auto &rank : ranks) {
            QVERIFY(rank->waitForFinished(30000));
            QVERIFY2(rank->exitCode() == 0, rank->readAllStandardOutput().constData());
        }
    }

    // Run as a child by aSlowRankPassesTheReadinessBarrier: rank HETPLAN_TEST_RANK of 3.
    void awaitReadyInChild()
    {
        const QByteArray dir = qgetenv("HETPLAN_TEST_STORE");
        if (dir.isEmpty())
            QSKIP("only run as a child of aSlowRankPassesTheReadinessBarrier");
        const int rank = qEnvironmentVariableIntValue("HETPLAN_TEST_RANK");
        gloo::rendezvous::FileStore store(dir.toStdString());
        const Status ready
            = awaitEveryRank(store, "nccl-setup", rank, 3, setupTimeout(kStepTimeoutS));
        QVERIFY2(ready, ready ? "" : ready.error().message.c_str());
    }

    // A rank that never comes: the others give up after the setup budget, not long after, with
    // a message naming it.
    void aRankThatNeverComesFailsTheBarrierNamingIt()
    {
        QTemporaryDir dir;
        const std::chrono::milliseconds budget = setupTimeout(0.05);
        std::vector<Status> results(2, okStatus());
        QElapsedTimer clock;
        clock.start();
        std::vector<std::thread> ranks;
        for (int rank = 0; rank < 2; ++rank)
            ranks.emplace_back([&, rank] {
                gloo::rendezvous::FileStore store(dir.path().toStdString());
                results[std::size_t(rank)] = awaitEveryRank(store, "nccl-setup", rank, 3, budget);
            });
        for (std::thread &t : ranks)
            t.join();
        QVERIFY(clock.elapsed() >= budget.count());
        QVERIFY2(clock.elapsed() < budget.count() + 5000, "gave up long after its budget");
        for (const Status &s : results) {
            QVERIFY(!s);
            QVERIFY2(s.error().message.find("rank(s) 2 never reported ready") != std::string::npos,
                     s.error().message.c_str());
        }
    }

    void aMissingCreatorIsATimeoutNamingTheGroup()
    {
        QTemporaryDir dir;
        gloo::rendezvous::FileStore store(dir.path().toStdString());
        const auto id = shareUniqueId(store, "tp/p1/s2/r0", false, std::chrono::milliseconds(200));
        QVERIFY(!id);
        QVERIFY2(id.error().message.find("tp/p1/s2/r0") != std::string::npos,
                 id.error().message.c_str());
    }

    void netNameFollowsTheRecordedTransport()
    {
        QCOMPARE(std::string(ncclNetName(Transport::InfiniBand)), "IB");
        QCOMPARE(std::string(ncclNetName(Transport::Roce)), "IB");
        QCOMPARE(std::string(ncclNetName(Transport::Socket)), "Socket");
        QVERIFY(ncclNetName(std::nullopt) == nullptr);
    }

    // Every group of a compiled plan: non-blocking, named by its key, and on the network the
    // plan recorded for that group's stage (none recorded: left to NCCL).
    void everyGroupsConfigComesFromThePlan()
    {
        const JobProgram program
            = compileAndCheck(transportPlan(), fixtureModel(), fixtureTopology());
        std::map<GroupKind, std::string> nets;
        for (const Group &g : program.groups) {
            const NcclConfig owned(g.key, g.transport);
            const ncclConfig_t &config = owned.config();
            QCOMPARE(config.blocking, 0);
            QCOMPARE(std::string(config.commName), g.key);
            const std::string net = config.netName == NCCL_CONFIG_UNDEF_PTR
                                        ? std::string("(nccl's choice)")
                                        : std::string(config.netName);
            nets[g.kind] += (nets[g.kind].empty() ? "" : ",") + net;
        }
        QCOMPARE(nets[GroupKind::TensorParallel], std::string("IB"));
        QCOMPARE(nets[GroupKind::Hop], std::string("Socket,Socket"));
        QVERIFY2(nets[GroupKind::Gradient].find("IB") != std::string::npos
                     && nets[GroupKind::Gradient].find("choice") == std::string::npos,
                 nets[GroupKind::Gradient].c_str());
    }

    // NCCL keeps the config's string pointers for the communicator's life: they must not point
    // into the group list the configs were made from, which connect's caller frees.
    void theConfigOwnsItsStrings()
    {
        std::vector<std::unique_ptr<NcclConfig>> configs;
        {
            std::vector<NcclGroup> groups{{"hop/p0/s0-s1/r0-r0", {0, 2}, Transport::Socket},
                                          {"dp/l0-2/replicated", {0, 3}, Transport::Roce}};
            for (const NcclGroup &g : groups) {
                configs.push_back(std::make_unique<NcclConfig>(g.key, g.transport));
                QVERIFY(configs.back()->config().commName != g.key.c_str());
            }
            // Overwrite the list's strings before freeing them, so a dangling pointer shows.
            for (NcclGroup &g : groups)
                std::fill(g.key.begin(), g.key.end(), 'x');
        }
        QCOMPARE(std::string(configs[0]->config().commName), std::string("hop/p0/s0-s1/r0-r0"));
        QCOMPARE(std::string(configs[0]->config().netName), std::string("Socket"));
        QCOMPARE(std::string(configs[1]->config().commName), std::string("dp/l0-2/replicated"));
        QCOMPARE(std::string(configs[1]->config().netName), std::string("IB"));
    }
};

HETPLAN_TEST_GUILESS_MAIN(TestNcclSetup)
#include "tst_nccl_setup.moc"
