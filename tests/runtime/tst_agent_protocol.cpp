// The frames between launcher, host agent and ranks (runtime/agent/agent_protocol.h): what one
// end writes the other reads back whole, whatever pieces the channel cuts the bytes into, and a
// stream that breaks the format is refused instead of read as a huge or unknown frame.
#include "runtime/agent/agent_protocol.h"
#include "runtime/agent/store_keys.h"
#include "tests/test_registry.h"

#include <QtTest>

using namespace hetplan;
using namespace hetplan::agent;

class TestAgentProtocol : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void framesSurviveAnyCutOfTheStream()
    {
        const std::vector<Frame> sent = {
            {FrameKind::Ready, -1, "hetplan-worker 1.0"},
            {FrameKind::Stdout, 7, std::string("step 1\n\0binary\xff", 15)},
            {FrameKind::Exited, 7, "exit 0"},
            {FrameKind::Finished, -1, ""},
        };
        std::string stream;
        for (const Frame &f : sent)
            stream += encodeFrame(f);
        // Every cut size from one byte (a slow channel) to the whole stream at once.
        for (std::size_t piece : {std::size_t(1), std::size_t(3), std::size_t(10), stream.size()}) {
            FrameReader reader;
            std::vector<Frame> got;
            for (std::size_t at = 0; at < stream.size(); at += piece) {
                reader.feed(std::string_view(stream).substr(at, piece));
                for (;;) {
                    auto next = reader.next();
                    QVERIFY(next.ok());
                    if (!next->has_value())
                        break;
                    got.push_back(std::move(**next));
                }
            }
            QCOMPARE(got.size(), sent.size());
            for (std::size_t i = 0; i < sent.size(); ++i) {
                QCOMPARE(int(got[i].kind), int(sent[i].kind));
                QCOMPARE(got[i].rank, sent[i].rank);
                QCOMPARE(got[i].payload, sent[i].payload);
            }
            QCOMPARE(reader.pendingBytes(), std::size_t(0));
        }
    }

    void aBrokenStreamIsRefused()
    {
        FrameReader unknown;
        unknown.feed(std::string("\x63\0\0\0\0\0\0\0\0", 9));
        QVERIFY(!unknown.next().ok());

        // A length above the bound is refused from the header alone: nothing is buffered for it.
        std::string huge = encodeFrame({FrameKind::Result, 0, ""});
        huge[5] = huge[6] = huge[7] = huge[8] = '\x7f';
        FrameReader tooLong;
        tooLong.feed(huge);
        auto next = tooLong.next();
        QVERIFY(!next.ok());
        QVERIFY(next.error().message.find("at most") != std::string::npos);
    }

    void specAndStoreMessagesRoundTrip()
    {
        AgentSpec spec;
        spec.jobDir = "hetplan-jobs/hp-20261128-083000-abcdef";
        spec.graceS = 2.5;
        spec.serveStore = true;
        spec.ranks.push_back({3,
                              {"/opt/hetplan/bin/hetplan-worker", "--rank", "3", "a b\n$(x)"},
                              {{"RANK", "3"}, {"EMPTY", ""}},
                              "rank-3.json"});
        spec.ranks.push_back({4, {"true"}, {}, ""});
        auto back = decodeSpec(encodeSpec(spec));
        QVERIFY(back.ok());
        QCOMPARE(back->jobDir, spec.jobDir);
        QCOMPARE(back->graceS, 2.5);
        QVERIFY(back->serveStore);
        QCOMPARE(back->ranks.size(), std::size_t(2));
        QCOMPARE(back->ranks[0].argv, spec.ranks[0].argv);
        QCOMPARE(back->ranks[0].env, spec.ranks[0].env);
        QCOMPARE(back->ranks[0].resultFile, spec.ranks[0].resultFile);
        QCOMPARE(back->ranks[1].rank, 4);

        StoreRequest wait{42, StoreRequest::Op::Wait, {"rank0", "rank1"}, ""};
        auto request = decodeStoreRequest(encodeStoreRequest(wait));
        QVERIFY(request.ok());
        QCOMPARE(request->id, 42u);
        QCOMPARE(request->keys, wait.keys);
        auto reply = decodeStoreReply(encodeStoreReply({42, true, std::string("\0id", 3)}));
        QVERIFY(reply.ok());
        QCOMPARE(reply->value, std::string("\0id", 3));

        // Cut anywhere, a payload is malformed, never read past its end.
        const std::string bytes = encodeSpec(spec);
        for (std::size_t cut = 0; cut < bytes.size(); ++cut)
            QVERIFY(!decodeSpec(std::string_view(bytes).substr(0, cut)).ok());
        QVERIFY(!decodeStoreRequest(encodeStoreRequest({1, StoreRequest::Op::Get, {}, ""})).ok());
    }

    void storeAnswersGetsAndWaitsOnceTheirKeysExist()
    {
        // Rank 1 asks for rank 0's address before rank 0 has set it; rank 2 waits for both.
        StoreKeys keys;
        QVERIFY(keys.handle(1, {10, StoreRequest::Op::Get, {"addr0"}, ""}).empty());
        QVERIFY(keys.handle(2, {20, StoreRequest::Op::Wait, {"addr0", "addr1"}, ""}).empty());
        QCOMPARE(keys.waitingRequests(), std::size_t(2));

        auto due = keys.handle(0, {30, StoreRequest::Op::Set, {"addr0"}, "10.0.0.5:4000"});
        QCOMPARE(due.size(), std::size_t(2)); // the set's own ok, and rank 1's get
        QCOMPARE(due[0].asker, 0);
        QCOMPARE(due[1].asker, 1);
        QCOMPARE(due[1].reply.id, 10u);
        QCOMPARE(due[1].reply.value, std::string("10.0.0.5:4000"));

        due = keys.handle(1, {11, StoreRequest::Op::Set, {"addr1"}, "10.0.0.6:4000"});
        QCOMPARE(due.size(), std::size_t(2));
        QCOMPARE(due[1].asker, 2);
        QCOMPARE(due[1].reply.id, 20u);
        QCOMPARE(keys.waitingRequests(), std::size_t(0));

        // An asker that is gone leaves nothing waiting.
        QVERIFY(keys.handle(3, {40, StoreRequest::Op::Get, {"never"}, ""}).empty());
        keys.forget(3);
        QCOMPARE(keys.waitingRequests(), std::size_t(0));
    }

    void aWaitStaysWaitingThroughSetsOfOtherKeys()
    {
        // A request that stays waiting keeps its keys: a set of another key neither answers it
        // nor empties it (a wait on no keys would be answered by any later set).
        StoreKeys keys;
        QVERIFY(keys.handle(1, {10, StoreRequest::Op::Wait, {"addr0"}, ""}).empty());
        QVERIFY(keys.handle(2, {20, StoreRequest::Op::Get, {"addr0"}, ""}).empty());
        for (std::uint32_t id : {30u, 31u}) {
            const auto due
                = keys.handle(0, {id, StoreRequest::Op::Set, {"other" + std::to_string(id)}, "x"});
            QCOMPARE(due.size(), std::size_t(1));
            QCOMPARE(keys.waitingRequests(), std::size_t(2));
        }
        const auto due = keys.handle(0, {32, StoreRequest::Op::Set, {"addr0"}, "10.0.0.5:4000"});
        QCOMPARE(due.size(), std::size_t(3));
        QCOMPARE(due[2].reply.id, 20u);
        QCOMPARE(due[2].reply.value, std::string("10.0.0.5:4000"));
    }

    void storeIsBounded()
    {
        StoreKeys keys;
        const std::string big(StoreKeys::kMaxBytes / 2, 'x');
        QVERIFY(keys.handle(0, {1, StoreRequest::Op::Set, {"a"}, big}).front().reply.ok);
        // Replacing a value frees the old one's bytes first.
        QVERIFY(keys.handle(0, {2, StoreRequest::Op::Set, {"a"}, big}).front().reply.ok);
        const auto refused = keys.handle(0, {3, StoreRequest::Op::Set, {"b"}, big + big});
        QVERIFY(!refused.front().reply.ok);
        QVERIFY(refused.front().reply.value.find("full") != std::string::npos);
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestAgentProtocol)
#include "tst_agent_protocol.moc"
