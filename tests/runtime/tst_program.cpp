// A plan becomes per-rank programs: the six plan shapes of the runtime's acceptance list compile
// and pass the checker, with their groups, row shares and gradient weights asserted from the
// programs themselves; the case study's asymmetric plan in detail.
#include "core/io/catalog_json.h"
#include "core/io/files.h"
#include "core/io/formats.h"
#include "core/io/loaders.h"
#include "tests/core/planner_test_support.h"
#include "tests/runtime/program_test_support.h"
#include "tests/test_registry.h"

#include <QtTest>

#include <functional>

using namespace hetplan;
using namespace hetplan::test;
using runtime::GroupKind;
using runtime::JobProgram;

namespace {

struct Shape
{
    std::function<Plan()> plan;
    // What the shape is about, asserted on its program.
    std::function<void(const JobProgram &)> expect;
};

// Ops of one kind on a rank, in order.
template<typename T>
std::vector<T> opsOf(const JobProgram &program, int rank)
{
    std::vector<T> out;
    for (const runtime::Op &op : program.programs[size_t(rank)])
        if (const auto *x = std::get_if<T>(&op))
            out.push_back(*x);
    return out;
}

using Keys = std::vector<std::string>;

std::map<QString, Shape> shapes()
{
    std::map<QString, Shape> s;
    s[QStringLiteral("one stage, TP 2")]
        = {[] {
               return trainingPlan({{2, 3, {stage({0, 1}, 2, 1, 0, 8)}}});
           },
           [](const JobProgram &p) {
               QCOMPARE(groupKeys(p, GroupKind::TensorParallel), Keys{"tp/p0/s0/r0"});
               QVERIFY(groupKeys(p, GroupKind::Hop).empty());
               QVERIFY(groupKeys(p, GroupKind::Gradient).empty()); // one replica: nothing to sync
               QCOMPARE(opsOf<runtime::Forward>(p, 1).size(), size_t(3));
               QVERIFY(p.ranks[0].embedding && p.ranks[0].head && p.ranks[1].tpIndex == 1);
           }};
    s[QStringLiteral("plain pipeline of 4 stages")]
        = {[] {
               return trainingPlan({{1,
                                     6,
                                     {stage({4}, 1, 1, 0, 2), stage({5}, 1, 1, 2, 4),
                                      stage({6}, 1, 1, 4, 6), stage({7}, 1, 1, 6, 8)}}});
           },
           [](const JobProgram &p) {
               QCOMPARE(groupKeys(p, GroupKind::Hop),
                        (Keys{"hop/p0/s0-s1/r0-r0", "hop/p0/s1-s2/r0-r0", "hop/p0/s2-s3/r0-r0"}));
               // 1F1B: stage 0 runs 3 warm-up forwards before its first backward, the last stage
               // alternates from the start.
               const auto &first = p.programs[0];
               QVERIFY(std::holds_alternative<runtime::Forward>(first[0]));
               int forwardsBeforeBackward = 0;
               for (const auto &op : first) {
                   if (std::holds_alternative<runtime::Backward>(op))
                       break;
                   forwardsBeforeBackward += std::holds_alternative<runtime::Forward>(op);
               }
               QCOMPARE(forwardsBeforeBackward, 4); // 3 warm-up + the first steady forward
               QVERIFY(std::holds_alternative<runtime::Backward>(p.programs[3][2]));
           }};
    s[QStringLiteral("TP 2 then TP 1")]
        = {[] {
               return trainingPlan({{2, 4, {stage({0, 1}, 2, 1, 0, 5), stage({4}, 1, 1, 5, 8)}}});
           },
           [](const JobProgram &p) {
               QCOMPARE(groupKeys(p, GroupKind::Hop), Keys{"hop/p0/s0-s1/r0-r0"});
               QCOMPARE(groupMembers(p, "hop/p0/s0-s1/r0-r0"), (std::vector<int>{0, 2}));
               // Rank 1 (TP 1 of stage 0) receives gradients only through its leader's broadcast.
               const auto broadcasts = opsOf<runtime::Broadcast>(p, 1);
               QCOMPARE(broadcasts.size(), size_t(4));
               QCOMPARE(broadcasts.front().root, 0);
               QCOMPARE(int(broadcasts.front().payload), int(runtime::Payload::Gradient));
               QVERIFY(opsOf<runtime::Exchange>(p, 1).empty());
           }};
    s[QStringLiteral("two asymmetric pipelines")] = {
        [] {
            return trainingPlan({{1,
                                  5,
                                  {stage({0, 1, 2, 3}, 4, 1, 0, 3), stage({4}, 1, 1, 3, 6),
                                   stage({5}, 1, 1, 6, 8)}},
                                 {2, 3, {stage({8, 9}, 2, 1, 0, 5), stage({10}, 1, 1, 5, 8)}}});
        },
        [](const JobProgram &p) {
            // Runs: 0..2 (TP 4 and TP 2), 3..4 (TP 1 and TP 2), 5, 6..7 (TP 1 and TP 1).
            QCOMPARE(
                groupKeys(p, GroupKind::Gradient),
                (Keys{"dp/l0-2/slice0of4", "dp/l0-2/slice1of4", "dp/l0-2/slice2of4",
                      "dp/l0-2/slice3of4", "dp/l0-2/replicated", "dp/l3-4/slice0of2",
                      "dp/l3-4/slice1of2", "dp/l3-4/replicated", "dp/l5-5/all", "dp/l6-7/all"}));
            // Ranks: p0 = 0..3 (TP 4), 4, 5; p1 = 6, 7 (TP 2), 8. Slice k of 4 is held by the
            // TP-4 rank k and by the TP-2 rank k / 2 (HexiScale §3.2's padded slice groups).
            QCOMPARE(groupMembers(p, "dp/l0-2/slice1of4"), (std::vector<int>{1, 6}));
            QCOMPARE(groupMembers(p, "dp/l0-2/slice2of4"), (std::vector<int>{2, 7}));
            QCOMPARE(groupMembers(p, "dp/l3-4/slice1of2"), (std::vector<int>{4, 7}));
            QCOMPARE(groupMembers(p, "dp/l0-2/replicated"), (std::vector<int>{0, 1, 2, 3, 6, 7}));
            // Shares of the global batch of 11: 5 and 6 rows.
            const auto rank6 = opsOf<runtime::GradSync>(p, 6);
            // Layers 0..2: slices 0 and 1 of 4, replicated; layers 3..4: slice 0 of 2, replicated.
            QCOMPARE(rank6.size(), size_t(5));
            QCOMPARE(rank6[0].weight, 6.0 / 11);
            QCOMPARE(rank6[2].weight, 6.0 / 11 / 2);
            QVERIFY(rank6[2].embedding && !rank6[2].head);
            QCOMPARE(opsOf<runtime::GradSync>(p, 0).back().weight, 5.0 / 11 / 4);
            QCOMPARE(p.pipelines[1].rows, (runtime::SampleRange{5, 11}));
        }};
    s[QStringLiteral("dp 3 stage with uneven dp_split")] = {
        [] {
            return trainingPlan({{5,
                                  3,
                                  {stage({0}, 1, 1, 0, 3), stage({4, 5, 6}, 1, 3, 3, 6, {1, 2, 2}),
                                   stage({8, 9}, 2, 1, 6, 8)}}});
        },
        [](const JobProgram &p) {
            // Into and out of the dp 3 stage every replica gets exactly its share.
            QCOMPARE(groupKeys(p, GroupKind::Hop),
                     (Keys{"hop/p0/s0-s1/r0-r0", "hop/p0/s0-s1/r0-r1", "hop/p0/s0-s1/r0-r2",
                           "hop/p0/s1-s2/r0-r0", "hop/p0/s1-s2/r1-r0", "hop/p0/s1-s2/r2-r0"}));
            const auto forwards = opsOf<runtime::Forward>(p, 2); // replica 1: rows 1..2 of 5
            QCOMPARE(forwards[1].rows, (runtime::SampleRange{6, 8}));
            // Stage 2's leader receives the three pieces of a micro-batch in one exchange.
            const auto exchanges = opsOf<runtime::Exchange>(p, 4);
            QCOMPARE(exchanges.front().transfers.size(), size_t(3));
            // The three replicas sync layers 3..5, each weighted by its share of 5 rows.
            QCOMPARE(groupKeys(p, GroupKind::Gradient), Keys{"dp/l3-5/all"});
            QCOMPARE(groupMembers(p, "dp/l3-5/all"), (std::vector<int>{1, 2, 3}));
            QCOMPARE(opsOf<runtime::GradSync>(p, 1).front().weight, 1.0 / 5);
            QCOMPARE(opsOf<runtime::GradSync>(p, 3).front().weight, 2.0 / 5);
        }};
    s[QStringLiteral("dp 2 into dp 3, shares that do not line up")]
        = {[] {
               return trainingPlan({{5,
                                     4,
                                     {stage({0, 1, 2, 3}, 2, 2, 0, 4, {3, 2}),
                                      stage({8, 9, 10}, 1, 3, 4, 8, {1, 1, 3})}}});
           },
           [](const JobProgram &p) {
               // Rows 0..2 | 3..4 upstream, 0 | 1 | 2..4 downstream: replica 0 feeds all three.
               QCOMPARE(groupKeys(p, GroupKind::Hop),
                        (Keys{"hop/p0/s0-s1/r0-r0", "hop/p0/s0-s1/r0-r1", "hop/p0/s0-s1/r0-r2",
                              "hop/p0/s0-s1/r1-r2"}));
               const auto exchanges = opsOf<runtime::Exchange>(p, 6); // downstream replica 2
               QCOMPARE(exchanges.front().transfers[0].rows, (runtime::SampleRange{2, 3}));
               QCOMPARE(exchanges.front().transfers[1].rows, (runtime::SampleRange{3, 5}));
           }};
    return s;
}

} // namespace

class TestProgram : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void shapesCompileAndCheck_data()
    {
        QTest::addColumn<QString>("shape");
        for (const auto &[name, shape] : shapes())
            QTest::newRow(name.toUtf8().constData()) << name;
    }

    void shapesCompileAndCheck()
    {
        QFETCH(QString, shape);
        const Shape s = shapes().at(shape);
        const JobProgram program = compileAndCheck(s.plan(), fixtureModel(), fixtureTopology());
        s.expect(program);
    }

    // Rank order and what each rank knows about its place.
    void ranksInDocumentedOrder()
    {
        const Plan plan = trainingPlan({{1, 2, {stage({4}, 1, 1, 0, 4), stage({0, 1}, 2, 1, 4, 8)}},
                                        {2, 1, {stage({8, 9, 10, 11}, 2, 2, 0, 8)}}});
        const JobProgram p = compileAndCheck(plan, fixtureModel(), fixtureTopology());
        QCOMPARE(p.ranks.size(), size_t(7));
        QCOMPARE(p.ranks[0].gpuName, std::string("B:0"));
        QCOMPARE(p.ranks[0].host, std::string("host-b"));
        QCOMPARE(p.ranks[2].gpuName, std::string("A:1"));
        QCOMPARE(p.ranks[2].tpIndex, 1);
        QVERIFY(p.ranks[2].head && !p.ranks[2].embedding);
        const runtime::Rank &last = p.ranks[6];
        QCOMPARE(last.gpuName, std::string("C:3"));
        QCOMPARE(last.machine, std::string("C"));
        QCOMPARE(last.pipeline, 1);
        QCOMPARE(last.replica, 1);
        QCOMPARE(last.tpIndex, 1);
        QCOMPARE(last.rowOffset, 1);
        QCOMPARE(last.rowCount, 1);
        QCOMPARE(p.groups[size_t(last.tpGroup)].key, std::string("tp/p1/s0/r1"));
    }

    // A worker compiles only its own program: the same ops as in the whole job's, the same
    // ranks and groups, and nothing for the other ranks.
    void oneRankCompilesAlone()
    {
        const Plan plan = shapes().at(QStringLiteral("two asymmetric pipelines")).plan();
        const JobProgram whole = compileAndCheck(plan, fixtureModel(), fixtureTopology());
        for (int r = 0; r < static_cast<int>(whole.ranks.size()); ++r) {
            runtime::ProgramOptions options;
            options.rank = r;
            const JobProgram one
                = orFail(runtime::compileProgram(plan, fixtureModel(), fixtureTopology(), options),
                         "one rank");
            QVERIFY(one.ranks == whole.ranks && one.groups == whole.groups);
            for (int other = 0; other < static_cast<int>(whole.ranks.size()); ++other)
                QVERIFY(other == r ? one.programs[size_t(r)] == whole.programs[size_t(r)]
                                   : one.programs[size_t(other)].empty());
        }
        runtime::ProgramOptions outside;
        outside.rank = int(whole.ranks.size());
        const auto refused
            = runtime::compileProgram(plan, fixtureModel(), fixtureTopology(), outside);
        QVERIFY(!refused);
        QVERIFY(errorText(refused.error()).contains(QStringLiteral("rank 9 is not in the plan")));
    }

    // Eleven million micro-batches would need more memory than a job's programs may take: refused
    // before any is built, pointing at compiling one rank at a time.
    void hugeJobIsRefusedBeforeBuilding()
    {
        const Plan plan = trainingPlan({{1, 11'000'000, {stage({0}, 1, 1, 0, 8)}}});
        const auto refused = runtime::compileProgram(plan, fixtureModel(), fixtureTopology());
        QVERIFY(!refused);
        QCOMPARE(refused.error().kind, ErrorKind::Unsupported);
        QVERIFY(errorText(refused.error()).contains(QStringLiteral("one rank at a time")));
    }

    // The transports a plan records travel with the groups that carry that traffic.
    void groupsCarryTheRecordedTransports()
    {
        Plan plan = trainingPlan({{1, 2, {stage({0, 1}, 2, 1, 0, 4), stage({4}, 1, 1, 4, 8)}},
                                  {1, 2, {stage({8}, 1, 1, 0, 8)}}});
        plan.pipelines[0].stages[0].transport
            = {std::nullopt, Transport::Socket, Transport::Socket};
        plan.pipelines[0].stages[1].transport.dp = Transport::Socket;
        plan.pipelines[1].stages[0].transport.dp = Transport::Socket;
        const JobProgram p = compileAndCheck(plan, fixtureModel(), fixtureTopology());
        for (const runtime::Group &g : p.groups)
            QCOMPARE(g.transport, g.kind == GroupKind::TensorParallel
                                      ? std::nullopt
                                      : std::optional<Transport>(Transport::Socket));
    }

    // The plan recorded with the case study: pipeline 0 = TP 2 on A, then C:0 and C:1 as dp 2;
    // pipeline 1 = A:2, then TP 2 on B; 24 sequences as 7 × 2 and 10 × 1.
    void caseStudyPlan()
    {
        const Topology topology = orFail(
            Topology::build(orFail(loadCluster("case-study"), "cluster"), builtinGpuCatalog()),
            "topology");
        const ModelSpec model = orFail(loadModel("llama2-13b"), "model");
        const std::string path = HETPLAN_TEST_DATA_DIR "/good/case-study-2pp.plan.json";
        const Plan plan
            = orFail(parsePlan(orFail(readTextFile(path), "read"), path, topology), "plan");
        const JobProgram p = compileAndCheck(plan, model, topology);
        QCOMPARE(p.ranks.size(), size_t(7));
        QCOMPARE(groupKeys(p, GroupKind::Hop),
                 (Keys{"hop/p0/s0-s1/r0-r0", "hop/p0/s0-s1/r0-r1", "hop/p1/s0-s1/r0-r0"}));
        QCOMPARE(groupMembers(p, "dp/l0-9/slice1of2"), (std::vector<int>{1, 4}));
        QCOMPARE(groupMembers(p, "dp/l10-23/slice1of2"), (std::vector<int>{1, 6}));
        QCOMPARE(groupMembers(p, "dp/l24-39/slice0of2"), (std::vector<int>{2, 3, 5}));
        QCOMPARE(groupMembers(p, "dp/l24-39/replicated"), (std::vector<int>{2, 3, 5, 6}));
        const auto c0 = opsOf<runtime::GradSync>(p, 2); // C:0 computes 1 of every 2 rows of p0
        QCOMPARE(c0.front().weight, 7.0 / 24);
        QVERIFY(c0.back().head);
        QCOMPARE(opsOf<runtime::GradSync>(p, 5).front().weight, 10.0 / 24);
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestProgram)
#include "tst_program.moc"
