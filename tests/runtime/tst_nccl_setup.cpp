// runtime/cuda/nccl_setup: what the NCCL backend decides before any GPU is touched. The unique
// ids travel through a FileStore between ranks (threads and separate processes here, as the
// workers do), and every program group gets a non-blocking config whose network is the one the
// plan recorded for it (Holmes §3.2).
#include "program_test_support.h"
#include "runtime/comm/rendezvous.h"
#include "runtime/cuda/nccl_setup.h"
#include "tests/test_registry.h"

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
        QProcess waiter;
        auto env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("HETPLAN_TEST_STORE"), dir.path());
        waiter.setProcessEnvironment(env);
        waiter.start(QCoreApplication::applicationFilePath(),
                     {QString::fromLatin1(hetplan::testmain::runningTest()),
                      QStringLiteral("fetchIdInChild")});
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
            const ncclConfig_t config = ncclConfigFor(g.key, g.transport);
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
};

HETPLAN_TEST_GUILESS_MAIN(TestNcclSetup)
#include "tst_nccl_setup.moc"
