// The checker catches programs that would hang or compute the wrong thing, and the compiler
// refuses plans the runtime cannot execute, naming the pipeline and stage and why.
#include "tests/runtime/program_test_support.h"
#include "tests/test_registry.h"

#include <QtTest>

using namespace hetplan;
using namespace hetplan::test;
using runtime::JobProgram;
using runtime::Op;

Q_DECLARE_METATYPE(hetplan::Plan)
Q_DECLARE_METATYPE(hetplan::ModelSpec)

namespace {

Plan plainPipeline()
{
    return trainingPlan(
        {{1, 4, {stage({4}, 1, 1, 0, 3), stage({5}, 1, 1, 3, 6), stage({6}, 1, 1, 6, 8)}}});
}

Plan asymmetricPipelines()
{
    return trainingPlan({{1, 5, {stage({0, 1, 2, 3}, 4, 1, 0, 3), stage({4}, 1, 1, 3, 8)}},
                         {2, 3, {stage({8, 9}, 2, 1, 0, 5), stage({10}, 1, 1, 5, 8)}}});
}

JobProgram compiled(const Plan &plan)
{
    return compileAndCheck(plan, fixtureModel(), fixtureTopology());
}

QString checkError(const JobProgram &program)
{
    const Status checked = runtime::checkProgram(program);
    return checked ? QString() : errorText(checked.error());
}

QString compileError(const Plan &plan, ModelSpec model = fixtureModel(),
                     runtime::ProgramOptions options = {})
{
    const auto program = runtime::compileProgram(plan, model, fixtureTopology(), options);
    if (program)
        return {};
    if (program.error().kind != ErrorKind::BadInput)
        return QStringLiteral("not BadInput: ") + errorText(program.error());
    return errorText(program.error());
}

std::vector<size_t> indicesOf(const std::vector<Op> &ops, size_t variantIndex)
{
    std::vector<size_t> out;
    for (size_t i = 0; i < ops.size(); ++i)
        if (ops[i].index() == variantIndex)
            out.push_back(i);
    return out;
}

} // namespace

class TestProgramCheck : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void missingReceiveIsCaught()
    {
        JobProgram program = compiled(plainPipeline());
        auto &ops = program.programs[1]; // stage 1: its first op receives micro-batch 0
        QVERIFY(std::holds_alternative<runtime::Exchange>(ops.front()));
        ops.erase(ops.begin());
        const QString error = checkError(program);
        QVERIFY2(error.contains(QStringLiteral("never receives")), qPrintable(error));
        QVERIFY2(error.contains(QStringLiteral("rank 0 ")), qPrintable(error));
    }

    // Sends before receives, one after the other, as separate blocking transfers: neighbouring
    // stages both wait in their send (why the compiler fuses them into one Exchange).
    void unfusedExchangesDeadlock()
    {
        JobProgram program = compiled(plainPipeline());
        for (auto &ops : program.programs) {
            std::vector<Op> split;
            for (const Op &op : ops) {
                const auto *e = std::get_if<runtime::Exchange>(&op);
                if (!e) {
                    split.push_back(op);
                    continue;
                }
                for (auto direction : {runtime::Direction::Send, runtime::Direction::Recv}) {
                    runtime::Exchange part;
                    for (const runtime::Transfer &t : e->transfers)
                        if (t.direction == direction)
                            part.transfers.push_back(t);
                    if (!part.transfers.empty())
                        split.emplace_back(part);
                }
            }
            ops = std::move(split);
        }
        const QString error = checkError(program);
        QVERIFY2(error.contains(QStringLiteral("deadlock")), qPrintable(error));
        QVERIFY2(error.contains(QStringLiteral("send activation")), qPrintable(error));
        QVERIFY2(error.contains(QStringLiteral("send gradient")), qPrintable(error));
    }

    // Ranks: pipeline 0 = 0..3 (TP 4), 4; pipeline 1 = 5, 6 (TP 2), 7.
    // Rank 5 (pipeline 1's TP leader) syncs its replicated weights before its slices, while
    // rank 0 waits for it in the slice group it shares with it.
    void gradientSyncOutOfOrderDeadlocks()
    {
        JobProgram program = compiled(asymmetricPipelines());
        auto &ops = program.programs[5];
        const auto syncs = indicesOf(ops, 4); // GradSync
        QVERIFY(syncs.size() >= 3);
        QCOMPARE(int(std::get<runtime::GradSync>(ops[syncs[2]]).params),
                 int(runtime::ParamSet::Replicated));
        std::rotate(ops.begin() + long(syncs[0]), ops.begin() + long(syncs[2]),
                    ops.begin() + long(syncs[2]) + 1);
        const QString error = checkError(program);
        QVERIFY2(error.contains(QStringLiteral("deadlock")), qPrintable(error));
        QVERIFY2(error.contains(QStringLiteral("rank 5 ")), qPrintable(error));
    }

    // The TP follower runs its forwards ahead of its backwards (a valid order for its own
    // data), but its leader alternates: the TP all-reduces inside them would pair wrongly.
    void tpCollectivesOutOfOrderAreCaught()
    {
        JobProgram program = compiled(trainingPlan({{1, 3, {stage({0, 1}, 2, 1, 0, 8)}}}));
        auto &ops = program.programs[1];
        std::stable_partition(ops.begin(), ops.end(), [](const Op &op) {
            return std::holds_alternative<runtime::Forward>(op);
        });
        const QString error = checkError(program);
        QVERIFY2(error.contains(QStringLiteral("do not match")), qPrintable(error));
    }

    void wrongGradientWeightIsCaught()
    {
        JobProgram program = compiled(asymmetricPipelines());
        auto &ops = program.programs[7];
        std::get<runtime::GradSync>(ops[indicesOf(ops, 4).front()]).weight *= 2;
        const QString error = checkError(program);
        QVERIFY2(error.contains(QStringLiteral("weight")), qPrintable(error));
    }

    void forwardBeforeItsInputIsCaught()
    {
        JobProgram program = compiled(plainPipeline());
        auto &ops = program.programs[2];
        std::swap(ops[0], ops[1]); // forward micro-batch 0 before receiving it
        const QString error = checkError(program);
        QVERIFY2(error.contains(QStringLiteral("input has not arrived")), qPrintable(error));
    }

    void nonExecutablePlansAreRefused_data()
    {
        QTest::addColumn<Plan>("plan");
        QTest::addColumn<ModelSpec>("model");
        QTest::addColumn<int>("scale");
        QTest::addColumn<QString>("expected");
        const ModelSpec model = fixtureModel();
        QTest::newRow("TP 3 on 16 heads")
            << trainingPlan({{1, 2, {stage({8}, 1, 1, 0, 4), stage({0, 1, 2}, 3, 1, 4, 8)}}})
            << model << 1 << "pipeline 0, stage 1: TP 3 does not divide the model's 16 heads";
        ModelSpec fewKv = model;
        fewKv.kvHeads = 2;
        QTest::newRow("TP 4 on 2 kv_heads")
            << trainingPlan(
                   {{1, 2, {stage({8}, 1, 1, 0, 8)}}, {1, 2, {stage({0, 1, 2, 3}, 4, 1, 0, 8)}}})
            << fewKv << 1 << "pipeline 1, stage 0: TP 4 does not divide the model's 2 kv_heads";
        QTest::newRow("FFN width after scale")
            << trainingPlan({{1, 2, {stage({0, 1, 2, 3}, 4, 1, 0, 8)}}}) << model << 2048
            << "pipeline 0, stage 0: TP 4 does not divide the FFN width 2";
        QTest::newRow("scale not dividing the FFN")
            << trainingPlan({{1, 2, {stage({0}, 1, 1, 0, 8)}}}) << model << 3
            << "scale 3 does not divide ffn_hidden 4096";
        QTest::newRow("stage without layers")
            << trainingPlan({{1, 2, {stage({0}, 1, 1, 0, 8), stage({1}, 1, 1, 8, 8)}}}) << model
            << 1 << "pipeline 0, stage 1";
        QTest::newRow("dp_split not the micro-batch")
            << trainingPlan({{3, 2, {stage({4, 5}, 1, 2, 0, 8, {1, 1})}}}) << model << 1
            << "pipeline 0, stage 0: dp_split sums to 2 but micro_batch is 3";
        Plan huge = trainingPlan({{1, 2, {stage({0}, 1, 1, 0, 8)}}});
        huge.pipelines.push_back({1 << 20, 1 << 24, {stage({1}, 1, 1, 0, 8)}}); // 2^44 rows
        QTest::newRow("global batch past int")
            << huge << model << 1
            << "pipeline 1: micro_batch × micro_batches brings the global batch past";
    }

    void nonExecutablePlansAreRefused()
    {
        QFETCH(Plan, plan);
        QFETCH(ModelSpec, model);
        QFETCH(int, scale);
        QFETCH(QString, expected);
        runtime::ProgramOptions options;
        options.scale = scale;
        const QString error = compileError(plan, model, options);
        QVERIFY2(error.contains(expected), qPrintable(error));
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestProgramCheck)
#include "tst_program_check.moc"
