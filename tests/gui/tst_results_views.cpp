// The results views on their own: the plan view's selection in both directions, memory over
// capacity in red, the 1F1B timeline as the core simulates it, exports in every format.
// With HETPLAN_SCREENSHOT_DIR set, also writes PNGs of the views at their default size (in
// the language HETPLAN_SCREENSHOT_LANG names, e.g. zh_CN; English without it).
#include "core/io/catalog_json.h"
#include "core/io/files.h"
#include "core/io/formats.h"
#include "core/io/loaders.h"
#include "result_value.h"
#include "results/breakdown_chart.h"
#include "results/compare_model.h"
#include "results/convergence_chart.h"
#include "results/exporters.h"
#include "results/memory_chart.h"
#include "results/plan_view.h"
#include "results/results_panel.h"
#include "results/serving_view.h"
#include "results/timeline_chart.h"
#include "tests/test_registry.h"
#include "translations.h"

#include <QDir>
#include <QMainWindow>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace hetplan;
using namespace hetplan::gui;
using hetplan::gui::test::valueOf;

namespace {

std::shared_ptr<const Problem> caseStudyProblem(const char *model)
{
    const auto workload = findExample("case-study", ExampleKind::Workload);
    Q_ASSERT(workload);
    return std::make_shared<const Problem>(
        Problem{valueOf(Topology::build(valueOf(loadCluster("case-study")), builtinGpuCatalog())),
                valueOf(loadModel(model)), valueOf(parseWorkload(workload->text, workload->path))});
}

ShownPlan evaluated(std::shared_ptr<const Problem> problem, Plan plan)
{
    const Evaluation evaluation = makeCostModel(CostModelKind::HetPlan)->evaluate(*problem, plan);
    return {std::move(problem), std::move(plan), evaluation};
}

// The bundled two-pipeline plan of the case study (tests/data/good).
ShownPlan twoPipelinePlan()
{
    auto problem = caseStudyProblem("llama2-13b");
    const std::string path = HETPLAN_SOURCE_DIR "/tests/data/good/case-study-2pp.plan.json";
    Plan plan = valueOf(parsePlan(valueOf(readTextFile(path)), path, problem->topology));
    return evaluated(problem, std::move(plan));
}

// Llama-2 70B on machine C's two RTX 3090s alone: far over their 24 GiB.
ShownPlan overflowingPlan()
{
    auto problem = caseStudyProblem("llama2-70b");
    Plan plan;
    plan.workload = problem->workload;
    plan.workload.train.globalBatch = 4;
    Pipeline pipeline;
    pipeline.microBatches = 4;
    const int c0 = *problem->topology.findGpu("C:0");
    const int c1 = *problem->topology.findGpu("C:1");
    pipeline.stages = {{{c0}, 1, 1, 0, 40, {}}, {{c1}, 1, 1, 40, 80, {}}};
    plan.pipelines = {pipeline};
    auto changed = std::make_shared<Problem>(*problem);
    changed->workload = plan.workload;
    return evaluated(changed, std::move(plan));
}

} // namespace

class TestResultsViews : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void planViewSelectsBothWays();
    void planViewClickSelectsStage();
    void memoryOverCapacityIsRed();
    void timelineIsTheSimulation();
    void convergenceSkipsUnfitIterations();
    void servingShowsReplicasAndAttainment();
    void compareSortsFailuresLast();
    void exportsEveryFormat_data();
    void exportsEveryFormat();
    void exportsBreakdownCsv();
    void intervalsOnTheBreakdownAndTheCompareTable();
    void screenshots();
};

void TestResultsViews::planViewSelectsBothWays()
{
    const ShownPlan shown = twoPipelinePlan();
    PlanView view;
    view.setPlan(shown);
    QSignalSpy selected(&view, &PlanView::stageSelected);
    view.selectStage(1, 0);
    QCOMPARE(selected.size(), 1);
    const Stage &stage = shown.plan.pipelines[1].stages[0];
    QStringList expected;
    for (int gpu : stage.gpus)
        expected << QString::fromStdString(shown.problem->topology.gpu(gpu).name);
    QCOMPARE(selected.front().front().toStringList(), expected);

    // A GPU selected elsewhere highlights its stage and announces nothing.
    const QString gpu = QString::fromStdString(
        shown.problem->topology.gpu(shown.plan.pipelines[0].stages.back().gpus.front()).name);
    view.highlightGpus({gpu});
    QCOMPARE(selected.size(), 1);
    QCOMPARE(view.highlightedStages(), (std::vector<std::pair<int, int>>{
                                           {0, int(shown.plan.pipelines[0].stages.size()) - 1}}));
    view.highlightGpus({QStringLiteral("Z:9")});
    QVERIFY(view.highlightedStages().empty());
}

void TestResultsViews::planViewClickSelectsStage()
{
    PlanView view;
    view.setPlan(twoPipelinePlan());
    view.resize(view.sizeHint());
    QSignalSpy selected(&view, &PlanView::stageSelected);
    QTest::mouseClick(&view, Qt::LeftButton, {}, view.stageRect(0, 1).center());
    QCOMPARE(selected.size(), 1);
    QCOMPARE(view.selectedStage(), std::optional(std::pair(0, 1)));
    // A click beside every box clears the selection.
    QTest::mouseClick(&view, Qt::LeftButton, {}, QPoint(2, view.height() - 2));
    QCOMPARE(selected.size(), 2);
    QVERIFY(selected.back().front().toStringList().isEmpty());
    QVERIFY(!view.selectedStage());
}

void TestResultsViews::memoryOverCapacityIsRed()
{
    const ShownPlan shown = overflowingPlan();
    MemoryChart chart;
    chart.setPlan(shown);
    QCOMPARE(chart.gpuCount(), 2);
    for (int i = 0; i < 2; ++i) {
        QVERIFY(chart.isOver(i));
        QVERIFY(chart.usedGiB(i) > chart.capacityGiB(i));
        QCOMPARE(chart.capacityGiB(i), shown.evaluation.memory[size_t(i)].capacityGiB);
    }
    // A plan where some GPUs fit and some do not: red exactly where the core says so.
    const ShownPlan mixed = twoPipelinePlan();
    MemoryChart chart2;
    chart2.setPlan(mixed);
    QCOMPARE(chart2.gpuCount(), int(mixed.evaluation.memory.size()));
    for (int i = 0; i < chart2.gpuCount(); ++i)
        QCOMPARE(chart2.isOver(i), !mixed.evaluation.memory[size_t(i)].fits());
}

void TestResultsViews::timelineIsTheSimulation()
{
    const ShownPlan shown = twoPipelinePlan();
    TimelineChart chart;
    chart.setPlan(shown);
    QCOMPARE(chart.pipelineCount(), int(shown.plan.pipelines.size()));
    int rows = 0;
    for (int p = 0; p < chart.pipelineCount(); ++p) {
        const Pipeline &pipeline = shown.plan.pipelines[size_t(p)];
        rows += int(pipeline.stages.size());
        const Timeline &timeline = chart.timeline(p);
        // Every stage runs a forward and a backward pass of every micro-batch.
        QCOMPARE(int(timeline.intervals.size()),
                 2 * pipeline.microBatches * int(pipeline.stages.size()));
        const std::vector<StageWork> work = stageWorkOf(shown.evaluation.pipelines[size_t(p)]);
        QCOMPARE(timeline.makespanS, simulate1F1B(work, pipeline.microBatches).makespanS);
        // Both directions of a hop together are what the cost model charges for it.
        for (size_t j = 0; j + 1 < work.size(); ++j)
            QCOMPARE(work[j].sendForwardS + work[j + 1].sendBackwardS,
                     shown.evaluation.pipelines[size_t(p)].stages[j].hopS);
        // The first stage idles while the first micro-batch goes down the pipeline and back:
        // a bubble, visible as a gap between its passes.
        double busyS = 0;
        for (const Interval &interval : timeline.intervals)
            if (interval.stage == 0)
                busyS += interval.endS - interval.startS;
        QVERIFY(busyS < timeline.makespanS);
    }
    QCOMPARE(chart.rowCount(), rows);
}

void TestResultsViews::convergenceSkipsUnfitIterations()
{
    ConvergenceChart chart;
    const double inf = std::numeric_limits<double>::infinity();
    chart.setTrace(0, PlannerKind::HexiScale, {{1, 0.1, inf}, {2, 0.2, 30}, {3, 0.3, 25}});
    chart.setTrace(1, PlannerKind::Metis, {{1, 0.1, 28}});
    QCOMPARE(chart.lineCount(), 2);
    QCOMPARE(chart.graph(0)->data()->size(), 2);
    QCOMPARE(chart.graph(0)->data()->at(1)->value, 25.0);
    QCOMPARE(chart.graph(1)->name(), QStringLiteral("metis"));
}

void TestResultsViews::servingShowsReplicasAndAttainment()
{
    ShownPlan shown = twoPipelinePlan();
    shown.plan.workload.mode = Mode::Infer;
    shown.plan.workload.infer.sloS = 5.0;
    shown.plan.workload.infer.requestRatePerS = 0.5;
    shown.evaluation.replicaLatencyS = {1.5, 3.0};
    shown.evaluation.iterationS = 3.0;
    ServingView view;
    view.setPlan(shown);
    const QCPBars *bars = qobject_cast<QCPBars *>(view.latencyPlot()->plottable(0));
    QVERIFY(bars);
    QCOMPARE(bars->data()->size(), 2);
    QCOMPARE(bars->data()->at(1)->value, 3.0);
    // Attainment from the serving simulation at 1/8× to 8× the rate: all within the SLO
    // when idle, worse (never better) as the rate grows.
    QCOMPARE(view.attainmentPointCount(), 7);
    const QCPGraph *attainment = view.attainmentPlot()->graph(0);
    QCOMPARE(attainment->data()->at(0)->value, 100.0);
    for (int i = 1; i < attainment->data()->size(); ++i)
        QVERIFY(attainment->data()->at(i)->value <= attainment->data()->at(i - 1)->value);
    // Without an absolute SLO there is nothing to attain yet.
    shown.plan.workload.infer.sloS.reset();
    view.setPlan(shown);
    QCOMPARE(view.attainmentPointCount(), 0);
}

void TestResultsViews::compareSortsFailuresLast()
{
    CompareModel model;
    const ShownPlan shown = twoPipelinePlan();
    PlanSearch search;
    search.plan = shown.plan;
    search.evaluation = shown.evaluation;
    model.setOutcome(0, {PlannerKind::Megatron, std::nullopt,
                         Error{ErrorKind::NoPlanFits, "needs 32.0 GiB on C:1"}});
    model.setOutcome(1, {PlannerKind::HexiScale, search, std::nullopt});
    QCOMPARE(model.index(0, CompareModel::IterationTime).data().toString(),
             QStringLiteral("no plan fits"));
    QCOMPARE(model.index(0, CompareModel::IterationTime).data(Qt::ToolTipRole).toString(),
             QStringLiteral("no plan fits: needs 32.0 GiB on C:1"));
    QCOMPARE(model.index(1, CompareModel::Pipelines).data().toInt(), 2);
    QSortFilterProxyModel proxy;
    proxy.setSourceModel(&model);
    proxy.setSortRole(CompareModel::SortRole);
    for (int column : {int(CompareModel::IterationTime), int(CompareModel::PlanningTime)}) {
        proxy.sort(column, Qt::AscendingOrder);
        QCOMPARE(proxy.index(1, CompareModel::Planner).data().toString(),
                 QStringLiteral("megatron"));
    }
    proxy.sort(CompareModel::Mfu, Qt::DescendingOrder);
    QCOMPARE(proxy.index(1, CompareModel::Planner).data().toString(), QStringLiteral("megatron"));
}

void TestResultsViews::exportsEveryFormat_data()
{
    QTest::addColumn<QString>("suffix");
    QTest::addColumn<QByteArray>("magic");
    QTest::newRow("png") << QStringLiteral("png") << QByteArray("\x89PNG");
    QTest::newRow("svg") << QStringLiteral("svg") << QByteArray("<?xml");
    QTest::newRow("pdf") << QStringLiteral("pdf") << QByteArray("%PDF");
}

void TestResultsViews::exportsEveryFormat()
{
    QFETCH(QString, suffix);
    QFETCH(QByteArray, magic);
    const ShownPlan shown = twoPipelinePlan();
    PlanView view;
    view.setPlan(shown);
    BreakdownChart chart;
    chart.resize(640, 400);
    chart.setPlan(shown);
    QTemporaryDir dir;
    const QString viewPath = dir.filePath(QStringLiteral("plan.") + suffix);
    const QString chartPath = dir.filePath(QStringLiteral("breakdown.") + suffix);
    QVERIFY(exportPlanView(viewPath, &view).ok());
    QVERIFY(exportChart(chartPath, &chart).ok());
    for (const QString &path : {viewPath, chartPath}) {
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QVERIFY2(file.read(magic.size()) == magic, qPrintable(path));
        QVERIFY(file.size() > 1000);
    }
    // Vector formats keep the text as text (SVG) so the stage boxes stay searchable.
    if (suffix == QLatin1String("svg")) {
        QFile file(viewPath);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QVERIFY(file.readAll().contains("TP 1"));
    }
    const Status unknown = exportPlanView(dir.filePath(QStringLiteral("plan.bmp")), &view);
    QVERIFY(!unknown.ok());
    QVERIFY(QString::fromStdString(unknown.error().message).contains(QStringLiteral(".png")));
}

void TestResultsViews::exportsBreakdownCsv()
{
    const ShownPlan shown = twoPipelinePlan();
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("breakdown.csv"));
    QVERIFY(exportBreakdownCsv(path, shown).ok());
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(file.readAll()).trimmed().split(QLatin1Char('\n'));
    QCOMPARE(lines.size(), 6);
    QCOMPARE(lines[0], QStringLiteral("part,overall_s,pipeline_0_s,pipeline_1_s"));
    const QStringList compute = lines[1].split(QLatin1Char(','));
    QCOMPARE(compute[0], QStringLiteral("compute"));
    QCOMPARE(compute[1].toDouble(), shown.evaluation.breakdown.computeS);
    QCOMPARE(compute[3].toDouble(), shown.evaluation.pipelines[1].breakdown.computeS);
    QCOMPARE(lines[5].section(QLatin1Char(','), 0, 0), QStringLiteral("bubble"));
    QCOMPARE(lines[5].section(QLatin1Char(','), 1, 1).toDouble(),
             shown.evaluation.breakdown.bubbleS);
}

// The prediction interval (docs/cost-models.md, "Prediction intervals") as an error bar on the
// overall bar and a sortable column with an extrapolation mark: the case study is drawn from
// catalog figures, so every GPU type it uses extrapolates.
void TestResultsViews::intervalsOnTheBreakdownAndTheCompareTable()
{
    const ShownPlan shown = twoPipelinePlan();
    QVERIFY(shown.evaluation.interval);
    const PredictionInterval &interval = *shown.evaluation.interval;
    QVERIFY(interval.iteration.loS < shown.evaluation.iterationS
            && shown.evaluation.iterationS < interval.iteration.hiS);
    QVERIFY(interval.extrapolates());

    BreakdownChart chart;
    chart.setPlan(shown);
    const std::optional<TimeInterval> drawn = chart.shownInterval();
    QVERIFY(drawn);
    QVERIFY(std::abs(drawn->loS - interval.iteration.loS) < 1e-9 * interval.iteration.hiS);
    QVERIFY(std::abs(drawn->hiS - interval.iteration.hiS) < 1e-9 * interval.iteration.hiS);
    chart.clear();
    QVERIFY(!chart.shownInterval());

    // Two plans: the one with the shorter prediction but the wider interval sorts first by
    // time and second by the interval column (its 90th percentile).
    PlanSearch wide;
    wide.plan = shown.plan;
    wide.evaluation = shown.evaluation;
    wide.evaluation.iterationS = 10;
    wide.evaluation.interval->iteration = {5, 20};
    wide.evaluation.memory.clear(); // fits: a plan over capacity ranks last either way
    PlanSearch narrow = wide;
    narrow.evaluation.iterationS = 11;
    narrow.evaluation.interval->iteration = {10, 12};
    narrow.evaluation.interval->extrapolatedGpuTypes.clear();
    narrow.evaluation.interval->extrapolatedLinks.clear();
    CompareModel model;
    model.setOutcome(0, {PlannerKind::HexiScale, wide, std::nullopt});
    model.setOutcome(1, {PlannerKind::Metis, narrow, std::nullopt});
    const QModelIndex cell = model.index(0, CompareModel::Interval);
    QCOMPARE(cell.data().toString(), ResultsText::range({5, 20}));
    QVERIFY(!cell.data(Qt::DecorationRole).isNull());
    const QString tip = cell.data(Qt::ToolTipRole).toString();
    QVERIFY2(tip.contains(QLatin1String("Extrapolates"))
                 && tip.contains(QString::fromStdString(interval.extrapolatedGpuTypes.front())),
             qPrintable(tip));
    QVERIFY(model.index(1, CompareModel::Interval).data(Qt::DecorationRole).isNull());
    QSortFilterProxyModel proxy;
    proxy.setSourceModel(&model);
    proxy.setSortRole(CompareModel::SortRole);
    proxy.sort(CompareModel::IterationTime, Qt::AscendingOrder);
    QCOMPARE(proxy.index(0, CompareModel::Planner).data().toString(), QStringLiteral("hexiscale"));
    proxy.sort(CompareModel::Interval, Qt::AscendingOrder);
    QCOMPARE(proxy.index(0, CompareModel::Planner).data().toString(), QStringLiteral("metis"));
}

void TestResultsViews::screenshots()
{
    const QString dir = qEnvironmentVariable("HETPLAN_SCREENSHOT_DIR");
    if (dir.isEmpty())
        QSKIP("set HETPLAN_SCREENSHOT_DIR to write screenshots of the results views");
    QVERIFY(QDir().mkpath(dir));
    if (const QString language = qEnvironmentVariable("HETPLAN_SCREENSHOT_LANG");
        !language.isEmpty())
        QVERIFY(!installTranslations(language).isEmpty());
    // The planned case study, as the panel shows it after Plan.
    auto problem = caseStudyProblem("llama2-13b");
    NullProgress quiet;
    const PlanSearch search
        = valueOf(valueOf(makePlanner(PlannerKind::HexiScale))
                      ->plan(*problem, *makeCostModel(CostModelKind::HetPlan), {}, {}, quiet));
    // The whole results half in a window of the app's first size.
    QMainWindow window;
    window.resize(1280, 800);
    ClusterModel clusterModel;
    QVERIFY(clusterModel.reset(valueOf(loadCluster("case-study"))).ok());
    ResultsPanel panel(&clusterModel, &window);
    panel.showPlan({problem, search.plan, search.evaluation});
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(window.grab().save(dir + QStringLiteral("/window.png")));
    window.hide();

    // 240 GPUs, thousands of micro-batches: the timeline must stay readable.
    const auto largeWorkload = findExample("large-cluster", ExampleKind::Workload);
    QVERIFY(largeWorkload);
    auto large = std::make_shared<const Problem>(Problem{
        valueOf(Topology::build(valueOf(loadCluster("large-cluster")), builtinGpuCatalog())),
        valueOf(loadModel("llama2-70b")),
        valueOf(parseWorkload(largeWorkload->text, largeWorkload->path))});
    PlannerOptions quick;
    quick.maxIterations = 3;
    const PlanSearch largeSearch
        = valueOf(valueOf(makePlanner(PlannerKind::HexiScale))
                      ->plan(*large, *makeCostModel(CostModelKind::HetPlan), quick, {}, quiet));

    for (const auto &[name, shown] :
         {std::pair{QStringLiteral("case-study"),
                    ShownPlan{problem, search.plan, search.evaluation}},
          std::pair{QStringLiteral("large-cluster"),
                    ShownPlan{large, largeSearch.plan, largeSearch.evaluation}},
          std::pair{QStringLiteral("two-pipelines"), twoPipelinePlan()},
          std::pair{QStringLiteral("overflow"), overflowingPlan()}}) {
        PlanView view;
        view.setPlan(shown);
        view.resize(view.sizeHint());
        QVERIFY(view.grab().save(dir + QStringLiteral("/plan-view-%1.png").arg(name)));
        BreakdownChart breakdown;
        MemoryChart memory;
        TimelineChart timeline;
        breakdown.setPlan(shown);
        memory.setPlan(shown);
        timeline.setPlan(shown);
        for (QCustomPlot *plot :
             std::initializer_list<QCustomPlot *>{&breakdown, &memory, &timeline}) {
            plot->resize(720, 420); // the Charts dock at its first size
            const QString file = QStringLiteral("%1/%2-%3.png")
                                     .arg(dir,
                                          QString::fromLatin1(plot->metaObject()->className())
                                              .section(QStringLiteral("::"), -1)
                                              .toLower(),
                                          name);
            QVERIFY(plot->grab().save(file));
        }
    }
}

HETPLAN_TEST_MAIN(TestResultsViews)
#include "tst_results_views.moc"
