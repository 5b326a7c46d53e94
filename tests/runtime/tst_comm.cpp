// runtime/comm: Gloo groups between ranks (threads here, each with its own TCP device), with
// rendezvous through a shared directory, through a Redis server the test starts itself and
// through a store socket like the host agent's (tiny_store_server.h).
#include "runtime/comm/comm.h"
#include "runtime/comm/rendezvous.h"
#include "runtime/comm/socket_store.h"
#include "tests/test_registry.h"
#include "tiny_store_server.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <functional>
#include <gloo/common/error.h>
#include <gloo/rendezvous/store.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

using namespace hetplan;
using namespace hetplan::runtime;

namespace {

// Runs `body(rank)` on `world` threads at once and returns each rank's Status.
std::vector<Status> onRanks(int world, const std::function<Status(int)> &body)
{
    std::vector<Status> results(std::size_t(world), okStatus());
    std::vector<std::thread> threads;
    for (int r = 0; r < world; ++r)
        threads.emplace_back([&, r] { results[std::size_t(r)] = body(r); });
    for (std::thread &t : threads)
        t.join();
    return results;
}

Result<std::unique_ptr<Comm>> openRank(const std::string &rendezvous, int rank, int world,
                                       double timeoutS = 20)
{
    CommOptions options;
    options.rendezvous = rendezvous;
    options.timeoutS = timeoutS;
    return Comm::open(options, rank, world);
}

// Three ranks, two overlapping pairs and one group of all: what the executor's hops, TP groups
// and gradient groups need.
Status exerciseGroups(const std::string &rendezvous, int rank)
{
    auto comm = openRank(rendezvous, rank, 3);
    if (!comm)
        return comm.error();
    Comm &c = **comm;
    if (Status s = c.connect({{"hop/01", {0, 1}}, {"hop/12", {1, 2}}, {"all", {0, 1, 2}}}); !s)
        return s;
    const auto expect = [&](bool ok, const std::string &what) -> Status {
        return ok ? okStatus() : Status(Error{ErrorKind::Internal, what});
    };
    // A hop forward 0 → 1 → 2, values multiplied on the way.
    std::vector<float> hop(5, 0.0f);
    if (rank == 0) {
        hop = {1, 2, 3, 4, 5};
        if (Status s = c.send("hop/01", 1, hop.data(), hop.size(), 7); !s)
            return s;
    } else if (rank == 1) {
        if (Status s = c.recv("hop/01", 0, hop.data(), hop.size(), 7); !s)
            return s;
        for (float &x : hop)
            x *= 10;
        if (Status s = c.send("hop/12", 2, hop.data(), hop.size(), 7); !s)
            return s;
    } else {
        if (Status s = c.recv("hop/12", 1, hop.data(), hop.size(), 7); !s)
            return s;
        if (Status s = expect(hop == std::vector<float>{10, 20, 30, 40, 50}, "hop payload"); !s)
            return s;
    }
    std::vector<float> value(4, float(rank == 1 ? 42 : 0));
    if (Status s = c.broadcast("all", 1, value.data(), value.size()); !s)
        return s;
    if (Status s = expect(value == std::vector<float>(4, 42.0f), "broadcast from rank 1"); !s)
        return s;
    std::vector<float> sum(1000, float(rank + 1));
    if (Status s = c.allReduceSum("all", sum.data(), sum.size()); !s)
        return s;
    return expect(sum == std::vector<float>(1000, 6.0f), "all-reduce sum 1 + 2 + 3");
}

// A loopback port nobody listens on now (the kernel's pick for port 0).
int freePort()
{
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t size = sizeof address;
    ::bind(fd, reinterpret_cast<sockaddr *>(&address), size);
    ::getsockname(fd, reinterpret_cast<sockaddr *>(&address), &size);
    ::close(fd);
    return ntohs(address.sin_port);
}

} // namespace

class TestComm : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void groupsThroughFileStore();
    void groupsThroughRedis();
    void groupsThroughTheAgentsSocket();
    void socketStoreSetGetWaitAcrossThreads();
    void socketStoreTimeoutNamesTheKey();
    void unreachableSocketIsAnError();
    void missingPeerTimesOutNamingTheGroup();
    void silentPeerTimesOutNamingThePeer();
    void aReceivePostedAheadHasItsDataWaiting();
    void badRendezvousIsRefused_data();
    void badRendezvousIsRefused();
};

void TestComm::groupsThroughFileStore()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    for (const Status &s :
         onRanks(3, [&](int r) { return exerciseGroups(dir.path().toStdString(), r); }))
        QVERIFY2(s.ok(), s.ok() ? "" : s.error().message.c_str());
}

void TestComm::groupsThroughRedis()
{
    const int port = freePort();
    QProcess redis;
    redis.start(QStringLiteral("redis-server"),
                {QStringLiteral("--port"), QString::number(port), QStringLiteral("--bind"),
                 QStringLiteral("127.0.0.1"), QStringLiteral("--save"), QString(),
                 QStringLiteral("--appendonly"), QStringLiteral("no")});
    QVERIFY2(redis.waitForStarted(), "redis-server is missing (scripts/install-deps.sh)");
    // Ready when it accepts connections.
    QElapsedTimer clock;
    clock.start();
    Result<std::unique_ptr<gloo::rendezvous::Store>> store = Error{};
    const std::string address = "redis://127.0.0.1:" + std::to_string(port);
    while (clock.elapsed() < 10000) {
        store = openStore(*parseRendezvous(address));
        if (store)
            break;
        QThread::msleep(50);
    }
    QVERIFY2(store.ok(), "redis-server did not start");
    for (const Status &s : onRanks(3, [&](int r) { return exerciseGroups(address, r); }))
        QVERIFY2(s.ok(), s.ok() ? "" : s.error().message.c_str());
    redis.terminate();
    QVERIFY(redis.waitForFinished(10000));
}

void TestComm::groupsThroughTheAgentsSocket()
{
    QTemporaryDir dir;
    const std::string path = dir.filePath(QStringLiteral("store.sock")).toStdString();
    const agent::test::TinyStoreServer server(path);
    QVERIFY(server.listening());
    for (const Status &s : onRanks(3, [&](int r) { return exerciseGroups("unix:" + path, r); }))
        QVERIFY2(s.ok(), s.ok() ? "" : s.error().message.c_str());
}

// Two ranks' stores: a wait and a get block until the other thread's set, then see its value.
void TestComm::socketStoreSetGetWaitAcrossThreads()
{
    QTemporaryDir dir;
    const std::string path = dir.filePath(QStringLiteral("store.sock")).toStdString();
    const agent::test::TinyStoreServer server(path);
    QVERIFY(server.listening());
    std::string seenByFirst;
    std::string seenBySecond;
    std::string failure;
    const auto rank = [&](bool first) {
        try {
            auto store = SocketStore::connect(path, std::chrono::seconds(10));
            if (!store)
                throw std::runtime_error(store.error().message);
            SocketStore &s = **store;
            if (first) {
                s.wait({"second/addr"});
                const std::vector<char> value = s.get("second/addr");
                seenByFirst.assign(value.begin(), value.end());
                s.set("first/addr", {'1', '0'});
            } else {
                s.set("second/addr", {'2', '0'});
                const std::vector<char> value = s.get("first/addr");
                seenBySecond.assign(value.begin(), value.end());
                s.wait({"first/addr", "second/addr"}, std::chrono::seconds(5));
            }
        } catch (const std::exception &e) {
            failure = e.what();
        }
    };
    std::thread first(rank, true);
    std::thread second(rank, false);
    first.join();
    second.join();
    QVERIFY2(failure.empty(), failure.c_str());
    QCOMPARE(seenByFirst, std::string("20"));
    QCOMPARE(seenBySecond, std::string("10"));
}

// A get nobody answers throws what Gloo's callers catch, naming the key and the wait; the late
// answer to it does not confuse the next request.
void TestComm::socketStoreTimeoutNamesTheKey()
{
    QTemporaryDir dir;
    const std::string path = dir.filePath(QStringLiteral("store.sock")).toStdString();
    const agent::test::TinyStoreServer server(path);
    QVERIFY(server.listening());
    auto store = SocketStore::connect(path, std::chrono::milliseconds(300));
    QVERIFY(store.ok());
    std::string message;
    try {
        (*store)->get("rank/7/addr");
    } catch (const gloo::IoException &e) {
        message = e.what();
    }
    QVERIFY2(message.find("get of 'rank/7/addr' timed out after 0.3 s") != std::string::npos,
             message.c_str());
    (*store)->set("rank/7/addr", {'x'});
    QCOMPARE((*store)->get("rank/7/addr"), std::vector<char>{'x'});
}

void TestComm::unreachableSocketIsAnError()
{
    auto address = parseRendezvous("unix:/nonexistent/job/store.sock");
    QVERIFY(address.ok());
    auto store = openStore(*address, 5);
    QVERIFY(!store.ok());
    QVERIFY2(store.error().message.find("unix:/nonexistent/job/store.sock: No such file or "
                                        "directory")
                 != std::string::npos,
             store.error().message.c_str());
}

void TestComm::missingPeerTimesOutNamingTheGroup()
{
    QTemporaryDir dir;
    auto comm = openRank(dir.path().toStdString(), 0, 2, 1.0);
    QVERIFY(comm.ok());
    QElapsedTimer clock;
    clock.start();
    const Status s = (*comm)->connect({{"tp/p0/s0/r0", {0, 1}}});
    QVERIFY(!s.ok());
    QVERIFY2(clock.elapsed() < 5000, qPrintable(QString::number(clock.elapsed())));
    QVERIFY2(s.error().message.find("connecting in group tp/p0/s0/r0") != std::string::npos,
             s.error().message.c_str());
}

void TestComm::silentPeerTimesOutNamingThePeer()
{
    QTemporaryDir dir;
    const std::vector<Status> results = onRanks(2, [&](int r) -> Status {
        auto comm = openRank(dir.path().toStdString(), r, 2, 1.0);
        if (!comm)
            return comm.error();
        if (Status s = (*comm)->connect({{"hop/p0/s0-s1", {0, 1}}}); !s)
            return s;
        if (r == 1) {
            std::this_thread::sleep_for(std::chrono::milliseconds(2500)); // never sends
            return okStatus();
        }
        std::vector<float> data(8);
        return (*comm)->recv("hop/p0/s0-s1", 1, data.data(), data.size(), 0);
    });
    QVERIFY(!results[0].ok());
    QVERIFY2(results[0].error().message.find("recv in group hop/p0/s0-s1 with rank 1 failed")
                 != std::string::npos,
             results[0].error().message.c_str());
}

// What the executor's handshakes rely on (docs/runtime.md, "Phases"): Gloo moves data only
// once both sides have posted, so a receive posted ahead lets the sender finish before the
// receiver comes to it, and the receiver then finds the data there.
void TestComm::aReceivePostedAheadHasItsDataWaiting()
{
    QTemporaryDir dir;
    std::atomic<bool> sent{false};
    bool sentBeforeTheWait = false;
    std::vector<float> arrived(3, 0.0f);
    const std::vector<Status> results = onRanks(2, [&](int r) -> Status {
        auto comm = openRank(dir.path().toStdString(), r, 2);
        if (!comm)
            return comm.error();
        Comm &c = **comm;
        if (Status s = c.connect({{"hop/p0/s0-s1", {0, 1}}}); !s)
            return s;
        if (r == 0) {
            std::vector<float> token{1, 2, 3};
            if (Status s = c.exchange({{"hop/p0/s0-s1", 1, token.data(), 3, 5, true}}); !s)
                return s;
            sent = true;
            return okStatus();
        }
        auto posted = c.post({{"hop/p0/s0-s1", 0, arrived.data(), 3, 5, false}});
        if (!posted)
            return posted.error();
        for (int i = 0; i < 200 && !sent; ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(25));
        sentBeforeTheWait = sent;
        return c.wait(*posted);
    });
    QVERIFY2(results[0].ok(), results[0] ? "" : results[0].error().message.c_str());
    QVERIFY2(results[1].ok(), results[1] ? "" : results[1].error().message.c_str());
    QVERIFY(sentBeforeTheWait);
    QCOMPARE(arrived, (std::vector<float>{1, 2, 3}));
}

void TestComm::badRendezvousIsRefused_data()
{
    QTest::addColumn<QString>("address");
    QTest::newRow("missing directory") << QStringLiteral("/nonexistent/hetplan-rendezvous");
    QTest::newRow("no port") << QStringLiteral("redis://localhost");
    QTest::newRow("bad port") << QStringLiteral("redis://localhost:99999");
    QTest::newRow("empty") << QString();
    QTest::newRow("unix: without a path") << QStringLiteral("unix:");
}

void TestComm::badRendezvousIsRefused()
{
    QFETCH(QString, address);
    auto parsed = parseRendezvous(address.toStdString());
    QVERIFY(!parsed.ok());
    QCOMPARE(parsed.error().kind, ErrorKind::BadInput);
    QVERIFY2(parsed.error().message.find("rendezvous") != std::string::npos,
             parsed.error().message.c_str());
}

HETPLAN_TEST_APPLESS_MAIN(TestComm)
#include "tst_comm.moc"
