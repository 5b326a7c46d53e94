// Tools ▸ Calibrate from measurement… and calibrateFromRun (docs/calibration.md, "In the app"):
// a run of the shown plan is fitted in the background, previewed (each figure before → after ±
// its uncertainty, what it touches, the plan's time before → after), and on Apply becomes one
// undoable edit of the cluster and the plan, and the breakdown chart's predicted, measured and
// calibrated bars; Cancel, a run of another plan, a CPU rehearsal of the GPU plan, an edit made
// while it runs, or closing the window change nothing.
#include "core/cost/cost_model.h"
#include "core/cost/rank_phases.h"
#include "core/io/catalog_json.h"
#include "core/plan/plan_digest.h"
#include "model/cluster_model.h"
#include "model/document.h"
#include "results/breakdown_chart.h"
#include "results/calibration_preview.h"
#include "results/calibrator.h"
#include "results/results_text.h"
#include "runtime/worker/measured_run.h"
#include "tests/test_registry.h"
#include "window_test_support.h"

#include <QLabel>
#include <QLocale>
#include <QMenuBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTest>
#include <QUndoStack>

using namespace hetplan;
using namespace hetplan::gui;
using namespace hetplan::gui::test;

namespace {

// What a GPU run of the shown plan at scale 1 would measure if every GPU type reached
// `fraction` of its peak: the cost model's own per-stage times for that cluster.
Measurement runAt(const ShownPlan &shown, double fraction)
{
    Measurement m;
    m.run.backend = BackendKind::Cuda;
    m.run.planDigest = planDigest(shown.plan, shown.problem->topology);
    m.run.model = shown.problem->model.name;
    m.run.scale = 1;
    m.run.seqLen = shown.plan.workload.train.seqLen;
    for (const Pipeline &p : shown.plan.pipelines)
        m.run.globalBatch += p.microBatch * p.microBatches;
    const auto run = runtime::measuredRun(shown.plan, shown.problem->model, m, "truth");
    if (!run)
        qFatal("%s", run.error().message.c_str());
    Cluster truth = shown.problem->topology.cluster();
    for (int g = 0; g < shown.problem->topology.gpuCount(); ++g) {
        GpuType type = shown.problem->topology.gpuType(g);
        type.achievedFraction = fraction;
        if (std::none_of(truth.gpuTypes.begin(), truth.gpuTypes.end(),
                         [&](const GpuType &t) { return t.name == type.name; }))
            truth.gpuTypes.push_back(type);
    }
    auto topology = Topology::build(truth, builtinGpuCatalog());
    const Problem problem{*topology, run->model, run->workload};
    const Evaluation e = CostModel(CostModelKind::HetPlan).evaluate(problem, run->plan);
    // Every rank's predicted phases on the truth as its one iteration, summarized as a run's
    // are (core/cost/rank_phases.h).
    m.loss = {0};
    for (const RankPhases &r : planRankPhases(run->plan, e)) {
        MeasuredRank rank;
        rank.rank = r.rank;
        rank.pipeline = r.pipeline;
        rank.stage = r.stage;
        rank.tpIndex = r.tpIndex;
        rank.iterations = {{r.wallS, r.breakdown, r.hops}};
        m.ranks.push_back(rank);
    }
    summarizeMeasurement(m);
    return m;
}

} // namespace

class TestCalibrateApp : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { useTestSettings(); }

    void aRunBecomesOneUndoableEditAndAReplan()
    {
        MainWindow window;
        QVERIFY(window.openExample(QStringLiteral("case-study")));
        QVERIFY(planAndWait(window));
        Calibrator *calibrator = window.calibrator();
        QVERIFY(calibrator);
        // Tools ▸ Calibrate from Measurement… is in the menu bar.
        bool listed = false;
        for (QAction *menu : window.menuBar()->actions())
            if (menu->menu() && menu->menu()->actions().contains(calibrator->action()))
                listed = true;
        QVERIFY(listed);

        ClusterModel *model = window.document()->clusterModel();
        const Cluster before = model->cluster();
        const int steps = model->undoStack()->count();
        const ShownPlan shown = *window.results()->shownPlan();
        const int planBars = window.results()->breakdownChart()->barCount();
        QSignalSpy replanned(window.results(), &ResultsPanel::planShown);
        QSignalSpy calibrated(calibrator, &Calibrator::calibrated);
        QSignalSpy previewed(calibrator, &Calibrator::previewReady);
        QVERIFY(calibrator->calibrateFromRun(runAt(shown, 0.2)));
        // The fit runs off the GUI thread: the call returns at once, and a second is refused
        // until the first is done.
        QCOMPARE(previewed.count(), 0);
        QVERIFY(!calibrator->action()->isEnabled());
        QVERIFY(!calibrator->calibrateFromRun(runAt(shown, 0.2)));
        QVERIFY(previewed.wait(kPlanTimeoutMs));

        // The preview: every figure of the plan's GPU types before → after ± its uncertainty,
        // what it touches, and the plan's time before → after; nothing is changed yet.
        CalibrationPreview *preview = calibrator->preview();
        QVERIFY(preview);
        QCOMPARE(model->cluster(), before);
        QCOMPARE(calibrated.count(), 0);
        QTableWidget *table = preview->table();
        int fractions = 0;
        for (int row = 0; row < table->rowCount(); ++row) {
            const QString field = table->item(row, CalibrationPreview::Figure)->text();
            if (!field.endsWith(QLatin1String("/achieved_fraction")))
                continue;
            ++fractions;
            QVERIFY2(table->item(row, CalibrationPreview::After)
                         ->text()
                         .startsWith(QLocale().toString(0.2, 'g', 1)),
                     qPrintable(table->item(row, CalibrationPreview::After)->text()));
            QVERIFY(table->item(row, CalibrationPreview::Touches)
                        ->text()
                        .contains(QLatin1String("GPU type")));
        }
        QVERIFY(fractions > 0);
        QVERIFY2(
            preview->summary()->text().contains(ResultsText::duration(shown.evaluation.iterationS)),
            qPrintable(preview->summary()->text()));
        preview->applyButton()->click();
        QVERIFY(calibrated.count() > 0 || calibrated.wait(kPlanTimeoutMs));
        QVERIFY(calibrator->action()->isEnabled());

        const Calibration &c = *calibrator->last();
        qInfo("rms log error %.3f -> %.3f", c.rmsLogErrorBefore, c.rmsLogErrorAfter);
        QVERIFY(c.rmsLogErrorAfter < c.rmsLogErrorBefore / 10);
        QCOMPARE(model->undoStack()->count(), steps + 1);
        QVERIFY(model->cluster() != before);
        for (const GpuType &t : model->cluster().gpuTypes)
            QVERIFY2(std::abs(t.achievedFraction - 0.2) < 0.01, t.name.c_str());
        QVERIFY(!model->cluster().origin.empty());
        QVERIFY(replanned.count() > 0 || replanned.wait(kPlanTimeoutMs));
        // The chart: the plan's bars, then the run predicted, measured and calibrated.
        QCOMPARE(window.results()->breakdownChart()->barCount(), planBars + 3);

        QVERIFY(window.results()->shownPlan()->problem->topology.cluster() == model->cluster());

        // One Undo restores the cluster and the plan shown before calibrating.
        model->undoStack()->undo();
        QCOMPARE(model->cluster(), before);
        QVERIFY(window.results()->shownPlan()->plan.pipelines == shown.plan.pipelines);
        QCOMPARE(window.results()->shownPlan()->evaluation.iterationS, shown.evaluation.iterationS);
        QVERIFY(window.results()->shownPlan()->problem->topology.cluster() == before);
    }

    void cancelInThePreviewChangesNothing()
    {
        MainWindow window;
        QVERIFY(window.openExample(QStringLiteral("case-study")));
        QVERIFY(planAndWait(window));
        ClusterModel *model = window.document()->clusterModel();
        const Cluster before = model->cluster();
        const int steps = model->undoStack()->count();
        Calibrator *calibrator = window.calibrator();
        QSignalSpy previewed(calibrator, &Calibrator::previewReady);
        QSignalSpy discarded(calibrator, &Calibrator::discarded);
        QVERIFY(calibrator->calibrateFromRun(runAt(*window.results()->shownPlan(), 0.2)));
        QVERIFY(previewed.wait(kPlanTimeoutMs));
        calibrator->preview()->cancelButton()->click();
        QCOMPARE(discarded.count(), 1);
        QCOMPARE(model->cluster(), before);
        QCOMPARE(model->undoStack()->count(), steps);
        QVERIFY(!calibrator->last());
        QVERIFY(calibrator->action()->isEnabled());
    }

    void aRunOfAnotherPlanIsRefused()
    {
        MainWindow window;
        QVERIFY(window.openExample(QStringLiteral("case-study")));
        QVERIFY(planAndWait(window));
        QSignalSpy failed(window.calibrator(), &Calibrator::failed);
        const int steps = window.document()->clusterModel()->undoStack()->count();
        Measurement other = runAt(*window.results()->shownPlan(), 0.2);
        other.run.planDigest = std::string(other.run.planDigest.size(), '0');
        QVERIFY(!window.calibrator()->calibrateFromRun(other));
        QCOMPARE(failed.count(), 1);
        const QString message = failed.front().front().toString();
        // It names both: the run and the shown plan.
        QVERIFY2(message.contains(QLatin1String("the last launch"))
                     && message.contains(QLatin1String("the shown plan")),
                 qPrintable(message));
        QCOMPARE(window.document()->clusterModel()->undoStack()->count(), steps);
    }

    void aCpuRehearsalChangesNoGpuFigure()
    {
        // CPU ranks rehearsed the plan of the A800 cluster: nothing of that cluster ran, so
        // none of its figures may change.
        MainWindow window;
        QVERIFY(window.openExample(QStringLiteral("case-study")));
        QVERIFY(planAndWait(window));
        ClusterModel *model = window.document()->clusterModel();
        const Cluster before = model->cluster();
        const int steps = model->undoStack()->count();
        QSignalSpy previewed(window.calibrator(), &Calibrator::previewReady);
        Measurement rehearsal = runAt(*window.results()->shownPlan(), 0.2);
        rehearsal.run.backend = BackendKind::Gloo;
        QVERIFY(window.calibrator()->calibrateFromRun(rehearsal));
        QVERIFY(previewed.wait(kPlanTimeoutMs));
        QTableWidget *table = window.calibrator()->preview()->table();
        QVERIFY(table->rowCount() > 0);
        for (int row = 0; row < table->rowCount(); ++row)
            QVERIFY2(table->item(row, CalibrationPreview::Status)
                         ->text()
                         .contains(QLatin1String("did not run")),
                     qPrintable(table->item(row, CalibrationPreview::Figure)->text()));
        window.calibrator()->preview()->applyButton()->click();
        QCOMPARE(model->undoStack()->count(), steps);
        QCOMPARE(model->cluster(), before);
    }

    void anEditWhileItRunsIsKept()
    {
        MainWindow window;
        QVERIFY(window.openExample(QStringLiteral("case-study")));
        QVERIFY(planAndWait(window));
        ClusterModel *model = window.document()->clusterModel();
        const int steps = model->undoStack()->count();
        QSignalSpy failed(window.calibrator(), &Calibrator::failed);
        QVERIFY(window.calibrator()->calibrateFromRun(runAt(*window.results()->shownPlan(), 0.2)));
        QVERIFY(model->setNameAndDescription("edited while calibrating", {}).ok());
        QVERIFY(failed.wait(kPlanTimeoutMs));
        QVERIFY2(failed.front().front().toString().contains(QStringLiteral("changed")),
                 qPrintable(failed.front().front().toString()));
        QCOMPARE(model->cluster().name, std::string("edited while calibrating"));
        QCOMPARE(model->undoStack()->count(), steps + 1);
        QVERIFY(!window.calibrator()->last());
    }

    void closingWhileItRunsIsSafe()
    {
        auto window = std::make_unique<MainWindow>();
        QVERIFY(window->openExample(QStringLiteral("case-study")));
        QVERIFY(planAndWait(*window));
        QVERIFY(
            window->calibrator()->calibrateFromRun(runAt(*window->results()->shownPlan(), 0.2)));
        window.reset(); // cancels and waits for the fit
        QCoreApplication::processEvents();
    }

    void withoutAPlanItSaysWhatToDo()
    {
        MainWindow window;
        QVERIFY(window.openExample(QStringLiteral("case-study")));
        QSignalSpy failed(window.calibrator(), &Calibrator::failed);
        const int steps = window.document()->clusterModel()->undoStack()->count();
        QVERIFY(!window.calibrator()->calibrateFromRun(Measurement{}));
        QCOMPARE(failed.count(), 1);
        QVERIFY(failed.front().front().toString().contains(QStringLiteral("plan it")));
        QCOMPARE(window.document()->clusterModel()->undoStack()->count(), steps);
    }
};

HETPLAN_TEST_MAIN(TestCalibrateApp)
#include "tst_calibrate_app.moc"
