// A measurement knows the plan it ran (docs/runtime.md, "The measurement file": run.plan_digest):
// the digest ignores names and formatting, survives the file's round trip, rank results of
// different plans do not merge, and `evaluate --measured` and `calibrate` refuse a measurement
// of another plan.
#include "core/catalog/catalog.h"
#include "core/cost/measurement.h"
#include "core/io/catalog_json.h"
#include "core/io/formats.h"
#include "core/io/loaders.h"
#include "core/io/measurement_json.h"
#include "core/model/topology.h"
#include "core/plan/plan_digest.h"
#include "tests/core/cli_runner.h"
#include "tests/test_registry.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

using namespace hetplan;

namespace {

using hetplan::test::cli;
using hetplan::test::writeFile;
using Run = hetplan::test::CliRun;

// The runtime's plans name the bundled case-study cluster.
const Topology &caseStudy()
{
    static const Topology topology = [] {
        auto cluster = loadCluster("case-study");
        if (!cluster)
            qFatal("%s", cluster.error().message.c_str());
        auto built = Topology::build(*cluster, builtinGpuCatalog());
        if (!built)
            qFatal("%s", built.error().message.c_str());
        return std::move(built).value();
    }();
    return topology;
}

QString runtimeData(const char *file)
{
    return QStringLiteral(HETPLAN_SOURCE_DIR "/tests/runtime/data/") + QString::fromUtf8(file);
}

QByteArray contentOf(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(path));
    return file.readAll();
}

Plan planOf(const QByteArray &text)
{
    auto plan = parsePlan(text.toStdString(), "plan", caseStudy());
    if (!plan)
        qFatal("%s", plan.error().message.c_str());
    return std::move(plan).value();
}

std::string digestOf(const char *file)
{
    return planDigest(planOf(contentOf(runtimeData(file))), caseStudy());
}

// A measurement of pipeline.plan.json (two stages of one rank each); with `digest`, recording it.
QByteArray pipelineMeasurement(const std::string &digest)
{
    QByteArray text = contentOf(
        QStringLiteral(HETPLAN_SOURCE_DIR "/tests/fuzz/corpus/measurement/two-ranks.json"));
    if (!digest.empty()) {
        const QByteArray plan = "\"plan\": \"tests/runtime/data/pipeline.plan.json\",";
        if (!text.contains(plan))
            qFatal("two-ranks.json no longer names its plan");
        text.replace(plan,
                     plan + " \"plan_digest\": \"" + QByteArray::fromStdString(digest) + "\",");
    }
    return text;
}

QStringList command(const QString &which, const QString &plan, const QString &measured,
                    const QTemporaryDir &dir)
{
    const QString model = runtimeData("tiny.model.json");
    if (which == QLatin1String("evaluate"))
        return {QStringLiteral("evaluate"),
                QStringLiteral("--plan"),
                plan,
                QStringLiteral("--model"),
                model,
                QStringLiteral("--measured"),
                measured};
    return {QStringLiteral("calibrate"),
            QStringLiteral("--cluster"),
            QStringLiteral("case-study"),
            QStringLiteral("--model"),
            model,
            QStringLiteral("--plan"),
            plan,
            QStringLiteral("--measured"),
            measured,
            QStringLiteral("--out"),
            dir.filePath(QStringLiteral("calibrated.json"))};
}

// `which` of pipeline.plan.json with its measurement written as `name`, recording `digest`.
Run ofPipelinePlan(const QString &which, const char *name, const std::string &digest)
{
    QTemporaryDir dir;
    const QString measured = writeFile(dir, name, pipelineMeasurement(digest));
    return cli(command(which, runtimeData("pipeline.plan.json"), measured, dir));
}

void addCommands()
{
    QTest::addColumn<QString>("which");
    QTest::newRow("evaluate --measured") << QStringLiteral("evaluate");
    QTest::newRow("calibrate") << QStringLiteral("calibrate");
}

Measurement oneRank(int rank, const std::string &digest)
{
    Measurement m;
    m.run.planFile = "p.json";
    m.run.planDigest = digest;
    m.run.iterations = 1;
    m.run.globalBatch = 2;
    m.run.seqLen = 4;
    m.loss = {1.0};
    MeasuredRank r;
    r.rank = rank;
    r.gpu = "A:0";
    r.stage = rank;
    RankIteration it;
    it.wallS = 1;
    it.breakdown.computeS = 1;
    r.iterations = {it};
    m.ranks = {r};
    return m;
}

} // namespace

class TestMeasuredPlan : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // Names, provenance and how the JSON is written do not change the digest; the layout does.
    void digestIsTheLayout()
    {
        const QByteArray text = contentOf(runtimeData("pipeline.plan.json"));
        const Plan plan = planOf(text);
        const std::string digest = planDigest(plan, caseStudy());
        QCOMPARE(digest.size(), std::size_t(16));

        nlohmann::json j = nlohmann::json::parse(text.toStdString());
        j["planner"] = "another-planner";
        j["cost_model"] = "hexiscale";
        const QByteArray renamed = QByteArray::fromStdString(j.dump(7));
        QCOMPARE(planDigest(planOf(renamed), caseStudy()), digest);
        QCOMPARE(planDigest(planOf(QByteArray::fromStdString(writePlan(plan, caseStudy()))),
                            caseStudy()),
                 digest);

        QByteArray layers = text;
        layers.replace("\"layers\": [0, 2]", "\"layers\": [0, 1]")
            .replace("\"layers\": [2, 4]", "\"layers\": [1, 4]");
        QVERIFY(planDigest(planOf(layers), caseStudy()) != digest);
        QByteArray gpus = text;
        gpus.replace("\"B:0\"", "\"C:0\"");
        QVERIFY(planDigest(planOf(gpus), caseStudy()) != digest);
        QVERIFY(digestOf("one-stage.plan.json") != digest);
        QVERIFY(digestOf("tp2-tp1.plan.json") != digest);
    }

    // The digest is written and read back; a file without one still loads.
    void measurementFileKeepsTheDigest()
    {
        const std::string digest = digestOf("pipeline.plan.json");
        auto read = parseMeasurement(pipelineMeasurement(digest).toStdString(), "m.json");
        QVERIFY2(read, read ? "" : read.error().message.c_str());
        QCOMPARE(read->run.planDigest, digest);
        auto again = parseMeasurement(writeMeasurement(*read), "again.json");
        QVERIFY2(again, again ? "" : again.error().message.c_str());
        QCOMPARE(again->run.planDigest, digest);

        auto old = parseMeasurement(pipelineMeasurement({}).toStdString(), "old.json");
        QVERIFY2(old, old ? "" : old.error().message.c_str());
        QVERIFY(old->run.planDigest.empty());
        QVERIFY(writeMeasurement(*old).find("plan_digest") == std::string::npos);
    }

    void ranksOfDifferentPlansDoNotMerge()
    {
        auto merged = mergeRankMeasurements(
            {oneRank(0, "00000000000000aa"), oneRank(1, "00000000000000bb")});
        QVERIFY(!merged);
        QVERIFY2(merged.error().message.find("different plans") != std::string::npos,
                 merged.error().message.c_str());
        auto same = mergeRankMeasurements(
            {oneRank(0, "00000000000000aa"), oneRank(1, "00000000000000aa")});
        QVERIFY2(same, same ? "" : same.error().message.c_str());
        QCOMPARE(same->run.planDigest, std::string("00000000000000aa"));
    }

    // A run of pipeline.plan.json (two stages) against one-stage.plan.json: same model, batch
    // and sequence length, another layout.
    void measurementOfAnotherPlanIsRefused_data() { addCommands(); }
    void measurementOfAnotherPlanIsRefused()
    {
        QFETCH(QString, which);
        QTemporaryDir dir;
        const QString measured
            = writeFile(dir, "m.json", pipelineMeasurement(digestOf("pipeline.plan.json")));
        const Run run = cli(command(which, runtimeData("one-stage.plan.json"), measured, dir));
        QCOMPARE(run.exitCode, 2);
        const QByteArray expected
            = "measured plan digest " + QByteArray::fromStdString(digestOf("pipeline.plan.json"))
              + ", this plan " + QByteArray::fromStdString(digestOf("one-stage.plan.json"));
        QVERIFY2(run.err.contains(expected), run.err.constData());
        QVERIFY2(run.err.contains("m.json") && run.err.contains("one-stage.plan.json"),
                 run.err.constData());
        QVERIFY2(
            run.err.contains("pipeline 0 has 2 stages in the measurement's plan, 1 in this one"),
            run.err.constData());
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("calibrated.json"))));
    }

    void measurementOfThePlanIsAccepted_data() { addCommands(); }
    void measurementOfThePlanIsAccepted()
    {
        QFETCH(QString, which);
        const Run run = ofPipelinePlan(which, "m.json", digestOf("pipeline.plan.json"));
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QVERIFY2(!run.err.contains("warning"), run.err.constData());
    }

    // A measurement written before the digest was recorded is still compared, with a warning.
    void measurementWithoutDigestWarns_data() { addCommands(); }
    void measurementWithoutDigestWarns()
    {
        QFETCH(QString, which);
        const Run run = ofPipelinePlan(which, "old.json", {});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QVERIFY2(run.err.contains("warning: ") && run.err.contains("old.json")
                     && run.err.contains("cannot be checked"),
                 run.err.constData());
    }

    // `calibrate --measured A --measured B`: several runs at once, each checked against its own
    // plan; one of another plan is refused by its name.
    void calibrateChecksEachMeasurementAgainstItsPlan()
    {
        QTemporaryDir dir;
        const QString pipeline = runtimeData("pipeline.plan.json");
        const QString first
            = writeFile(dir, "first.json", pipelineMeasurement(digestOf("pipeline.plan.json")));
        const QString second
            = writeFile(dir, "second.json", pipelineMeasurement(digestOf("pipeline.plan.json")));
        const QString other
            = writeFile(dir, "other.json", pipelineMeasurement(digestOf("one-stage.plan.json")));
        const auto calibrateBoth = [&](const QString &a, const QString &b) {
            return cli({QStringLiteral("calibrate"), QStringLiteral("--cluster"),
                        QStringLiteral("case-study"), QStringLiteral("--model"),
                        runtimeData("tiny.model.json"), QStringLiteral("--plan"),
                        pipeline + u',' + pipeline, QStringLiteral("--measured"), a,
                        QStringLiteral("--measured"), b, QStringLiteral("--out"),
                        dir.filePath(QStringLiteral("calibrated.json"))});
        };
        const Run both = calibrateBoth(first, second);
        QVERIFY2(both.exitCode == 0, both.err.constData());
        // CPU ranks ran the case study's GPU plan: every figure is kept, and says why.
        QVERIFY2(both.out.contains("did not run"), both.out.constData());
        QVERIFY2(both.out.contains("second.json p0 s1 compute"), both.out.constData());
        QFile::remove(dir.filePath(QStringLiteral("calibrated.json")));
        const Run mixed = calibrateBoth(first, other);
        QCOMPARE(mixed.exitCode, 2);
        QVERIFY2(mixed.err.contains("other.json") && !mixed.err.contains("first.json"),
                 mixed.err.constData());
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("calibrated.json"))));
    }

    void evaluateHelpMentionsMeasured()
    {
        const Run run = cli({"evaluate", "--help"});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.out.contains("--measured MEASUREMENT"), run.out.constData());
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestMeasuredPlan)
#include "tst_measured_plan.moc"
