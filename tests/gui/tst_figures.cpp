// The figures a person reads in the real window say what they are: the progress line's final
// text is the shown plan's, in-progress figures are marked as the best so far, the timeline
// says which of its two times the planner optimises, and charts without meaning are hidden.
#include "mainwindow.h"
#include "results/chart_support.h"
#include "results/convergence_chart.h"
#include "results/planner_settings.h"
#include "results/planning_controller.h"
#include "results/results_panel.h"
#include "results/results_text.h"
#include "results/serving_view.h"
#include "results/timeline_chart.h"
#include "tests/test_registry.h"

#include <QLabel>
#include <QProgressBar>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QTest>

using namespace hetplan;
using namespace hetplan::gui;

namespace {

constexpr int kPlanTimeoutMs = 120'000;

bool planAndWait(MainWindow &window)
{
    QSignalSpy finished(window.results()->controller(), &PlanningController::finished);
    window.results()->plan();
    return finished.wait(kPlanTimeoutMs) && window.results()->shownPlan();
}

} // namespace

class TestFigures : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void finalLineIsTheShownPlans();
    void progressBarMoves();
    void timelineSaysWhichTimeThePlannerOptimises();
    void trainingHidesTheServingTab();
    void servingTicksAreReadable();
    void hexgenConvergenceShowsAttainment();
};

void TestFigures::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("HetPlanTest"));
    QSettings().clear();
}

void TestFigures::finalLineIsTheShownPlans()
{
    MainWindow window;
    window.show();
    QVERIFY(window.openExample(QStringLiteral("case-study")));
    ResultsPanel *results = window.results();
    PlanningController *controller = results->controller();
    QStringList during;
    connect(controller, &PlanningController::progressChanged, this,
            [&] { during << results->progressLabel()->text(); });
    QSignalSpy finished(controller, &PlanningController::finished);
    results->plan();
    QVERIFY(finished.wait(kPlanTimeoutMs));
    QTest::qWait(200); // anything still queued from the planning thread
    QVERIFY(results->shownPlan());
    const Evaluation &shown = results->shownPlan()->evaluation;
    const QString final = results->progressLabel()->text();
    QVERIFY2(final.contains(ResultsText::duration(shown.iterationS))
                 && final.contains(ResultsText::percent(shown.mfu)),
             qPrintable(final));
    QVERIFY2(!final.contains(QLatin1String("so far")), qPrintable(final));
    for (const QString &text : during)
        if (text.contains(QLatin1String("MFU")) && !text.startsWith(QLatin1String("Planned")))
            QVERIFY2(text.contains(QLatin1String("best so far")), qPrintable(text));
}

void TestFigures::progressBarMoves()
{
    MainWindow window;
    window.show();
    QVERIFY(window.openExample(QStringLiteral("case-study")));
    ResultsPanel *results = window.results();
    PlanningController *controller = results->controller();
    auto *bar = window.statusBar()->findChild<QProgressBar *>();
    QVERIFY(bar);
    // Without a bound: a busy indicator (Qt animates a 0–0 range), never an empty bar.
    bool empty = false;
    auto watch = connect(controller, &PlanningController::progressChanged, this, [&] {
        empty = empty || (bar->maximum() > 0 && bar->value() <= bar->minimum());
    });
    QSignalSpy finished(controller, &PlanningController::finished);
    results->plan();
    QVERIFY(finished.wait(kPlanTimeoutMs));
    QVERIFY(!empty);
    disconnect(watch);

    // With an iteration bound the bar fills as the planner goes. The 240-GPU cluster, so that
    // 40 iterations outlast Qt's throttling of progress signals (at most 25 a second).
    QVERIFY(window.openExample(QStringLiteral("large-cluster")));
    PlannerSettings settings;
    settings.maxIterations = 40;
    settings.save();
    QList<int> values;
    connect(controller, &PlanningController::progressChanged, this, [&] {
        if (bar->maximum() > 0)
            values << bar->value();
    });
    results->plan();
    QVERIFY(finished.wait(kPlanTimeoutMs));
    QVERIFY2(values.size() >= 2 && values.last() > values.first(),
             qPrintable(QString::number(values.size())));
    QVERIFY(values.last() <= bar->maximum());
}

void TestFigures::timelineSaysWhichTimeThePlannerOptimises()
{
    MainWindow window;
    window.show();
    QVERIFY(window.openExample(QStringLiteral("case-study")));
    QVERIFY(planAndWait(window));
    const ShownPlan &shown = *window.results()->shownPlan();
    TimelineChart *timeline = window.results()->timelineChart();
    const QString title = chartTitle(timeline);
    QVERIFY2(title.contains(QLatin1String("simulated"))
                 && title.contains(QLatin1String("the planner optimises the cost model's"))
                 && title.contains(ResultsText::duration(shown.evaluation.iterationS)),
             qPrintable(title));
    QVERIFY2(timeline->toolTip().contains(QLatin1String("closed-form"))
                 && timeline->toolTip().contains(QLatin1String("waits")),
             qPrintable(timeline->toolTip()));
}

void TestFigures::trainingHidesTheServingTab()
{
    MainWindow window;
    window.show();
    QVERIFY(window.openExample(QStringLiteral("case-study")));
    QVERIFY(planAndWait(window));
    const auto tabOf = [](QWidget *page) {
        auto *tabs = qobject_cast<QTabWidget *>(page->parentWidget()->parentWidget());
        return std::pair(tabs, tabs ? tabs->indexOf(page) : -1);
    };
    auto [tabs, serving] = tabOf(window.results()->servingView());
    QVERIFY(tabs && serving >= 0);
    QVERIFY(!tabs->isTabVisible(serving));
    QVERIFY(tabs->isTabVisible(tabs->indexOf(window.results()->timelineChart())));

    // A serving plan: the other way round.
    QVERIFY(window.openExample(QStringLiteral("hexgen-half-price")));
    QVERIFY(planAndWait(window));
    QVERIFY(tabs->isTabVisible(serving));
    QVERIFY(!tabs->isTabVisible(tabs->indexOf(window.results()->timelineChart())));
}

void TestFigures::servingTicksAreReadable()
{
    ServingView view;
    view.resize(900, 400);
    view.show();
    QCustomPlot *plot = view.attainmentPlot();
    plot->replot();
    const QList<QCPAxis *> axes = {plot->xAxis, plot->yAxis, plot->yAxis2};
    for (QCPAxis *axis : axes)
        for (const QString &label : axis->tickVectorLabels())
            QVERIFY2(label.size() <= 5, qPrintable(label));
}

void TestFigures::hexgenConvergenceShowsAttainment()
{
    MainWindow window;
    window.show();
    QVERIFY(window.openExample(QStringLiteral("hexgen-half-price")));
    QVERIFY(planAndWait(window));
    ConvergenceChart *chart = window.results()->convergenceChart();
    QVERIFY(chart->showsAttainment());
    QVERIFY(chart->lineCount() >= 1);
    const QSharedPointer<QCPGraphDataContainer> data = chart->graph(0)->data();
    QVERIFY(!data->isEmpty());
    const double last = data->at(data->size() - 1)->value;
    // HexGen maximises SLO attainment: its line is the attainment in percent, not 1 − it.
    const double attainment = window.results()->shownPlan()->evaluation.serving
                                  ? window.results()->shownPlan()->evaluation.serving->attainment
                                  : -1;
    QVERIFY2(last > 0, qPrintable(QString::number(last)));
    if (attainment >= 0)
        QCOMPARE(qRound(last), qRound(attainment * 100));
    QVERIFY(chart->yAxis->range().upper >= 100);
    QVERIFY(chartTitle(chart).contains(QLatin1String("SLO attainment")));
}

HETPLAN_TEST_MAIN(TestFigures)
#include "tst_figures.moc"
