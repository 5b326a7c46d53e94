// Tools ▸ Calibrate from measurement… and calibrateFromRun (docs/calibration.md): a run of the
// shown plan is fitted in the background and becomes one undoable edit of the cluster, a new
// plan, and the breakdown chart's predicted, measured and calibrated bars; an edit made while
// it runs, or closing the window, loses nothing.
#include "core/cost/cost_model.h"
#include "core/io/catalog_json.h"
#include "model/cluster_model.h"
#include "model/document.h"
#include "results/breakdown_chart.h"
#include "results/calibrator.h"
#include "runtime/worker/measured_run.h"
#include "tests/test_registry.h"
#include "window_test_support.h"

#include <QMenuBar>
#include <QSignalSpy>
#include <QTest>
#include <QUndoStack>

using namespace hetplan;
using namespace hetplan::gui;
using namespace hetplan::gui::test;

namespace {

// What a CPU run of the shown plan at scale 1 would measure if every GPU type reached
// `fraction` of its peak: the cost model's own per-stage times for that cluster.
Measurement runAt(const ShownPlan &shown, double fraction)
{
    Measurement m;
    m.run.backend = BackendKind::Gloo;
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
    m.iterationS = e.iterationS;
    m.breakdown = e.breakdown;
    for (size_t p = 0; p < e.pipelines.size(); ++p)
        for (size_t s = 0; s < e.pipelines[p].stages.size(); ++s) {
            const StageTiming &t = e.pipelines[p].stages[s];
            const double mb = shown.plan.pipelines[p].microBatches;
            MeasuredStage stage;
            stage.pipeline = int(p);
            stage.stage = int(s);
            stage.breakdown = {t.computeS * mb, t.tpCommS * mb, t.hopS * mb, t.dpCommS, 0};
            m.stages.push_back(stage);
        }
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
        QVERIFY(calibrator->calibrateFromRun(runAt(shown, 0.2)));
        // The fit runs off the GUI thread: the call returns at once, and a second is refused
        // until the first is done.
        QCOMPARE(calibrated.count(), 0);
        QVERIFY(!calibrator->action()->isEnabled());
        QVERIFY(!calibrator->calibrateFromRun(runAt(shown, 0.2)));
        QVERIFY(calibrated.wait(kPlanTimeoutMs));
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

        model->undoStack()->undo();
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
