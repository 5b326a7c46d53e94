// The plan on screen is the plan of what is drawn, or it says it is not: What if's re-planned
// plan can be shown, edits mark the shown plan out of date everywhere it appears, New and
// Open clear the previous project's figures, a reopened project shows its saved estimate.
#include "canvas/cluster_scene.h"
#include "core/io/catalog_json.h"
#include "core/io/files.h"
#include "core/io/formats.h"
#include "core/io/loaders.h"
#include "mainwindow.h"
#include "model/cluster_model.h"
#include "model/document.h"
#include "results/breakdown_chart.h"
#include "results/compare_model.h"
#include "results/exporters.h"
#include "results/planning_controller.h"
#include "results/problems_view.h"
#include "results/qcustomplot_include.h"
#include "results/results_panel.h"
#include "results/stale_banner.h"
#include "results/timeline_chart.h"
#include "results/whatif_panel.h"
#include "tests/test_registry.h"
#include "window_test_support.h"

#include <QDockWidget>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSlider>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

using namespace hetplan;
using namespace hetplan::gui;
using namespace hetplan::gui::test;

namespace {

QPushButton *buttonNamed(QWidget *parent, const QString &text)
{
    for (QPushButton *button : parent->findChildren<QPushButton *>())
        if (button->text() == text)
            return button;
    return nullptr;
}

QString chartTitle(QCustomPlot *plot)
{
    auto *title = qobject_cast<QCPTextElement *>(plot->plotLayout()->element(0, 0));
    return title ? title->text() : QString();
}

QString statusFigures(MainWindow &window)
{
    return window.results()->progressLabel()->text();
}

QString problemsText(MainWindow &window)
{
    QStringList messages;
    for (const ResultIssue &issue : window.results()->problemsView()->issues())
        messages << issue.message;
    return messages.join(QLatin1Char('\n'));
}

// Everything that says the shown plan is out of date, or that it is not.
void verifyMarkedOutOfDate(MainWindow &window, bool outOfDate)
{
    ResultsPanel *results = window.results();
    QCOMPARE(results->freshness().outOfDate(), outOfDate);
    QCOMPARE(results->planBanner()->isVisibleTo(&window), outOfDate);
    QCOMPARE(results->chartsBanner()->isVisibleTo(&window), outOfDate);
    const auto *planDock = window.findChild<QDockWidget *>(QStringLiteral("results.plan"));
    QCOMPARE(planDock->windowTitle().contains(QLatin1String("out of date")), outOfDate);
    QCOMPARE(statusFigures(window).startsWith(QLatin1String("Out of date")), outOfDate);
    QVERIFY(!statusFigures(window).isEmpty());
    for (QCustomPlot *plot : {static_cast<QCustomPlot *>(results->breakdownChart()),
                              static_cast<QCustomPlot *>(results->timelineChart())})
        QCOMPARE(chartTitle(plot).startsWith(QLatin1String("Out of date")), outOfDate);
}

// The Timeline's title of a planned case study names its iteration time.
bool timelineShowsFigures(MainWindow &window)
{
    return chartTitle(window.results()->timelineChart()).contains(QLatin1String(" s"));
}

} // namespace

class TestStalePlan : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void showReplannedPlanFromWhatIf();
    void deletingAMachineOfThePlanMarksItOutOfDate();
    void reevaluateAfterABandwidthEdit();
    void newAndOpenClearThePreviousFigures();
    void reopenedProjectShowsItsSavedEstimate();
    void replanAutomaticallyWhenTheSettingSaysSo();
    void openWhilePlanningShowsNothingOfTheOldProject();
};

void TestStalePlan::initTestCase()
{
    useTestSettings();
}

void TestStalePlan::showReplannedPlanFromWhatIf()
{
    MainWindow window;
    window.show();
    QVERIFY(window.openExample(QStringLiteral("case-study")));
    QVERIFY(planAndWait(window));
    WhatIfPanel *whatIf = window.results()->whatIfPanel();
    QPushButton *show = buttonNamed(whatIf, QStringLiteral("Show re-planned plan"));
    QVERIFY(show);
    // Slow the network down until the re-plan picks another strategy.
    const int network = whatIf->sliderFor({BandwidthTarget::Kind::Network, -1});
    QVERIFY(network >= 0);
    for (int position : {-100, 100, -50, 50}) {
        QSignalSpy replanned(whatIf, &WhatIfPanel::replanned);
        whatIf->slider(network)->setValue(position);
        QVERIFY(replanned.wait(kPlanTimeoutMs));
        if (show->isEnabled())
            break;
    }
    QVERIFY(show->isEnabled());
    const ShownPlan replanned = *whatIf->replannedPlan();
    QTest::mouseClick(show, Qt::LeftButton);
    QVERIFY(window.results()->shownPlan());
    QVERIFY(window.results()->shownPlan()->plan.sameLayout(replanned.plan));
    QCOMPARE(window.results()->shownPlan()->evaluation.iterationS, replanned.evaluation.iterationS);
    // The status line has the shown plan's figures; the plan is for the what-if cluster.
    QVERIFY2(statusFigures(window).contains(ResultsText::duration(replanned.evaluation.iterationS)),
             qPrintable(statusFigures(window)));
    QVERIFY(window.results()->freshness().clusterChanged);
}

void TestStalePlan::deletingAMachineOfThePlanMarksItOutOfDate()
{
    MainWindow window;
    window.show();
    QVERIFY(window.openExample(QStringLiteral("case-study")));
    QVERIFY(planAndWait(window));
    verifyMarkedOutOfDate(window, false);
    const ShownPlan planned = *window.results()->shownPlan();
    ClusterModel *model = window.document()->clusterModel();
    // The plan uses every GPU of the case study, C's two RTX 3090 among them.
    QVERIFY(!window.results()->freshness().outOfDate());
    window.scene()->setSelectedIds({model->nodeByName("C")});
    window.scene()->deleteSelection();
    QVERIFY(!model->nodeByName("C"));

    // The plan stays up, as it was made, and says so everywhere it is shown.
    QVERIFY(window.results()->shownPlan()->plan.sameLayout(planned.plan));
    verifyMarkedOutOfDate(window, true);
    const PlanFreshness &freshness = window.results()->freshness();
    QVERIFY(freshness.clusterChanged && !freshness.workloadChanged && !freshness.modelChanged);
    QCOMPARE(freshness.missingGpus, QStringList({QStringLiteral("C:0"), QStringLiteral("C:1")}));
    QVERIFY2(window.results()->planBanner()->text().contains(QLatin1String("cluster")),
             qPrintable(window.results()->planBanner()->text()));
    const QString problems = problemsText(window);
    QVERIFY2(problems.contains(QLatin1String("C:0, C:1")), qPrintable(problems));
    // Its GPUs are gone: only a re-plan helps.
    QVERIFY(!window.results()->planBanner()->reevaluateButton()->isEnabled());

    // Undo back to the plan's cluster: current again.
    model->undoStack()->undo();
    verifyMarkedOutOfDate(window, false);
    QVERIFY(!problemsText(window).contains(QLatin1String("C:0")));

    // Moving a machine on the canvas changes nothing the plan depends on.
    model->moveNodes({{model->nodeByName("A"), CanvasPosition{900, 900}}});
    verifyMarkedOutOfDate(window, false);

    // Delete again and press the banner's Re-plan: a plan for the cluster as drawn.
    window.scene()->setSelectedIds({model->nodeByName("C")});
    window.scene()->deleteSelection();
    verifyMarkedOutOfDate(window, true);
    QSignalSpy finished(window.results()->controller(), &PlanningController::finished);
    QTest::mouseClick(window.results()->planBanner()->replanButton(), Qt::LeftButton);
    QVERIFY(finished.wait(kPlanTimeoutMs));
    verifyMarkedOutOfDate(window, false);
    QCOMPARE(window.results()->shownPlan()->problem->topology.gpuCount(), 6);
}

void TestStalePlan::reevaluateAfterABandwidthEdit()
{
    MainWindow window;
    window.show();
    QVERIFY(window.openExample(QStringLiteral("case-study")));
    QVERIFY(planAndWait(window));
    const ShownPlan planned = *window.results()->shownPlan();
    ClusterModel *model = window.document()->clusterModel();
    // A faster network: every link at 4× its bandwidth.
    for (const ItemId link : model->linkIds()) {
        Link faster = *model->link(link);
        faster.bandwidthGBps *= 4;
        QVERIFY(model->updateLink(link, faster).ok());
    }
    verifyMarkedOutOfDate(window, true);
    // Nothing is re-evaluated until the person asks.
    QCOMPARE(window.results()->shownPlan()->evaluation.iterationS, planned.evaluation.iterationS);

    QPushButton *reevaluate = window.results()->chartsBanner()->reevaluateButton();
    QVERIFY(reevaluate->isEnabled());
    QTest::mouseClick(reevaluate, Qt::LeftButton);
    verifyMarkedOutOfDate(window, false);
    // The same plan, the core's figure for it on the cluster as drawn now.
    const ShownPlan &now = *window.results()->shownPlan();
    QVERIFY(now.plan.sameLayout(planned.plan));
    auto problem = window.results()->currentProblem();
    QVERIFY(problem.ok());
    const double coreS
        = makeCostModel(window.results()->costModel())->evaluate(*problem, now.plan).iterationS;
    QCOMPARE(now.evaluation.iterationS, coreS);
    QVERIFY(coreS < planned.evaluation.iterationS);
    QVERIFY2(statusFigures(window).contains(ResultsText::duration(coreS)),
             qPrintable(statusFigures(window)));
}

void TestStalePlan::newAndOpenClearThePreviousFigures()
{
    QTemporaryDir dir;
    MainWindow window;
    window.show();
    // A project without a plan, to open later.
    QVERIFY(window.openExample(QStringLiteral("hetero-setting-1")));
    const QString unplanned = dir.filePath(QStringLiteral("unplanned.hetplan.json"));
    QVERIFY(window.document()->save(unplanned).ok());

    for (const bool viaNew : {true, false}) {
        QVERIFY(window.openExample(QStringLiteral("case-study")));
        QVERIFY(planAndWait(window));
        window.results()->compareAll();
        QSignalSpy compared(window.results()->controller(), &PlanningController::finished);
        QVERIFY(compared.wait(kPlanTimeoutMs));
        QVERIFY(!window.results()->compareModel()->outcomes().empty());
        QVERIFY(!statusFigures(window).isEmpty());
        QVERIFY(timelineShowsFigures(window));
        window.document()->discardAutosave();
        QVERIFY(window.document()->save(dir.filePath(QStringLiteral("planned.hetplan.json"))).ok());

        if (viaNew)
            fileAction(window, QStringLiteral("&New"))->trigger();
        else
            QVERIFY(window.openFile(unplanned));
        QVERIFY(!window.results()->shownPlan());
        QVERIFY2(statusFigures(window).isEmpty(), qPrintable(statusFigures(window)));
        QVERIFY2(!timelineShowsFigures(window),
                 qPrintable(chartTitle(window.results()->timelineChart())));
        QCOMPARE(chartTitle(window.results()->timelineChart()), QStringLiteral("1F1B timeline"));
        QVERIFY(window.results()->compareModel()->outcomes().empty());
        QVERIFY(window.results()->problemsView()->issues().empty());
        QVERIFY(!window.results()->planBanner()->isVisibleTo(&window));
    }
}

void TestStalePlan::reopenedProjectShowsItsSavedEstimate()
{
    // HexGen's serving setting: plan, then a longer output, save, reopen.
    QTemporaryDir dir;
    MainWindow window;
    window.show();
    QVERIFY(window.openExample(QStringLiteral("hexgen-full-price")));
    window.document()->setPlanner(PlannerKind::HexGen);
    QVERIFY(planAndWait(window));
    const ShownPlan planned = *window.results()->shownPlan();
    const QString exported = dir.filePath(QStringLiteral("exported.plan.json"));
    QVERIFY(exportPlanFile(exported, planned).ok());

    Workload longer = window.document()->project().workload;
    QCOMPARE(longer.infer.outputLen, 64);
    longer.infer.outputLen = 256;
    window.document()->setWorkload(longer);
    verifyMarkedOutOfDate(window, true);
    QVERIFY(window.results()->freshness().workloadChanged);
    const QString path = dir.filePath(QStringLiteral("serving.hetplan.json"));
    QVERIFY(window.document()->save(path).ok());

    MainWindow reopened;
    reopened.show();
    QVERIFY(reopened.openFile(path));
    QCOMPARE(reopened.document()->project().workload, longer);
    QVERIFY(reopened.results()->shownPlan());
    const ShownPlan &shown = *reopened.results()->shownPlan();
    // The saved plan with the figures it was saved with (those of the exported plan file),
    // not re-evaluated under the longer output.
    auto topology
        = Topology::build(reopened.document()->clusterModel()->cluster(), builtinGpuCatalog());
    QVERIFY(topology.ok());
    const auto file = parsePlan(*readTextFile(exported.toStdString()), "exported", *topology);
    QVERIFY(file.ok() && file->estimate);
    QCOMPARE(shown.evaluation.iterationS, file->estimate->iterationS);
    QVERIFY(shown.plan.sameLayout(planned.plan));
    QCOMPARE(shown.problem->workload.infer.outputLen, 64);
    verifyMarkedOutOfDate(reopened, true);
    QVERIFY(reopened.results()->freshness().workloadChanged);
    QVERIFY2(statusFigures(reopened).contains(ResultsText::duration(file->estimate->iterationS)),
             qPrintable(statusFigures(reopened)));
    QVERIFY(!reopened.document()->isModified());

    // Asked to, it re-evaluates for the longer output, and the plan is current.
    QTest::mouseClick(reopened.results()->planBanner()->reevaluateButton(), Qt::LeftButton);
    verifyMarkedOutOfDate(reopened, false);
    QVERIFY(reopened.results()->shownPlan()->evaluation.iterationS > file->estimate->iterationS);
    QCOMPARE(reopened.results()->shownPlan()->problem->workload, longer);
}

void TestStalePlan::replanAutomaticallyWhenTheSettingSaysSo()
{
    QSettings().setValue(QStringLiteral("planning/replanAfterEdits"), true);
    MainWindow window;
    QSettings().remove(QStringLiteral("planning/replanAfterEdits"));
    window.show();
    QVERIFY(window.openExample(QStringLiteral("case-study")));
    QVERIFY(planAndWait(window));
    ClusterModel *model = window.document()->clusterModel();
    QSignalSpy finished(window.results()->controller(), &PlanningController::finished);
    window.scene()->setSelectedIds({model->nodeByName("C")});
    window.scene()->deleteSelection();
    QVERIFY(finished.wait(kPlanTimeoutMs));
    verifyMarkedOutOfDate(window, false);
    QCOMPARE(window.results()->shownPlan()->problem->topology.gpuCount(), 6);
}

void TestStalePlan::openWhilePlanningShowsNothingOfTheOldProject()
{
    MainWindow window;
    window.show();
    QVERIFY(window.openExample(QStringLiteral("large-cluster")));
    ResultsPanel *results = window.results();
    QSignalSpy finished(results->controller(), &PlanningController::finished);
    results->planAction()->trigger();
    QVERIFY(results->controller()->isRunning());
    QVERIFY(window.openExample(QStringLiteral("case-study")));
    QVERIFY(finished.wait(kPlanTimeoutMs));
    // The large cluster's best plan so far is not shown over the case study.
    QVERIFY(!results->shownPlan());
    QVERIFY2(statusFigures(window).isEmpty(), qPrintable(statusFigures(window)));
    QVERIFY(!window.document()->isModified());
}

HETPLAN_TEST_MAIN(TestStalePlan)
#include "tst_stale_plan.moc"
