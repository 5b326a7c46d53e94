// Planning through the results panel: the plan and charts it shows are exactly what the core
// (and `hetplan-cli evaluate`) says about the plan; Cancel returns control at once; the event
// loop keeps running while planners search; nothing-fits and broken clusters are explained.
#include "core/base/text.h"
#include "core/cost/validator.h"
#include "core/io/catalog_json.h"
#include "core/io/formats.h"
#include "core/io/loaders.h"
#include "model/document.h"
#include "results/breakdown_chart.h"
#include "results/compare_model.h"
#include "results/compare_view.h"
#include "results/exporters.h"
#include "results/memory_chart.h"
#include "results/plan_view.h"
#include "results/planning_controller.h"
#include "results/results_panel.h"
#include "tests/test_registry.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMainWindow>
#include <QMenu>
#include <QProcess>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <cmath>
#include <fstream>

using namespace hetplan;
using namespace hetplan::gui;

namespace {

template<typename T>
T valueOf(Result<T> result, const char *what)
{
    if (!result)
        qFatal("%s: %s", what, result.error().message.c_str());
    return std::move(result).value();
}

Workload bundledWorkload(const char *example)
{
    const auto found = findExample(example, ExampleKind::Workload);
    Q_ASSERT(found);
    return valueOf(parseWorkload(found->text, found->path), example);
}

Problem problemFor(const char *cluster, const char *model)
{
    auto topology = Topology::build(valueOf(loadCluster(cluster), cluster), builtinGpuCatalog());
    return {valueOf(std::move(topology), cluster), valueOf(loadModel(model), model),
            bundledWorkload(cluster)};
}

bool close(double a, double b)
{
    return std::abs(a - b) <= 1e-9 * std::max({1.0, std::abs(a), std::abs(b)});
}

// A window with the results panel on the given example, as the main window would build it.
struct Window
{
    QMainWindow window;
    ClusterModel clusterModel;
    ResultsPanel *panel = nullptr;

    Window(const char *cluster, const char *model)
    {
        QVERIFY2(clusterModel.reset(valueOf(loadCluster(cluster), cluster)).ok(), cluster);
        panel = new ResultsPanel(&clusterModel, &window);
        panel->setModel(valueOf(loadModel(model), model));
        if (findExample(cluster, ExampleKind::Workload))
            panel->setWorkload(bundledWorkload(cluster));
    }
};

QString cliPath()
{
    const QString fromEnv = qEnvironmentVariable("HETPLAN_CLI");
    return fromEnv.isEmpty()
               ? QCoreApplication::applicationDirPath() + QStringLiteral("/hetplan-cli")
               : fromEnv;
}

} // namespace

class TestPlanning : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void caseStudyMatchesCore();
    void cancelReturnsAtOnce();
    void eventLoopKeepsRunning();
    void closingTheWindowStopsPlanning();
    void compareAllPlanners();
    void nothingFitsNamesTheGpus();
    void brokenClusterPointsAtCulprit();
    void followsTheDocument();
    void editingWhilePlanningIsSafe();
};

void TestPlanning::caseStudyMatchesCore()
{
    Window w("case-study", "llama2-13b");
    QSignalSpy finished(w.panel->controller(), &PlanningController::finished);
    w.panel->plan();
    QVERIFY(finished.wait(60000));
    QVERIFY(w.panel->shownPlan().has_value());
    const Plan &plan = w.panel->shownPlan()->plan;

    // The core's own evaluation of the plan, on a problem built without the panel.
    const Problem problem = problemFor("case-study", "llama2-13b");
    QVERIFY(validatePlan(problem, plan, makeCostModel(CostModelKind::HetPlan).get()).empty());
    const Evaluation expected = makeCostModel(CostModelKind::HetPlan)->evaluate(problem, plan);

    // Plan view: one box per stage, saying what the stage is.
    const PlanView *view = w.panel->planView();
    for (int p = 0; p < int(plan.pipelines.size()); ++p) {
        const Pipeline &pipeline = plan.pipelines[size_t(p)];
        QVERIFY(view->pipelineText(p).contains(QStringLiteral("micro-batch")));
        for (int j = 0; j < int(pipeline.stages.size()); ++j) {
            const Stage &stage = pipeline.stages[size_t(j)];
            const QStringList lines = view->stageText(p, j).split(QLatin1Char('\n'));
            QCOMPARE(lines.size(), 5);
            // Counted from 0 with inclusive layer ranges, as the plan file and the CLI do.
            QCOMPARE(lines[0], QStringLiteral("Stage %1 · %2")
                                   .arg(j)
                                   .arg(QString::fromStdString(
                                       layerRangeText(stage.layerBegin, stage.layerEnd))));
            QStringList gpus;
            for (int gpu : stage.gpus)
                gpus << QString::fromStdString(problem.topology.gpu(gpu).name);
            QCOMPARE(lines[1], gpus.join(QStringLiteral(", ")));
            QCOMPARE(lines[2], QStringLiteral("TP %1 · DP %2").arg(stage.tp).arg(stage.dp));
            QCOMPARE(lines[3], QStringLiteral("micro-batches: %1 × %2")
                                   .arg(pipeline.microBatches)
                                   .arg(pipeline.microBatch));
            QVERIFY(lines[4].contains(
                QString::fromStdString(problem.topology.gpuType(stage.gpus.front()).name)));
        }
    }

    // Breakdown chart: the whole plan, then each pipeline, exactly the core's figures.
    const BreakdownChart *chart = w.panel->breakdownChart();
    QCOMPARE(chart->barCount(), 1 + int(expected.pipelines.size()));
    const auto parts = [](const Breakdown &b) {
        return std::vector<double>{b.computeS, b.tpCommS, b.ppCommS, b.dpCommS, b.bubbleS};
    };
    for (int part = 0; part < 5; ++part) {
        QVERIFY(close(chart->value(0, part), parts(expected.breakdown)[size_t(part)]));
        for (int p = 0; p < int(expected.pipelines.size()); ++p)
            QVERIFY(close(chart->value(1 + p, part),
                          parts(expected.pipelines[size_t(p)].breakdown)[size_t(part)]));
    }
    const MemoryChart *memory = w.panel->memoryChart();
    QCOMPARE(memory->gpuCount(), int(expected.memory.size()));
    for (int i = 0; i < memory->gpuCount(); ++i) {
        QVERIFY(close(memory->usedGiB(i), expected.memory[size_t(i)].usedGiB));
        QCOMPARE(memory->isOver(i), !expected.memory[size_t(i)].fits());
    }

    // The exported plan file, evaluated by the CLI, gives the same numbers as the chart.
    QTemporaryDir dir;
    const QString planPath = dir.filePath(QStringLiteral("case-study.plan.json"));
    QVERIFY(exportPlanFile(planPath, *w.panel->shownPlan()).ok());
    if (!QFileInfo::exists(cliPath()))
        QSKIP("hetplan-cli is not built next to this test; set HETPLAN_CLI");
    QProcess cli;
    cli.start(cliPath(), {QStringLiteral("evaluate"), QStringLiteral("--plan"), planPath,
                          QStringLiteral("--json")});
    QVERIFY(cli.waitForFinished(60000));
    QCOMPARE(cli.exitCode(), 0);
    const QJsonObject json = QJsonDocument::fromJson(cli.readAllStandardOutput()).object();
    QVERIFY(close(json.value(QStringLiteral("iteration_s")).toDouble(), expected.iterationS));
    QVERIFY(close(json.value(QStringLiteral("mfu")).toDouble(), expected.mfu));
    const QJsonObject breakdown = json.value(QStringLiteral("breakdown_s")).toObject();
    const QStringList keys
        = {QStringLiteral("compute"), QStringLiteral("tp_comm"), QStringLiteral("pp_comm"),
           QStringLiteral("dp_comm"), QStringLiteral("bubble")};
    for (int part = 0; part < 5; ++part)
        QVERIFY2(close(breakdown.value(keys[part]).toDouble(), chart->value(0, part)),
                 qPrintable(keys[part]));
    const QJsonArray pipelines = json.value(QStringLiteral("pipelines")).toArray();
    QCOMPARE(pipelines.size(), chart->barCount() - 1);
    for (int p = 0; p < int(pipelines.size()); ++p) {
        const QJsonObject b
            = pipelines[p].toObject().value(QStringLiteral("breakdown_s")).toObject();
        for (int part = 0; part < 5; ++part)
            QVERIFY(close(b.value(keys[part]).toDouble(), chart->value(1 + p, part)));
    }
}

void TestPlanning::cancelReturnsAtOnce()
{
    PlanningController controller;
    PlanRequest request;
    request.problem = problemFor("large-cluster", "llama2-70b");
    request.planners = {PlannerKind::HexiScale};
    request.options.maxIterations = 100000; // far longer than the test waits
    QSignalSpy progress(&controller, &PlanningController::progressChanged);
    QSignalSpy finished(&controller, &PlanningController::finished);
    controller.start(std::move(request));
    // Cancel in the middle of the search, once it has a plan to keep.
    QTRY_VERIFY_WITH_TIMEOUT(controller.progress().bestPlan.has_value(), 60000);
    QVERIFY(controller.isRunning());

    QElapsedTimer timer;
    timer.start();
    controller.cancel();
    QVERIFY(finished.wait(5000));
    const qint64 latencyMs = timer.elapsed();
    qInfo("cancel -> finished: %lld ms", latencyMs);
    QVERIFY2(latencyMs < 100, qPrintable(QStringLiteral("took %1 ms").arg(latencyMs)));
    QCOMPARE(finished.front().front().toBool(), true);

    // The best plan found so far is kept, and it is a valid plan.
    QCOMPARE(int(controller.outcomes().size()), 1);
    const PlannerOutcome &outcome = controller.outcomes().front();
    QVERIFY(outcome.search.has_value());
    QVERIFY(outcome.search->stoppedEarly);
    QVERIFY(validatePlan(controller.request()->problem, outcome.search->plan,
                         makeCostModel(CostModelKind::HetPlan).get())
                .empty());
}

// Milliseconds the calling thread has spent runnable but waiting for a core (the second field of
// /proc/thread-self/schedstat): time a loaded machine took from it, not time it blocked itself.
static double runQueueWaitMs()
{
    std::ifstream in("/proc/thread-self/schedstat");
    double onCpuNs = 0;
    double waitingNs = 0;
    in >> onCpuNs >> waitingNs;
    return waitingNs / 1e6;
}

void TestPlanning::eventLoopKeepsRunning()
{
    Window w("large-cluster", "llama2-70b");
    QSignalSpy finished(w.panel->controller(), &PlanningController::finished);
    // The budget (docs/architecture.md): the GUI thread never blocks for more than 50 ms while
    // planning. A gap between two ticks of a 5 ms timer is the GUI thread working or blocked,
    // or waiting for a core on a loaded machine (other tests, other ranks); the last part is
    // not the app's doing and is taken out, so the test holds on a busy machine too.
    QElapsedTimer sinceTick;
    double tickWaitMs = runQueueWaitMs();
    double worstBusyMs = 0;
    qint64 worstGapMs = 0;
    int ticks = 0;
    QString progressShown;
    QTimer timer;
    timer.setInterval(5);
    connect(&timer, &QTimer::timeout, this, [&] {
        const double nowWaitMs = runQueueWaitMs();
        if (finished.isEmpty()) {
            worstGapMs = std::max(worstGapMs, sinceTick.elapsed());
            worstBusyMs
                = std::max(worstBusyMs, double(sinceTick.elapsed()) - (nowWaitMs - tickWaitMs));
            ++ticks;
            if (w.panel->progressLabel()->text().contains(QStringLiteral("best")))
                progressShown = w.panel->progressLabel()->text();
        }
        sinceTick.start();
        tickWaitMs = nowWaitMs;
    });
    sinceTick.start();
    timer.start();
    w.panel->plan();
    QVERIFY(finished.wait(120000));
    timer.stop();
    qInfo("between 5 ms timer ticks while planning: GUI thread unavailable at most %.1f ms, "
          "worst wall gap %lld ms (the rest waiting for a core), over %d ticks",
          worstBusyMs, worstGapMs, ticks);
    QVERIFY(ticks > 10);
    // The progress area showed the iteration and the best plan so far while it ran.
    QVERIFY2(progressShown.contains(QRegularExpression(QStringLiteral(
                 "^hexiscale: iteration \\d+ · best so far [0-9.]+ m?s, MFU [0-9.]+ %$"))),
             qPrintable(progressShown));
    QVERIFY2(
        worstBusyMs < 50,
        qPrintable(
            QStringLiteral("GUI thread unavailable %1 ms between two ticks").arg(worstBusyMs)));
    QVERIFY(w.panel->shownPlan().has_value());
    QElapsedTimer showing;
    showing.start();
    w.panel->showPlan(ShownPlan(*w.panel->shownPlan()));
    qInfo("showing the %d-GPU plan in every view: %lld ms",
          w.panel->shownPlan()->problem->topology.gpuCount(), showing.elapsed());
}

void TestPlanning::closingTheWindowStopsPlanning()
{
    Window w("large-cluster", "llama2-70b");
    w.window.show();
    w.panel->plan();
    QVERIFY(w.panel->controller()->isRunning());
    QElapsedTimer timer;
    timer.start();
    w.window.close();
    // Close waits for the planner; nothing runs behind a closed window.
    QVERIFY(!w.panel->controller()->isRunning());
    qInfo("close -> planning stopped: %lld ms", timer.elapsed());
}

void TestPlanning::compareAllPlanners()
{
    Window w("case-study", "llama2-13b");
    QSignalSpy finished(w.panel->controller(), &PlanningController::finished);
    w.panel->compareAll();
    QVERIFY(finished.wait(120000));
    const CompareModel *model = w.panel->compareModel();
    const std::vector<PlannerKind> kinds = plannersFor(Mode::Train);
    QCOMPARE(model->rowCount(), int(kinds.size()));
    int planned = 0;
    for (int row = 0; row < model->rowCount(); ++row) {
        const PlannerOutcome &outcome = model->outcomes()[size_t(row)];
        QCOMPARE(outcome.planner, kinds[size_t(row)]);
        const QString time = model->index(row, CompareModel::IterationTime).data().toString();
        if (outcome.search) {
            ++planned;
            QVERIFY(time.endsWith(QStringLiteral(" s")) || time.endsWith(QStringLiteral(" ms")));
        } else {
            // Short in the cell, whole in the tooltip (tst_compare_table).
            QCOMPARE(time, CompareModel::failureSummary(*outcome.error));
            QCOMPARE(
                model->index(row, CompareModel::IterationTime).data(Qt::ToolTipRole).toString(),
                CompareModel::failureText(*outcome.error));
        }
    }
    QVERIFY(planned >= 2); // at least HexiScale and the Megatron baseline

    // Sorted by iteration time, the fastest planner comes first and failures last.
    QTableView *table = w.panel->compareView()->table();
    table->sortByColumn(CompareModel::IterationTime, Qt::AscendingOrder);
    const QSortFilterProxyModel *proxy = w.panel->compareView()->proxy();
    double previous = 0;
    for (int row = 0; row < proxy->rowCount(); ++row) {
        const double value = proxy->index(row, CompareModel::IterationTime)
                                 .data(CompareModel::SortRole)
                                 .toDouble();
        QVERIFY(value >= previous);
        previous = value;
    }

    // Choosing a row shows that planner's plan: the slowest one that planned, which is not
    // the plan shown after the run (the fastest).
    const QModelIndex slowest = proxy->index(planned - 1, CompareModel::Planner);
    const PlannerOutcome &chosen
        = model->outcomes()[size_t(slowest.data(CompareModel::OutcomeRole).toInt())];
    QVERIFY(!chosen.search->plan.sameLayout(w.panel->shownPlan()->plan));
    table->setCurrentIndex(slowest);
    QCOMPARE(w.panel->shownPlan()->plan.planner, std::string(plannerName(chosen.planner)));
    QVERIFY(chosen.search->plan.sameLayout(w.panel->shownPlan()->plan));
}

void TestPlanning::nothingFitsNamesTheGpus()
{
    Window w("case-study", "llama2-70b");
    QSignalSpy finished(w.panel->controller(), &PlanningController::finished);
    QSignalSpy culprit(w.panel, &ResultsPanel::culpritSelected);
    w.panel->plan();
    QVERIFY(finished.wait(60000));
    QVERIFY(!w.panel->shownPlan());
    const ProblemsView *problems = w.panel->problemsView();
    QCOMPARE(int(problems->issues().size()), 1);
    const ResultIssue &issue = problems->issues().front();
    QVERIFY2(issue.message.contains(QStringLiteral("no plan fits")), qPrintable(issue.message));
    // Which GPU, how much it needs and how much it has.
    QVERIFY2(issue.message.contains(QRegularExpression(
                 QStringLiteral("[0-9.]+ GiB on [ABC]:[0-9] \\([^,]+, [0-9.]+ GiB\\)"))),
             qPrintable(issue.message));
    QCOMPARE(issue.culprit, ResultIssue::Culprit::Machine);

    w.panel->problemsView()->setCurrentRow(0);
    QCOMPARE(culprit.size(), 1);
    QCOMPARE(culprit.front()[0].toString(), issue.culpritName);
    QCOMPARE(culprit.front()[1].value<ItemId>(),
             w.clusterModel.nodeByName(issue.culpritName.toStdString()));
}

void TestPlanning::brokenClusterPointsAtCulprit()
{
    Cluster cluster = valueOf(loadCluster("case-study"), "case-study");
    cluster.links.erase(std::remove_if(cluster.links.begin(), cluster.links.end(),
                                       [](const Link &l) { return l.a == "C" || l.b == "C"; }),
                        cluster.links.end());
    Window w("case-study", "llama2-13b");
    QSignalSpy culprit(w.panel, &ResultsPanel::culpritSelected);
    QVERIFY(w.clusterModel.reset(cluster).ok());
    const std::vector<ResultIssue> &issues = w.panel->problemsView()->issues();
    QCOMPARE(int(issues.size()), 1);
    QVERIFY(issues.front().message.contains(QStringLiteral("Machine C")));
    w.panel->problemsView()->setCurrentRow(0);
    QCOMPARE(culprit.size(), 1);
    QCOMPARE(culprit.front()[0].toString(), QStringLiteral("C"));
    QCOMPARE(culprit.front()[1].value<ItemId>(), w.clusterModel.nodeByName("C"));
}

void TestPlanning::followsTheDocument()
{
    QMainWindow window;
    Document document;
    QVERIFY(document.openExample(QStringLiteral("case-study")).ok());
    auto *panel = new ResultsPanel(document.clusterModel(), &window);
    panel->followDocument(&document);
    Workload workload = document.project().workload;
    workload.train.globalBatch = 12;
    document.setWorkload(workload);
    QCOMPARE(panel->currentProblem()->workload, workload);
    QCOMPARE(panel->currentProblem()->model.name, document.project().model()->name);

    QSignalSpy finished(panel->controller(), &PlanningController::finished);
    panel->plan();
    QVERIFY(finished.wait(60000));
    QVERIFY(document.project().lastPlan.has_value());
    QVERIFY(document.project().lastPlan->sameLayout(panel->shownPlan()->plan));

    // The saved plan comes back in a fresh panel (as after reopening the project).
    auto *reopened = new ResultsPanel(document.clusterModel(), &window);
    reopened->followDocument(&document);
    QVERIFY(reopened->shownPlan().has_value());
    QVERIFY(reopened->shownPlan()->plan.sameLayout(panel->shownPlan()->plan));

    // A planner chosen in the Plan menu is the document's planner.
    QAction *megatron = nullptr;
    for (QAction *action : panel->planMenu()->actions())
        if (QMenu *sub = action->menu())
            for (QAction *entry : sub->actions())
                if (entry->text() == QLatin1String("megatron"))
                    megatron = entry;
    QVERIFY(megatron);
    megatron->trigger();
    QCOMPARE(document.project().planner, PlannerKind::Megatron);
    QCOMPARE(panel->planner(), std::optional(PlannerKind::Megatron));
}

void TestPlanning::editingWhilePlanningIsSafe()
{
    Window w("case-study", "llama2-13b");
    QSignalSpy finished(w.panel->controller(), &PlanningController::finished);
    w.panel->plan();
    // Remove machine C (and its links) while the planner works on its snapshot.
    w.clusterModel.removeItems({w.clusterModel.nodeByName("C")});
    QCOMPARE(int(w.clusterModel.cluster().machines.size()), 2);
    QVERIFY(finished.wait(60000));
    QVERIFY(w.panel->shownPlan().has_value());
    // The plan is for the cluster as it was when Plan was pressed, and valid there.
    const ShownPlan &shown = *w.panel->shownPlan();
    QCOMPARE(int(shown.problem->topology.cluster().machines.size()), 3);
    QVERIFY(validatePlan(*shown.problem, shown.plan, makeCostModel(CostModelKind::HetPlan).get())
                .empty());
}

HETPLAN_TEST_MAIN(TestPlanning)
#include "tst_planning.moc"
