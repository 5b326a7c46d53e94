// The Serving tab's measured part (docs/app-launch.md, "Serving runs"): a serving run of the
// shown plan beside the simulation of its requests, with the simulation's 90 % interval: the
// latency CDF of both, per replica prefill, time per output token and queueing of both, SLO
// attainment, failed requests with their reason; a run of another plan is refused by its digest,
// read from a file as `evaluate --measured` reads it. The predicted replica latencies carry
// their interval too.
#include "core/io/catalog_json.h"
#include "core/io/files.h"
#include "core/io/formats.h"
#include "core/io/loaders.h"
#include "core/io/serving_measurement_json.h"
#include "core/plan/plan_digest.h"
#include "core/serving/request_sim.h"
#include "core/serving/serving_stream.h"
#include "result_value.h"
#include "results/qcustomplot_include.h"
#include "results/served_run_view.h"
#include "results/serving_view.h"
#include "runtime/worker/served_run.h"
#include "tests/test_registry.h"
#include "window_test_support.h"

#include <QAction>
#include <QFile>
#include <QFileDialog>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QTemporaryDir>
#include <QTest>

using namespace hetplan;
using namespace hetplan::gui;
using hetplan::gui::test::valueOf;
using hetplan::gui::test::whenModal;

namespace {

const std::string kData = HETPLAN_SOURCE_DIR "/tests/runtime/data/";

// The runtime's two-replica serving plan (one stage; two stages) of the tiny model.
ShownPlan servingPlan()
{
    auto topology
        = valueOf(Topology::build(valueOf(loadCluster("case-study")), builtinGpuCatalog()));
    const std::string path = kData + "serving.plan.json";
    Plan plan = valueOf(parsePlan(valueOf(readTextFile(path)), path, topology));
    ModelSpec model = valueOf(loadModel(kData + "tiny.model.json"));
    auto problem = std::make_shared<const Problem>(Problem{topology, model, plan.workload});
    const Evaluation evaluation = makeCostModel(CostModelKind::HetPlan)->evaluate(*problem, plan);
    return {problem, std::move(plan), evaluation};
}

// A run of `shown` whose replicas were `factor` times slower than the simulation predicts: 40
// Poisson requests, the first 4 warm-up, request 30 failed because its replica died.
ServingMeasurement runOf(const ShownPlan &shown, double factor)
{
    ServingMeasurement m;
    m.run.backend = BackendKind::Gloo;
    m.run.planFile = "serving.plan.json";
    m.run.planDigest = planDigest(shown.plan, shown.problem->topology);
    m.run.model = shown.problem->model.name;
    m.run.promptTokens = 8;
    m.run.outputTokens = 8;
    m.run.batch = 2;
    m.run.requestRatePerS = 20;
    m.run.sloS = 0.05;
    m.run.warmupRequests = 4;
    m.run.hosts = {"localhost"};
    PoissonStream stream;
    stream.ratePerS = 20;
    stream.requests = 40;
    stream.promptTokens = 8;
    stream.outputTokens = 8;
    std::vector<ServingRequest> requests = poissonRequests(stream);
    dispatchRequests(requests, std::vector<double>{1.0, 1.0});
    const CostModel costModel(CostModelKind::HetPlan);
    const Problem asRun = valueOf(runtime::servedProblem(*shown.problem, m, "run"));
    ServingPhases phases = servingPhases(asRun, costModel, shown.plan, requests);
    for (ReplicaPhases &replica : phases.replicas) {
        for (auto &[prompt, seconds] : replica.prefillS)
            seconds *= factor;
        for (double &seconds : replica.decodeSPerToken)
            seconds *= factor;
    }
    m.requests = simulateRequests(requests, phases, m.run.warmupRequests);
    ServedRequest &lost = m.requests[30];
    lost.completed = false;
    lost.outputTokens = 1;
    lost.finishS = lost.firstTokenS;
    lost.failure = "replica died";
    m.replicas.resize(2);
    m.replicas[0].gpus = {"A:0"};
    m.replicas[0].ranks = {0};
    m.replicas[1].gpus = {"B:0", "B:1"};
    m.replicas[1].ranks = {1, 2};
    summarizeMeasurement(m);
    return m;
}

} // namespace

class TestServingRunView : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void measuredBesideSimulated()
    {
        const ShownPlan shown = servingPlan();
        ServingView view;
        view.resize(1200, 700);
        view.setPlan(shown);
        // The prediction: each replica's latency with its 90 % interval.
        QCOMPARE(view.latencyInterval()->data()->size(), 2);
        QVERIFY(view.findChild<QLabel *>(QStringLiteral("servingSummary"))
                    ->text()
                    .contains(QStringLiteral("90 % interval: latency p50 ")));
        QVERIFY(view.latencyInterval()->data()->at(0).errorPlus > 0);

        ServedRunView *served = view.servedRunView();
        QVERIFY(!served->hasComparison());
        QVERIFY(served->openButton()->isEnabled());
        const ServingMeasurement run = runOf(shown, 1.3);
        QVERIFY2(served->showRun(run, QStringLiteral("served.json")),
                 qPrintable(served->message()));
        QVERIFY(served->cdfPlot()->isVisibleTo(&view));

        // Per replica: the measured bars 1.3× the simulated ones, inside the simulation's
        // (catalog-wide) interval.
        for (auto figure : {ServedRunView::Prefill, ServedRunView::PerToken}) {
            QCOMPARE(served->simulatedBars(figure)->data()->size(), 2);
            QCOMPARE(served->measuredBars(figure)->data()->size(), 2);
            for (int r = 0; r < 2; ++r) {
                const double simulated = served->simulatedBars(figure)->data()->at(r)->value;
                const double measured = served->measuredBars(figure)->data()->at(r)->value;
                QVERIFY(simulated > 0);
                QVERIFY2(std::abs(measured / simulated - 1.3) < 0.05,
                         qPrintable(QString::number(measured / simulated)));
                QVERIFY(served->intervalBars(figure)->data()->at(r).errorPlus > 0);
            }
        }
        QCOMPARE(served->measuredBars(ServedRunView::Queueing)->data()->size(), 2);
        // The CDFs: one point per measured completed request (35 of 36), plus the origin and
        // the right edge; the failed request keeps the measured curve below 100 %.
        QCOMPARE(served->measuredCdf()->data()->size(), 35 + 2);
        QCOMPARE(served->simulatedCdf()->data()->size(), 36 + 2);
        QVERIFY((served->measuredCdf()->data()->constEnd() - 1)->value < 100);
        QCOMPARE((served->simulatedCdf()->data()->constEnd() - 1)->value, 100.0);
        // Slower replicas finish later: the measured median is right of the simulated one.
        const ServingComparison &c = *served->comparison();
        QVERIFY(c.latencyP50S.measured > c.latencyP50S.simulated);
        const QString text = served->message();
        QVERIFY2(text.contains(QStringLiteral("SLO attainment")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral(": 1 of its requests failed: replica died")),
                 qPrintable(text));
        QVERIFY(text.contains(QStringLiteral("the first 4 are warm-up")));
        QVERIFY(text.contains(QStringLiteral("90 %")));
    }

    // From a file, as hetplan-cli run writes it; a run of another plan is refused by its digest
    // and shows nothing; showing another plan refuses the run shown.
    void readsAFileAndRefusesAnotherPlan()
    {
        const ShownPlan shown = servingPlan();
        ServingView view;
        view.setPlan(shown);
        ServedRunView *served = view.servedRunView();
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("serving-measurement.json"));
        QVERIFY(writeFileAtomic(QFile::encodeName(path).toStdString(),
                                writeServingMeasurement(runOf(shown, 1.0))));
        QVERIFY2(served->openFile(path), qPrintable(served->message()));
        QVERIFY(served->hasComparison());
        // As simulated (request 30, the failed one, is replica 0's).
        QVERIFY(std::abs(served->comparison()->replicas[1].prefillS.relativeError()) < 1e-6);
        QVERIFY(std::abs(served->comparison()->replicas[1].tpotS.relativeError()) < 1e-6);

        ServingMeasurement other = runOf(shown, 1.0);
        other.run.planDigest = "0000000000000000";
        QVERIFY(!served->showRun(other, QStringLiteral("other.json")));
        QVERIFY(!served->hasComparison());
        QVERIFY(!served->cdfPlot()->isVisibleTo(&view));
        QVERIFY2(served->message().contains(QStringLiteral("other.json is a run of another plan")),
                 qPrintable(served->message()));

        QVERIFY(served->openFile(path));
        ShownPlan changed = shown;
        std::swap(changed.plan.pipelines[0], changed.plan.pipelines[1]);
        view.setPlan(changed);
        QVERIFY(!served->hasComparison());
        QVERIFY(served->message().contains(QStringLiteral("another plan")));

        QVERIFY(!served->openFile(dir.filePath(QStringLiteral("missing.json"))));
        QVERIFY(served->message().contains(QStringLiteral("missing.json")));
        // Nothing of the run before comes back with its plan.
        view.setPlan(shown);
        QVERIFY(!served->hasComparison());
    }

    // Save Serving Run…: a launched run (held by the window only) saved and opened again shows
    // the same; a save into a folder that does not exist is refused, saying so, and the run
    // shown stays.
    void savesTheRunAndOpensItAgain()
    {
        const ShownPlan shown = servingPlan();
        ServingView view;
        view.setPlan(shown);
        ServedRunView *served = view.servedRunView();
        QVERIFY(!served->saveAction()->isEnabled());
        const ServingMeasurement run = runOf(shown, 1.3);
        QVERIFY(served->showRun(run, QStringLiteral("the launched run")));
        QVERIFY(served->saveAction()->isEnabled());
        const ServingComparison launched = *served->comparison();

        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("saved.json"));
        bool asked = false;
        whenModal<QFileDialog>(&view, [&](QFileDialog *dialog) {
            asked = true;
            dialog->selectFile(path);
            static_cast<QDialog *>(dialog)->accept();
        });
        served->saveAction()->trigger();
        QVERIFY(asked);
        QVERIFY2(served->message().contains(QStringLiteral("Serving run saved.json")),
                 qPrintable(served->message()));

        ServingView reopened;
        reopened.setPlan(shown);
        ServedRunView *opened = reopened.servedRunView();
        QVERIFY2(opened->openFile(path), qPrintable(opened->message()));
        QCOMPARE(opened->message(), served->message());
        QCOMPARE(writeServingMeasurement(
                     valueOf(loadServingMeasurement(QFile::encodeName(path).toStdString()))),
                 writeServingMeasurement(run));
        const ServingComparison &again = *opened->comparison();
        QCOMPARE(again.latencyP50S.measured, launched.latencyP50S.measured);
        QCOMPARE(again.attainment.measured, launched.attainment.measured);
        QCOMPARE(again.replicas.size(), launched.replicas.size());
        for (std::size_t r = 0; r < again.replicas.size(); ++r)
            QCOMPARE(again.replicas[r].tpotS.measured, launched.replicas[r].tpotS.measured);
        QCOMPARE(opened->measuredCdf()->data()->size(), served->measuredCdf()->data()->size());

        const QString shownText = served->message();
        const QString bad = dir.filePath(QStringLiteral("missing/served.json"));
        whenModal<QFileDialog>(&view, [&](QFileDialog *dialog) {
            dialog->selectFile(bad);
            static_cast<QDialog *>(dialog)->accept();
        });
        QString refusal;
        whenModal<QMessageBox>(&view, [&](QMessageBox *box) {
            refusal = box->text();
            box->accept();
        });
        served->saveAction()->trigger();
        QVERIFY2(refusal.contains(QStringLiteral("The serving run was not saved: "))
                     && refusal.contains(bad),
                 qPrintable(refusal));
        QVERIFY(!QFile::exists(bad));
        QVERIFY(served->hasComparison());
        QCOMPARE(served->message(), shownText);
        QVERIFY(served->saveAction()->isEnabled());
    }
};

HETPLAN_TEST_MAIN(TestServingRunView)
#include "tst_serving_run_view.moc"
