// "No plan fits" as data (core/base/no_fit.h): every training planner that finds nothing says
// which layout came closest and which GPUs it overflows by how much, in its message and as a
// NoFit the front ends read; the CLI lists it per GPU and `compare --json` reports it.

#include "cli_runner.h"
#include "core/base/no_fit.h"
#include "core/cost/cost_model.h"
#include "planner_test_support.h"
#include "tests/test_registry.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

#include <set>

using namespace hetplan;
using namespace hetplan::test;

class TestNoFit : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // Llama-2 70B cannot be trained on the case study's 8 GPUs (360 GiB in all).
    void everyTrainingPlannerSaysWhatOverflows_data()
    {
        QTest::addColumn<QString>("planner");
        for (const char *name : {"hexiscale", "metis", "holmes", "megatron"})
            QTest::newRow(name) << QString::fromLatin1(name);
    }
    void everyTrainingPlannerSaysWhatOverflows()
    {
        QFETCH(QString, planner);
        const Problem problem = exampleProblem("case-study", "llama2-70b");
        const auto model = makeCostModel(CostModelKind::HetPlan);
        const auto kind = orFail(plannerKindFromName(planner.toStdString()), "planner");
        const auto made = orFail(makePlanner(kind), "planner");
        const auto search = runPlanner(*made, problem, *model);
        QVERIFY(!search);
        QCOMPARE(search.error().kind, ErrorKind::NoPlanFits);
        const auto &fit = search.error().noFit;
        QVERIFY2(fit, search.error().message.c_str());
        QVERIFY(!fit->closest.empty());
        QVERIFY(!fit->over.empty());
        std::set<std::string> machines;
        for (const Machine &m : problem.topology.cluster().machines)
            machines.insert(m.name);
        for (std::size_t i = 0; i < fit->over.size(); ++i) {
            const GpuOverflow &gpu = fit->over[i];
            QVERIFY2(gpu.usedGiB > gpu.capacityGiB, gpu.gpu.c_str());
            QVERIFY(machines.contains(gpu.machine));
            QVERIFY(gpu.gpu.starts_with(gpu.machine + ":"));
            if (i > 0)
                QVERIFY(fit->over[i - 1].overGiB() >= gpu.overGiB());
        }
        // The words say the same as the data.
        QVERIFY2(search.error().message.find(noFitText(*fit)) != std::string::npos,
                 search.error().message.c_str());
    }

    void textNamesThreeGpusAndCountsTheRest()
    {
        NoFit fit{"dp=1, tp=2, pp=4, micro-batch 1", {}};
        for (int i = 0; i < 5; ++i)
            fit.over.push_back({"C:" + std::to_string(i), "C", "RTX3090-24G", 31.94 - i, 24});
        QCOMPARE(noFitText(fit), std::string("the closest (dp=1, tp=2, pp=4, micro-batch 1) needs "
                                             "31.9 GiB on C:0 (RTX3090-24G, 24.0 GiB), 30.9 GiB "
                                             "on C:1 (RTX3090-24G, 24.0 GiB), 29.9 GiB on C:2 "
                                             "(RTX3090-24G, 24.0 GiB) and 2 more GPUs over "
                                             "capacity"));
        const std::vector<std::string> lines = noFitLines(fit);
        QCOMPARE(lines.size(), std::size_t(6));
        QCOMPARE(lines[1],
                 std::string("C:0 (RTX3090-24G) needs 31.9 GiB of 24.0 GiB: 7.9 GiB over"));
    }

    void cliListsEveryGpuOverCapacity()
    {
        const CliRun run = cli({"plan", "--cluster", "case-study", "--model", "llama2-70b"});
        QCOMPARE(run.exitCode, 3);
        QVERIFY2(run.err.contains("\n  closest layout: "), run.err.constData());
        QVERIFY2(QString::fromUtf8(run.err).contains(QRegularExpression(
                     QStringLiteral("\n  [ABC]:\\d \\([^)]+\\) needs [0-9.]+ GiB of [0-9.]+ GiB: "
                                    "[0-9.]+ GiB over"))),
                 run.err.constData());
    }

    void compareJsonReportsTheNoFit()
    {
        const CliRun run = cli({"compare", "--cluster", "case-study", "--model", "llama2-70b",
                                "--planners", "megatron,metis", "--json"});
        const QJsonArray rows
            = QJsonDocument::fromJson(run.out).object()[QStringLiteral("results")].toArray();
        QCOMPARE(rows.size(), 2);
        for (const auto &row : rows) {
            const QJsonObject noFit = row.toObject()[QStringLiteral("no_fit")].toObject();
            QVERIFY(!noFit[QStringLiteral("closest")].toString().isEmpty());
            const QJsonArray over = noFit[QStringLiteral("over")].toArray();
            QVERIFY(!over.isEmpty());
            const QJsonObject first = over.first().toObject();
            QVERIFY(first[QStringLiteral("used_gib")].toDouble()
                    > first[QStringLiteral("capacity_gib")].toDouble());
        }
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestNoFit)
#include "tst_no_fit.moc"
