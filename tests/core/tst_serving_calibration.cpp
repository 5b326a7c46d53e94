// Calibration from a serving measurement: a run whose replica on A served as if A's GPUs had
// 20 % of their achieved fraction and a tenth of their memory bandwidth is simulated far off
// by the cluster as written; after calibrating from that one run, the simulation matches its
// phases, the fitted figures carry uncertainties, and a held-out run (other arrivals) has its
// p50 latency within 20 % of the calibrated simulator. A CPU run of GPU types moves nothing.
#include "core/calibrate/serving_calibration.h"
#include "core/catalog/catalog.h"
#include "core/cost/cost_model.h"
#include "core/io/catalog_json.h"
#include "core/io/files.h"
#include "core/io/formats.h"
#include "core/io/loaders.h"
#include "core/model/topology.h"
#include "core/serving/request_sim.h"
#include "core/serving/serving_comparison.h"
#include "core/serving/serving_phases.h"
#include "tests/test_registry.h"

#include <QtTest>

#include <cmath>

using namespace hetplan;

namespace {

const std::string kData = HETPLAN_SOURCE_DIR "/tests/runtime/data/";

// `count` requests of 8 + 8 tokens arriving every `gapS`, alternately on replicas 0 and 1.
std::vector<ServingRequest> requests(int count, double gapS)
{
    std::vector<ServingRequest> list;
    for (int i = 0; i < count; ++i)
        list.push_back({i, i * gapS, 8, 8, i % 2});
    return list;
}

struct Fixture
{
    Cluster cluster;
    Cluster truth; // A's GPU type slower than the cluster says
    ServingCalibrationRun run;
    CostModel costModel{CostModelKind::HetPlan};
};

// What `cluster` makes of `stream` served as `run` serves.
ServingMeasurement served(const Cluster &cluster, const ServingCalibrationRun &run,
                          const CostModel &costModel, const std::vector<ServingRequest> &stream)
{
    const Topology topology = Topology::build(cluster, builtinGpuCatalog()).value();
    ServingMeasurement m;
    m.run.backend = BackendKind::Cuda; // the case study's GPU types served it
    m.run.promptTokens = 8;
    m.run.outputTokens = 8;
    m.run.batch = run.workload.infer.batch;
    m.run.sloS = 10;
    m.replicas.resize(run.plan.pipelines.size());
    m.requests = simulateRequests(
        stream, servingPhases({topology, run.model, run.workload}, costModel, run.plan, stream), 0);
    summarizeMeasurement(m);
    return m;
}

Fixture fixture()
{
    Fixture f;
    f.cluster = loadCluster("case-study").value();
    const Topology topology = Topology::build(f.cluster, builtinGpuCatalog()).value();
    f.run.source = "served.json";
    f.run.plan = parsePlan(readTextFile(kData + "serving.plan.json").value(), "serving.plan.json",
                           topology)
                     .value();
    f.run.model = loadModel(kData + "tiny.model.json").value();
    f.run.workload = f.run.plan.workload;
    f.truth = f.cluster;
    GpuType slower = topology.gpuType(f.run.plan.pipelines[0].stages[0].gpus[0]);
    slower.achievedFraction *= 0.2;
    slower.memoryBandwidthGBps *= 0.1;
    std::erase_if(f.truth.gpuTypes, [&](const GpuType &t) { return t.name == slower.name; });
    f.truth.gpuTypes.push_back(slower);
    f.run.measured = served(f.truth, f.run, f.costModel, requests(40, 0.5));
    return f;
}

double p50Error(const Cluster &cluster, const ServingCalibrationRun &run, const CostModel &model,
                const ServingMeasurement &measured)
{
    const Topology topology = Topology::build(cluster, builtinGpuCatalog()).value();
    const Problem problem{topology, run.model, run.workload};
    const ServingComparison c
        = compareServing(measured, servingPhases(problem, model, run.plan, requestsOf(measured)));
    return std::abs(c.latencyP50S.relativeError());
}

} // namespace

class TestServingCalibration : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void fitsTheReplicasPhases()
    {
        const Fixture f = fixture();
        auto c = calibrateServing(f.cluster, builtinGpuCatalog(), f.costModel, {&f.run, 1});
        QVERIFY2(c.ok(), c.ok() ? "" : c.error().message.c_str());
        QVERIFY2(c->rmsLogErrorBefore > 0.3, qPrintable(QString::number(c->rmsLogErrorBefore)));
        QVERIFY2(c->rmsLogErrorAfter < 0.02, qPrintable(QString::number(c->rmsLogErrorAfter)));
        QVERIFY(!c->phases.empty());
        int fitted = 0;
        for (const FittedFigure &figure : c->figures)
            if (figure.verdict == FigureVerdict::Fitted) {
                ++fitted;
                QVERIFY2(std::isfinite(figure.standardError) && figure.standardError >= 0,
                         figure.field.c_str());
                QVERIFY(figure.field.starts_with("/gpu_types/"));
            }
        for (const FittedFigure &figure : c->figures)
            qInfo("%s: %g -> %g ± %g (%d phases)", figure.field.c_str(), figure.before,
                  figure.after, figure.standardError, figure.observations);
        QVERIFY(fitted > 0);
        QCOMPARE(c->cluster.calibration.figures.size(), std::size_t(fitted));

        // Held out: other arrivals, twice as dense, on the same replicas.
        const ServingMeasurement heldOut = served(f.truth, f.run, f.costModel, requests(40, 0.25));
        const double before = p50Error(f.cluster, f.run, f.costModel, heldOut);
        const double after = p50Error(c->cluster, f.run, f.costModel, heldOut);
        qInfo("held-out p50 latency error: %.1f %% before, %.1f %% after calibration", before * 100,
              after * 100);
        QVERIFY2(after < 0.2, qPrintable(QString::number(after)));
        QVERIFY2(before > 0.2, qPrintable(QString::number(before)));
    }

    // A CPU run stands in for the plan's GPUs: it moves none of their figures.
    void cpuRunOfGpuTypesIsRefused()
    {
        Fixture f = fixture();
        f.run.measured.run.backend = BackendKind::Gloo;
        auto c = calibrateServing(f.cluster, builtinGpuCatalog(), f.costModel, {&f.run, 1});
        QVERIFY(!c.ok());
        QVERIFY2(c.error().message.find("CPU types only") != std::string::npos,
                 c.error().message.c_str());
    }

    void runWithoutCompletedRequestsIsRefused()
    {
        Fixture f = fixture();
        for (ServedRequest &s : f.run.measured.requests) {
            s.completed = false;
            s.failure = "cancelled";
        }
        summarizeMeasurement(f.run.measured);
        auto c = calibrateServing(f.cluster, builtinGpuCatalog(), f.costModel, {&f.run, 1});
        QVERIFY(!c.ok());
        QVERIFY2(c.error().message.starts_with("served.json: "), c.error().message.c_str());
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestServingCalibration)
#include "tst_serving_calibration.moc"
