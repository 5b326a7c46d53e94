// `hetplan-cli evaluate --measured` of a serving run: the simulation of the same requests is
// printed beside it (text and --json); a run of another plan, or a training plan, is refused.
#include "core/io/catalog_json.h"
#include "core/io/files.h"
#include "core/io/formats.h"
#include "core/io/loaders.h"
#include "core/io/serving_measurement_json.h"
#include "core/model/topology.h"
#include "core/plan/plan_digest.h"
#include "core/serving/request_sim.h"
#include "core/serving/serving_stream.h"
#include "tests/core/cli_runner.h"
#include "tests/test_registry.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

using namespace hetplan;
using hetplan::test::cli;
using hetplan::test::writeFile;

namespace {

const QString kPlan = QStringLiteral(HETPLAN_SOURCE_DIR
                                     "/resources/examples/hexgen-full-price-appendix-f.plan.json");
const QString kTrainingPlan
    = QStringLiteral(HETPLAN_SOURCE_DIR "/resources/examples/hetero-setting-3-metis.plan.json");

// A serving run of the Appendix F plan (12 replicas) as a runtime would write it: 40 Poisson
// requests over every replica, served with round times, 4 of them warm-up.
std::string servingRun(const std::string &digestOverride = {}, int scale = 1)
{
    const Topology topology
        = Topology::build(loadCluster("hexgen-full-price").value(), builtinGpuCatalog()).value();
    const auto text = hetplan::readTextFile(kPlan.toStdString());
    const Plan plan = parsePlan(*text, "plan", topology).value();

    PoissonStream stream;
    stream.ratePerS = 2;
    stream.requests = 40;
    stream.promptTokens = 32;
    stream.outputTokens = 8;
    std::vector<ServingRequest> requests = poissonRequests(stream);
    dispatchRequests(requests, std::vector<double>(plan.pipelines.size(), 1.0));
    ServingPhases phases;
    phases.batch = 1;
    for (std::size_t p = 0; p < plan.pipelines.size(); ++p)
        phases.replicas.push_back({true, {{32, 0.5}}, {0.05}});

    ServingMeasurement m;
    m.run.planFile = kPlan.toStdString();
    m.run.planDigest = digestOverride.empty() ? planDigest(plan, topology) : digestOverride;
    m.run.model = "llama2-70b";
    m.run.scale = scale;
    m.run.promptTokens = 32;
    m.run.outputTokens = 8;
    m.run.requestRatePerS = 2;
    m.run.sloS = 2;
    m.run.warmupRequests = 4;
    m.run.hosts = {"localhost"};
    m.requests = simulateRequests(requests, phases, m.run.warmupRequests);
    m.replicas.resize(plan.pipelines.size());
    int rank = 0;
    for (std::size_t p = 0; p < plan.pipelines.size(); ++p)
        for (const Stage &stage : plan.pipelines[p].stages)
            for (int gpu : stage.gpus) {
                m.replicas[p].gpus.push_back(topology.gpu(gpu).name);
                m.replicas[p].ranks.push_back(rank++);
            }
    summarizeMeasurement(m);
    return writeServingMeasurement(m);
}

QByteArray bytes(const std::string &text)
{
    return QByteArray::fromStdString(text);
}

} // namespace

class TestServingEvaluate : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void printsSimulatedBesideMeasured()
    {
        QTemporaryDir dir;
        const QString measured = writeFile(dir, "served.json", bytes(servingRun()));
        const auto run
            = cli({"evaluate", "--plan"}, {kPlan, QStringLiteral("--measured"), measured});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const QString out = QString::fromUtf8(run.out);
        QVERIFY2(out.contains(QStringLiteral("simulated beside measured for the same requests")),
                 qPrintable(out));
        QVERIFY(out.contains(
            QStringLiteral("40 requests: 40 completed, 0 failed; the first 4 are warm-up")));
        QVERIFY(out.contains(QStringLiteral("replica 11 per token")));
        QVERIFY(out.contains(QStringLiteral("latency p99")));
        QVERIFY(out.contains(QStringLiteral("SLO attainment")));

        const auto json = cli({"evaluate", "--json", "--plan"},
                              {kPlan, QStringLiteral("--measured"), measured});
        QVERIFY2(json.exitCode == 0, json.err.constData());
        const QJsonObject report = QJsonDocument::fromJson(json.out).object();
        const QJsonObject comparison
            = report.value(QStringLiteral("serving_comparison")).toObject();
        QCOMPARE(comparison.value(QStringLiteral("replicas")).toArray().size(), 12);
        QCOMPARE(comparison.value(QStringLiteral("simulated_completed")).toInt(), 40);
        QVERIFY(comparison.value(QStringLiteral("latency_p50_s"))
                    .toObject()
                    .value(QStringLiteral("measured"))
                    .toDouble()
                > 0);
        QVERIFY(report.contains(QStringLiteral("workload")));
        // Every figure carries the simulation's 90 % interval around it; the Appendix F cluster
        // has catalog figures only, so it is wide.
        QVERIFY2(out.contains(QStringLiteral("90 % interval")), qPrintable(out));
        QVERIFY(out.contains(QStringLiteral("time to first token p99")));
        for (const char *name : {"ttft_p50_s", "ttft_p99_s", "tpot_p90_s", "latency_p99_s"}) {
            const QJsonObject figure = comparison.value(QLatin1String(name)).toObject();
            const QJsonArray interval = figure.value(QStringLiteral("interval")).toArray();
            QCOMPARE(interval.size(), 2);
            const double simulated = figure.value(QStringLiteral("simulated")).toDouble();
            QVERIFY2(interval.at(0).toDouble() < simulated, name);
            QVERIFY2(simulated < interval.at(1).toDouble(), name);
        }
    }

    // Without a measurement: each replica's prefill and decode step beside its latency.
    void printsThePhases()
    {
        const auto run = cli({"evaluate", "--plan"}, {kPlan});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QVERIFY(run.out.contains("the phases of its latency"));
        QVERIFY(run.out.contains("replica 11"));
        const auto json = cli({"evaluate", "--json", "--plan"}, {kPlan});
        const QJsonArray phases = QJsonDocument::fromJson(json.out)
                                      .object()
                                      .value(QStringLiteral("serving_phases"))
                                      .toArray();
        QCOMPARE(phases.size(), 12);
        const QJsonObject first = phases.at(0).toObject();
        QVERIFY(first.value(QStringLiteral("prefill_s")).toDouble() > 0);
        QCOMPARE(first.value(QStringLiteral("decode_s_per_token")).toArray().size(), 1);
        const QJsonArray factors = first.value(QStringLiteral("interval_factors")).toArray();
        QCOMPARE(factors.size(), 2);
        QVERIFY(factors.at(0).toDouble() < 1 && factors.at(1).toDouble() > 1);
        QVERIFY(run.out.contains("90 %: "));
        // The stream's percentiles and attainment with the replicas' latencies at both ends of
        // their interval (catalog figures: wide).
        QVERIFY2(run.out.contains("90 % interval") && run.out.contains("latency p50 "),
                 run.out.constData());
        const QJsonObject interval = QJsonDocument::fromJson(json.out)
                                         .object()
                                         .value(QStringLiteral("serving_interval"))
                                         .toObject();
        for (const char *name : {"latency_p50_s", "latency_p99_s"}) {
            const QJsonArray ends = interval.value(QLatin1String(name)).toArray();
            QCOMPARE(ends.size(), 2);
            QVERIFY2(0 < ends.at(0).toDouble() && ends.at(0).toDouble() < ends.at(1).toDouble(),
                     name);
        }
        const QJsonArray attained = interval.value(QStringLiteral("attainment")).toArray();
        QVERIFY(attained.at(0).toDouble() <= attained.at(1).toDouble());
    }

    // A CPU run shrinks the model by --scale (docs/runtime-model.md): the simulation predicts
    // that model; a scale the model cannot take is refused, naming the field.
    void scaledRun()
    {
        QTemporaryDir dir;
        const QString scaled = writeFile(dir, "scaled.json", bytes(servingRun({}, 16)));
        const auto run = cli({"evaluate", "--plan"}, {kPlan, QStringLiteral("--measured"), scaled});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QVERIFY(run.out.contains("scale 16"));
        const QString odd = writeFile(dir, "odd.json", bytes(servingRun({}, 3)));
        const auto refused
            = cli({"evaluate", "--plan"}, {kPlan, QStringLiteral("--measured"), odd});
        QCOMPARE(refused.exitCode, 2);
        QVERIFY2(refused.err.contains("odd.json: run.scale"), refused.err.constData());
    }

    void refusesAnotherPlan()
    {
        QTemporaryDir dir;
        const QString measured
            = writeFile(dir, "served.json", bytes(servingRun("0000000000000000")));
        const auto run
            = cli({"evaluate", "--plan"}, {kPlan, QStringLiteral("--measured"), measured});
        QCOMPARE(run.exitCode, 2);
        const QString err = QString::fromUtf8(run.err);
        QVERIFY2(err.contains(QStringLiteral("served.json is a run of another plan than")),
                 qPrintable(err));
        QVERIFY2(err.contains(QStringLiteral("the same GPUs per replica")), qPrintable(err));
    }

    void refusesATrainingPlan()
    {
        QTemporaryDir dir;
        const QString measured = writeFile(dir, "served.json", bytes(servingRun()));
        const auto run
            = cli({"evaluate", "--plan"}, {kTrainingPlan, QStringLiteral("--measured"), measured});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("is a serving run"), run.err.constData());
    }

    void validateReadsIt()
    {
        QTemporaryDir dir;
        const QString measured = writeFile(dir, "served.json", bytes(servingRun()));
        const auto run = cli({"validate"}, {measured});
        QVERIFY2(run.exitCode == 0, run.err.constData());
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestServingEvaluate)
#include "tst_serving_evaluate.moc"
