// The rank layout that `hetplan-cli export` writes (core/plan/rank_layout.h) is the one the
// runtime compiles and `hetplan-cli run` starts: same ranks, GPUs, machines and roles, and the
// local rank hetplan-worker takes as its CUDA device.
#include "core/plan/rank_layout.h"
#include "runtime/program/compile.h"
#include "tests/core/export_test_support.h"
#include "tests/test_registry.h"

#include <QtTest>

using namespace hetplan;

class TestProgramRankLayout : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void layoutIsTheCompiledRankOrder_data();
    void layoutIsTheCompiledRankOrder();
};

void TestProgramRankLayout::layoutIsTheCompiledRankOrder_data()
{
    QTest::addColumn<QString>("source");
    QTest::addColumn<int>("heads"); // 0: the model's own
    // Four asymmetric pipelines over seven machines (HexiScale's plan of hetero-setting-3);
    // its TP 8 does not split llama-30b's 52 heads, so the runtime gets 64 here.
    QTest::newRow("bundled hexiscale plan") << "examples/hetero-setting-3-hexiscale" << 64;
    // DP replicas inside a stage, and a machine shared by two pipelines.
    QTest::newRow("two pipelines with DP inside a stage") << "good/case-study-2pp.plan.json" << 0;
}

void TestProgramRankLayout::layoutIsTheCompiledRankOrder()
{
    QFETCH(QString, source);
    QFETCH(int, heads);
    auto c = hetplan::test::exportCase(source.toStdString());
    if (heads > 0)
        c.model.heads = c.model.kvHeads = heads;
    // Rank 0's ops only: the rank list is complete either way.
    auto program = runtime::compileProgram(c.plan, c.model, *c.topology,
                                           runtime::ProgramOptions{.scale = 1, .rank = 0});
    QVERIFY2(program, program ? "" : program.error().message.c_str());
    const std::vector<RankPlacement> layout = rankLayout(c.plan, *c.topology);
    QCOMPARE(layout.size(), program->ranks.size());
    QVERIFY(c.plan.pipelines.size() > 1);
    for (std::size_t i = 0; i < layout.size(); ++i) {
        const RankPlacement &mine = layout[i];
        const runtime::Rank &theirs = program->ranks[i];
        QCOMPARE(mine.rank, theirs.rank);
        QCOMPARE(mine.gpu, theirs.gpu);
        QCOMPARE(mine.gpuName, theirs.gpuName);
        QCOMPARE(mine.machineName, theirs.machine);
        QCOMPARE(mine.pipeline, theirs.pipeline);
        QCOMPARE(mine.stage, theirs.stage);
        QCOMPARE(mine.replica, theirs.replica);
        QCOMPARE(mine.tpRank, theirs.tpIndex);
        QCOMPARE(mine.tpSize, theirs.tpDegree);
        QCOMPARE(mine.layerBegin, theirs.layerBegin);
        QCOMPARE(mine.layerEnd, theirs.layerEnd);
        // hetplan-worker's default CUDA device: its index among the ranks on its machine.
        int before = 0;
        for (std::size_t j = 0; j < i; ++j)
            before += program->ranks[j].machine == theirs.machine ? 1 : 0;
        QCOMPARE(mine.localRank, before);
    }
}

HETPLAN_TEST_APPLESS_MAIN(TestProgramRankLayout)
#include "tst_program_rank_layout.moc"
