// The whole app as a person meets it: a real MainWindow at its default size, the case study
// planned with the Plan action, a new cluster built and planned, closing while planning.
#include "canvas/cluster_scene.h"
#include "canvas/cluster_view.h"
#include "canvas/machine_templates.h"
#include "canvas/palette.h"
#include "core/cost/validator.h"
#include "core/io/catalog_json.h"
#include "core/io/loaders.h"
#include "core/serving/plan_serving.h"
#include "mainwindow.h"
#include "model/cluster_model.h"
#include "model/document.h"
#include "results/plan_view.h"
#include "results/planning_controller.h"
#include "results/qcustomplot_include.h"
#include "results/results_panel.h"
#include "results/serving_view.h"
#include "results/whatif_panel.h"
#include "tests/test_registry.h"
#include "window_test_support.h"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSlider>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

using namespace hetplan;
using namespace hetplan::gui;
using namespace hetplan::gui::test;

namespace {

// The shown plan is valid for the cluster as it is, and its figures are the core's own.
void verifyShownPlanIsTheCores(MainWindow &window)
{
    ResultsPanel *results = window.results();
    QVERIFY(results->planView()->hasPlan());
    QVERIFY(results->planView()->isVisible());
    const ShownPlan &shown = *results->shownPlan();
    QVERIFY(!shown.plan.pipelines.empty());
    auto problem = results->currentProblem();
    QVERIFY(problem.ok());
    const auto costModel = makeCostModel(results->costModel());
    const std::vector<PlanIssue> issues = validatePlan(*problem, shown.plan, costModel.get());
    QVERIFY2(issues.empty(), issues.empty() ? "" : issues.front().message.c_str());
    const Evaluation core = costModel->evaluate(*problem, shown.plan);
    QCOMPARE(shown.evaluation.iterationS, core.iterationS);
    // The status bar says the iteration time as the results views write it.
    const QString status = results->progressLabel()->text();
    QVERIFY2(status.contains(ResultsText::duration(core.iterationS)), qPrintable(status));
}

// "4 pipelines: 8×TP1 [4090-0] | ...": how a plan uses the machines, for the log.
QString planSummary(const ShownPlan &shown)
{
    QStringList pipelines;
    for (const Pipeline &pipeline : shown.plan.pipelines) {
        QStringList machines;
        std::set<int> tp;
        for (const Stage &stage : pipeline.stages) {
            tp.insert(stage.tp);
            for (const QString &gpu : ResultsText::gpuNames(shown.problem->topology, stage.gpus))
                if (const QString machine = gpu.section(QLatin1Char(':'), 0, 0);
                    !machines.contains(machine))
                    machines << machine;
        }
        QStringList tps;
        for (int t : tp)
            tps << QString::number(t);
        pipelines << QStringLiteral("%1 stages TP %2 on %3")
                         .arg(pipeline.stages.size())
                         .arg(tps.join(QLatin1Char('/')), machines.join(QLatin1Char('+')));
    }
    return QStringLiteral("%1 pipelines: %2")
        .arg(pipelines.size())
        .arg(pipelines.join(QStringLiteral(" | ")));
}

} // namespace

class TestAppFlow : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void defaultLayoutKeepsTheCanvasDominant();
    void planCaseStudyThenNewCluster();
    void buildCaseStudyByHand();
    void servingShowsAttainmentForSloScale();
    void ethernetSliderReplansHeteroSetting1();
    void closingWhilePlanningReturnsPromptly();
    void keepingTheWindowOpenKeepsPlanning();
};

void TestAppFlow::initTestCase()
{
    useTestSettings();
}

void TestAppFlow::defaultLayoutKeepsTheCanvasDominant()
{
    MainWindow window;
    QVERIFY(window.openExample(QStringLiteral("case-study")));
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    // The window keeps its default size: no panel's minimum pushes it past.
    QCOMPARE(window.size(), QSize(1280, 800));
    // The canvas is the middle of the window: wider than either side column and taller than
    // the results strip below it, which spans the full width for long pipelines.
    const QSize canvas = window.view()->size();
    for (QDockWidget *dock : window.findChildren<QDockWidget *>()) {
        if (dock->visibleRegion().isEmpty())
            continue;
        const Qt::DockWidgetArea area = window.dockWidgetArea(dock);
        if (area == Qt::BottomDockWidgetArea)
            QVERIFY2(dock->height() < canvas.height(), qPrintable(dock->objectName()));
        else
            QVERIFY2(dock->width() < canvas.width(), qPrintable(dock->objectName()));
    }
    QVERIFY(canvas.height() >= window.height() / 2);
    QVERIFY(!window.results()->planView()->visibleRegion().isEmpty());
}

void TestAppFlow::planCaseStudyThenNewCluster()
{
    QTemporaryDir dir;
    MainWindow window;
    window.show();
    QVERIFY(window.openExample(QStringLiteral("case-study")));
    QVERIFY(planAndWait(window));
    verifyShownPlanIsTheCores(window);
    QCOMPARE(window.results()->shownPlan()->plan.planner, std::string("hexiscale"));
    // The plan is part of the project: saved with it.
    QVERIFY(window.document()->save(dir.filePath(QStringLiteral("case.hetplan.json"))).ok());

    QAction *newAction = fileAction(window, QStringLiteral("&New"));
    QVERIFY(newAction);
    newAction->trigger();
    QVERIFY(!window.results()->planView()->hasPlan());
    ClusterModel *model = window.document()->clusterModel();
    QVERIFY(model->machineIds().empty()); // New brings an empty canvas
    const auto addMachine = [&](const char *name, const char *gpu, int count) {
        Machine m;
        m.name = name;
        m.gpu = gpu;
        m.count = count;
        m.intra = builtinGpuCatalog().find(m.gpu)->typicalIntra;
        return model->addMachine(m);
    };
    const auto a = addMachine("A", "A100-80G", 8);
    QVERIFY(a.ok());
    const auto b = addMachine("B", "RTX4090-24G", 4);
    QVERIFY(b.ok());
    const auto sw = model->addSwitch(Switch{"eth", {}});
    QVERIFY(sw.ok());
    QVERIFY(model->addLink(*a, *sw, Link{}).ok());
    QVERIFY(model->addLink(*b, *sw, Link{}).ok());

    QVERIFY(planAndWait(window));
    verifyShownPlanIsTheCores(window);
    // Both machines' GPUs can be used: the plan is over this cluster, not the case study's.
    const ShownPlan &shown = *window.results()->shownPlan();
    QCOMPARE(shown.problem->topology.cluster().machines.size(), std::size_t(2));
    window.document()->discardAutosave();
    QVERIFY(window.document()->save(dir.filePath(QStringLiteral("new.hetplan.json"))).ok());
}

void TestAppFlow::buildCaseStudyByHand()
{
    // What a person does to draw HexiScale §3.1's cluster: New, three palette templates onto
    // the canvas, each edited in the inspector, a switch, three links at 1 GB/s; save, reopen.
    QTemporaryDir dir;
    MainWindow window;
    window.show();
    fileAction(window, QStringLiteral("&New"))->trigger();
    ClusterModel *model = window.document()->clusterModel();
    QVERIFY(model->machineIds().empty()); // New brings an empty canvas

    const std::vector<NodeTemplate> templates = window.findChild<Palette *>()->templates();
    const auto drop = [&](const QString &title, QPointF at) -> ItemId {
        for (const NodeTemplate &t : templates)
            if (t.title == title) {
                auto added = window.scene()->insertFragmentAt(t.fragment, at);
                return added && added->size() == 1 ? added->front() : 0;
            }
        return 0;
    };
    const ItemId a = drop(QStringLiteral("8× A800-80G NVLink"), {100, 300});
    const ItemId b = drop(QStringLiteral("8× RTX 4090 PCIe"), {320, 300});
    const ItemId c = drop(QStringLiteral("2× RTX 3090 PCIe"), {540, 300});
    const ItemId eth = drop(QStringLiteral("Switch"), {320, 500});
    QVERIFY(a && b && c && eth);

    // The inspector's fields, machine by machine.
    const auto edit
        = [model](ItemId id, const char *name, int count, double intraGBps, double intraLatencyUs) {
              Machine m = *model->machine(id);
              m.name = name;
              m.count = count;
              m.intra.bandwidthGBps = intraGBps;
              m.intra.latencyUs = intraLatencyUs;
              return model->updateMachine(id, m).ok();
          };
    QVERIFY(edit(a, "A", 3, 200, 2.5));
    QVERIFY(edit(b, "B", 3, 32, 8));
    QVERIFY(edit(c, "C", 2, 16, 8));
    QVERIFY(
        model->updateSwitch(eth, Switch{"eth", model->cluster().switches.front().position}).ok());
    for (ItemId machine : {a, b, c}) {
        Link link = MachineTemplates::defaultLink(model->machine(machine), nullptr);
        link.b = "eth";
        link.bandwidthGBps = 1;
        link.latencyUs = 25;
        QVERIFY(model->addLink(machine, eth, link).ok());
    }

    // The Workload panel: §3.1 trains with global batch 24 over 4096-token sequences.
    Workload workload = window.document()->project().workload;
    workload.train.globalBatch = 24;
    workload.train.seqLen = 4096;
    window.document()->setWorkload(workload);

    const QString path = dir.filePath(QStringLiteral("by-hand.hetplan.json"));
    QVERIFY(window.document()->save(path).ok());
    const Cluster drawn = model->cluster();
    QVERIFY(window.openFile(path));
    QCOMPARE(model->cluster(), drawn);

    // Everything the planner sees is the bundled case study's: the same plan, the same time.
    const Cluster bundled = loadCluster("case-study").value();
    QCOMPARE(drawn.machines.size(), bundled.machines.size());
    for (size_t i = 0; i < drawn.machines.size(); ++i) {
        const Machine &m = drawn.machines[i];
        const Machine &e = bundled.machines[i];
        QCOMPARE(m.name, e.name);
        QCOMPARE(m.gpu, e.gpu);
        QCOMPARE(m.count, e.count);
        QCOMPARE(m.intra, e.intra);
        QCOMPARE(m.nic, e.nic);
    }
    QCOMPARE(drawn.links, bundled.links);
    QVERIFY(planAndWait(window));
    verifyShownPlanIsTheCores(window);
    const double byHandS = window.results()->shownPlan()->evaluation.iterationS;
    QVERIFY(window.openExample(QStringLiteral("case-study")));
    QCOMPARE(window.document()->project().workload, workload);
    QVERIFY(planAndWait(window));
    QCOMPARE(window.results()->shownPlan()->evaluation.iterationS, byHandS);
}

void TestAppFlow::servingShowsAttainmentForSloScale()
{
    // HexGen's setting: its workload gives slo_scale, not an absolute SLO.
    MainWindow window;
    window.show();
    QVERIFY(window.openExample(QStringLiteral("hexgen-full-price")));
    Document *document = window.document();
    QVERIFY(!document->project().workload.infer.sloS);
    document->setModelName("llama2-70b");
    document->setPlanner(PlannerKind::HexGen);
    QVERIFY(planAndWait(window));
    verifyShownPlanIsTheCores(window);
    ServingView *serving = window.results()->servingView();
    window.bringToFront(serving);
    QCOMPARE(serving->attainmentPointCount(), 7);
    // The figures at the workload's rate are the core's (core/serving/plan_serving.h).
    const ShownPlan &shown = *window.results()->shownPlan();
    const auto costModel = makeCostModel(window.results()->costModel());
    const ServingFigures core = servePlan(*shown.problem, *costModel, shown.plan);
    QVERIFY(core.sloS > 0 && core.referenceLatencyS > 0);
    const QCPGraph *attainment = serving->attainmentPlot()->graph(0);
    // 1/8× to 8× the rate: the middle point is the workload's own rate.
    QCOMPARE(attainment->data()->at(3)->key, core.requestRatePerS);
    QCOMPARE(attainment->data()->at(3)->value, 100 * core.attainment);
    QCOMPARE(serving->attainmentPlot()->graph(2)->data()->at(3)->value, core.p99S);
    // The status line and the workload panel speak of the SLO, not of iterations.
    const QString status = window.results()->progressLabel()->text();
    QVERIFY2(status.contains(ResultsText::percent(core.attainment)), qPrintable(status));
    QVERIFY2(status.contains(ResultsText::duration(shown.evaluation.iterationS)),
             qPrintable(status));
    QVERIFY2(!status.contains(QLatin1String("iteration")), qPrintable(status));
    const auto *sloSeconds = window.findChild<QLabel *>(QStringLiteral("sloSeconds"));
    QVERIFY(sloSeconds);
    QVERIFY2(sloSeconds->text().contains(ResultsText::duration(core.sloS)),
             qPrintable(sloSeconds->text()));
    if (const QString dir = qEnvironmentVariable("HETPLAN_SCREENSHOT_DIR"); !dir.isEmpty()) {
        // The workload in front: its latency target in seconds beside the SLO charts.
        window.findChild<QDockWidget *>(QStringLiteral("workload"))->raise();
        QCoreApplication::processEvents(); // the status bar's layout follows its new text
        QVERIFY(window.grab().save(dir + QStringLiteral("/serving.png")));
    }
}

void TestAppFlow::ethernetSliderReplansHeteroSetting1()
{
    // HexiScale Appendix E: Llama-2 7B on heterogeneous setting 1, Ethernet from 0.5 to 5 GB/s.
    MainWindow window;
    window.show();
    QVERIFY(window.openExample(QStringLiteral("hetero-setting-1")));
    Document *document = window.document();
    Workload workload = document->project().workload;
    workload.train.globalBatch = 2048;
    document->setWorkload(workload);
    document->setModelName("llama2-7b");
    QVERIFY(planAndWait(window));
    const ShownPlan base = *window.results()->shownPlan();
    qInfo("as drawn (0.7 GB/s): %s, MFU %.1f %%", qPrintable(planSummary(base)),
          100 * base.evaluation.mfu);

    WhatIfPanel *whatIf = window.results()->whatIfPanel();
    const int network = whatIf->sliderFor({BandwidthTarget::Kind::Network});
    QVERIFY(network >= 0);
    const double drawnGBps
        = drawnBandwidthGBps(base.problem->topology.cluster(), whatIf->target(network));
    std::vector<double> mfu;
    for (double bandwidthGBps : {0.5, 1.0, 2.0, 5.0}) {
        QSignalSpy replanned(whatIf, &WhatIfPanel::replanned);
        // Slider positions are hundredths of a decade of the drawn bandwidth.
        const double factor = bandwidthGBps / drawnGBps;
        whatIf->slider(network)->setValue(int(std::lround(100 * std::log10(factor))));
        QVERIFY(replanned.wait(kPlanTimeoutMs));
        const ShownPlan &plan = *whatIf->replannedPlan();
        qInfo("%.2f GB/s: %s, MFU %.1f %%", whatIf->changedCluster().links.front().bandwidthGBps,
              qPrintable(planSummary(plan)), 100 * plan.evaluation.mfu);
        mfu.push_back(plan.evaluation.mfu);
    }
    QVERIFY(std::is_sorted(mfu.begin(), mfu.end()));
}

void TestAppFlow::closingWhilePlanningReturnsPromptly()
{
    MainWindow window;
    window.show();
    QVERIFY(window.openExample(QStringLiteral("large-cluster")));
    ResultsPanel *results = window.results();
    results->planAction()->trigger();
    QVERIFY(results->controller()->isRunning());
    QElapsedTimer timer;
    timer.start();
    QVERIFY(window.close());
    const qint64 closeMs = timer.elapsed();
    qInfo("close while planning: %lld ms", closeMs);
    QVERIFY(!results->controller()->isRunning());
    // Generous: the planners check for cancellation every few milliseconds.
    QVERIFY2(closeMs < 5000, qPrintable(QStringLiteral("took %1 ms").arg(closeMs)));
}

void TestAppFlow::keepingTheWindowOpenKeepsPlanning()
{
    MainWindow window;
    window.show();
    QVERIFY(window.openExample(QStringLiteral("large-cluster")));
    QVERIFY(window.document()->clusterModel()->setNameAndDescription("edited", ""));
    QVERIFY(window.document()->isModified());
    ResultsPanel *results = window.results();
    results->planAction()->trigger();
    QVERIFY(results->controller()->isRunning());
    // The person answers Cancel to "Save them first?": the window stays, and so does planning.
    bool answered = false;
    std::function<void()> answerCancel = [&] {
        auto *box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget());
        if (!box) {
            QTimer::singleShot(10, &window, answerCancel);
            return;
        }
        answered = true;
        box->button(QMessageBox::Cancel)->click();
    };
    QTimer::singleShot(0, &window, answerCancel);
    QVERIFY(!window.close());
    QVERIFY(answered);
    QVERIFY(window.isVisible());
    QVERIFY(results->controller()->isRunning());
    results->cancel();
    QSignalSpy finished(results->controller(), &PlanningController::finished);
    QVERIFY(!results->controller()->isRunning() || finished.wait(kPlanTimeoutMs));
}

HETPLAN_TEST_MAIN(TestAppFlow)
#include "tst_app_flow.moc"
