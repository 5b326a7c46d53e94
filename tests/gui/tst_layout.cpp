// The window at its default size, 1280×800, as a person first sees it: the canvas opens at a
// readable zoom, Duplicate puts the copy in free space, the what-if rows are readable and show
// what the group slider does to each link, and every chart shows whole: the sweep inside its
// dock, a readable row per serving replica, axis titles inside the chart and tick labels
// that do not run into each other.
#include "canvas/cluster_scene.h"
#include "canvas/cluster_view.h"
#include "canvas_test_support.h"
#include "mainwindow.h"
#include "model/cluster_model.h"
#include "model/document.h"
#include "results/breakdown_chart.h"
#include "results/chart_support.h"
#include "results/convergence_chart.h"
#include "results/memory_chart.h"
#include "results/plan_view.h"
#include "results/planning_controller.h"
#include "results/qcustomplot_include.h"
#include "results/results_panel.h"
#include "results/serving_view.h"
#include "results/sweep_view.h"
#include "results/timeline_chart.h"
#include "results/whatif_panel.h"
#include "tests/test_registry.h"
#include "window_test_support.h"

#include <QAction>
#include <QDockWidget>
#include <QLabel>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSlider>
#include <QStandardPaths>
#include <QTest>

using namespace hetplan;
using namespace hetplan::gui;
using hetplan::gui::test::threeMachines;

class TestLayout : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void canvasOpensAtAReadableZoom_data();
    void canvasOpensAtAReadableZoom();
    void duplicateGoesToFreeSpace();
    void whatIfRowsShowTheGroupSlidersEffect();
    void whatIfLabelsAreNotElided();
    void sweepChartIsWholeInItsDock();
    void servingRowsAreReadable();
    void chartLabelsFit_data();
    void chartLabelsFit();
    void stageTitlesAreWhole();
};

void TestLayout::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("HetPlanTest"));
    QSettings().clear();
}

void TestLayout::canvasOpensAtAReadableZoom_data()
{
    QTest::addColumn<QString>("example");
    QTest::newRow("case-study") << QStringLiteral("case-study");
    QTest::newRow("hexgen-half-price") << QStringLiteral("hexgen-half-price");
    QTest::newRow("large-cluster") << QStringLiteral("large-cluster");
}

void TestLayout::canvasOpensAtAReadableZoom()
{
    QFETCH(QString, example);
    // As at start: the example opens before the window is shown (main.cpp).
    MainWindow window;
    QVERIFY(window.openExample(example));
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QTest::qWait(50); // the fit runs once the new cards are laid out
    const double zoom = window.view()->zoom();
    // Cards stay readable (a machine card at least ~75 px wide) and are not blown up.
    QVERIFY2(zoom >= 0.4 && zoom <= 1.5, qPrintable(QString::number(zoom)));
}

void TestLayout::duplicateGoesToFreeSpace()
{
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    ClusterModel *model = window.document()->clusterModel();
    QVERIFY(model->reset(threeMachines()).ok()); // A, B, C in a row with little room between
    ClusterScene *scene = window.scene();
    for (const char *name : {"A", "B"}) {
        scene->setSelectedIds({model->nodeByName(name)});
        window.view()->action(ClusterView::Action::Duplicate)->trigger();
        const std::vector<ItemId> copy = scene->selectedIds();
        QCOMPARE(copy.size(), std::size_t(1));
        const QRectF copyRect = scene->itemFor(copy.front())->sceneBoundingRect();
        for (const ItemId id : model->machineIds())
            if (id != copy.front())
                QVERIFY2(!copyRect.intersects(scene->itemFor(id)->sceneBoundingRect()),
                         qPrintable(QStringLiteral("the copy of %1 covers %2")
                                        .arg(QLatin1String(name),
                                             QString::fromStdString(model->machine(id)->name))));
    }
}

namespace {

// The window at 1280×800 with the case study planned and the What if tab in front.
bool plannedCaseStudy(MainWindow &window)
{
    window.show();
    if (!QTest::qWaitForWindowExposed(&window) || !window.openExample(QStringLiteral("case-study")))
        return false;
    QSignalSpy finished(window.results()->controller(), &PlanningController::finished);
    window.results()->plan();
    if (!finished.wait(120'000) || !window.results()->shownPlan())
        return false;
    window.bringToFront(window.results()->whatIfPanel());
    QTest::qWait(50);
    return true;
}

} // namespace

void TestLayout::whatIfRowsShowTheGroupSlidersEffect()
{
    MainWindow window;
    QVERIFY(plannedCaseStudy(window));
    WhatIfPanel *whatIf = window.results()->whatIfPanel();
    const int network = whatIf->sliderFor({BandwidthTarget::Kind::Network, -1});
    QVERIFY(network >= 0);
    int link = -1;
    for (int i = 0; i < whatIf->sliderCount(); ++i)
        if (whatIf->target(i).kind == BandwidthTarget::Kind::Link && link < 0)
            link = i;
    QVERIFY(link >= 0);
    const QString before = whatIf->valueText(link);
    const double drawnGBps = drawnBandwidthGBps(
        window.results()->shownPlan()->problem->topology.cluster(), whatIf->target(link));
    // All inter-machine links ×10: the link's row shows ten times its bandwidth, at ×1 itself.
    whatIf->slider(network)->setValue(100);
    const QString after = whatIf->valueText(link);
    QVERIFY2(after.startsWith(ResultsText::bandwidth(drawnGBps * 10)),
             qPrintable(before + QStringLiteral(" -> ") + after));
}

void TestLayout::whatIfLabelsAreNotElided()
{
    MainWindow window;
    QCOMPARE(window.size(), QSize(1280, 800));
    QVERIFY(plannedCaseStudy(window));
    WhatIfPanel *whatIf = window.results()->whatIfPanel();
    QVERIFY(whatIf->isVisible());
    int names = 0;
    for (QLabel *label : whatIf->findChildren<QLabel *>()) {
        if (!label->isVisible() || label->toolTip().isEmpty())
            continue;
        if (label->toolTip() == label->text() || label->text().endsWith(QStringLiteral("…"))) {
            ++names;
            QVERIFY2(!label->text().endsWith(QStringLiteral("…")),
                     qPrintable(label->text() + QStringLiteral(" / ") + label->toolTip()));
        }
    }
    QVERIFY(names >= 2);
}

namespace {

// The part of `widget` a person can see: its rect clipped by every ancestor (scroll areas,
// docks), in the widget's own coordinates.
QRect visibleRect(const QWidget *widget)
{
    QRect visible = widget->rect();
    for (const QWidget *w = widget; w->parentWidget(); w = w->parentWidget()) {
        const QWidget *parent = w->parentWidget();
        const QPoint offset = widget->mapTo(parent, QPoint(0, 0));
        visible &= parent->rect().translated(-offset);
    }
    return visible;
}

// What is wrong with how `plot` shows its axes' titles and tick labels; empty when nothing.
// An axis title is centred on its axis and must lie in the visible part of the chart; tick
// labels along an axis must not overlap.
QString labelFault(QCustomPlot *plot)
{
    plot->replot();
    QCoreApplication::processEvents(); // a queued re-tick after the first layout
    plot->replot();
    const QRect visible = visibleRect(plot);
    const QRect area = plot->axisRect()->rect();
    for (QCPAxis *axis : plot->axisRect()->axes()) {
        if (!axis->visible())
            continue;
        const bool vertical = axis->orientation() == Qt::Vertical;
        if (!axis->label().isEmpty()) {
            const int lengthPx = QFontMetrics(axis->labelFont()).horizontalAdvance(axis->label());
            const int centre = vertical ? area.center().y() : area.center().x();
            const int low = vertical ? visible.top() : visible.left();
            const int high = vertical ? visible.bottom() : visible.right();
            if (centre - lengthPx / 2 < low || centre + lengthPx / 2 > high)
                return QStringLiteral("axis title '%1' (%2 px) does not fit %3..%4 px")
                    .arg(axis->label())
                    .arg(lengthPx)
                    .arg(low)
                    .arg(high);
        }
        const QFontMetrics fm(axis->tickLabelFont());
        const QVector<double> ticks = axis->tickVector();
        const QVector<QString> labels = axis->tickVectorLabels();
        double previousPx = qQNaN();
        QString previous;
        for (qsizetype i = 0; i < ticks.size() && i < labels.size(); ++i) {
            if (!axis->range().contains(ticks[i]) || labels[i].isEmpty())
                continue;
            const double px = axis->coordToPixel(ticks[i]);
            // Side by side, unrotated labels need half of each one's width; stacked or
            // slanted ones, a line of text.
            const double needPx
                = vertical || axis->tickLabelRotation() != 0
                      ? fm.height()
                      : (fm.horizontalAdvance(previous) + fm.horizontalAdvance(labels[i])) / 2.0;
            if (!std::isnan(previousPx) && std::abs(px - previousPx) < needPx)
                return QStringLiteral("tick labels '%1' and '%2' overlap (%3 px apart)")
                    .arg(previous, labels[i])
                    .arg(std::abs(px - previousPx));
            previousPx = px;
            previous = labels[i];
        }
    }
    return {};
}

// The window at 1280×800 with `example` opened and planned.
bool plannedExample(MainWindow &window, const QString &example)
{
    window.show();
    return QTest::qWaitForWindowExposed(&window) && window.openExample(example)
           && test::planAndWait(window);
}

} // namespace

void TestLayout::sweepChartIsWholeInItsDock()
{
    MainWindow window;
    QVERIFY(plannedCaseStudy(window));
    auto *sweep = window.findChild<SweepView *>();
    QVERIFY(sweep);
    window.bringToFront(sweep);
    QPushButton *run = nullptr;
    for (QPushButton *button : sweep->findChildren<QPushButton *>())
        if (button->text() == QStringLiteral("Run sweep"))
            run = button;
    QVERIFY(run);
    QSignalSpy finished(sweep, &SweepView::sweepFinished);
    run->click();
    QVERIFY(finished.wait(120'000));
    QCOMPARE(int(sweep->points().size()), SweepView::kPoints);
    QTest::qWait(50);

    QCustomPlot *plot = sweep->plot();
    QVERIFY(plot->isVisible());
    QCOMPARE(visibleRect(plot), plot->rect()); // nothing scrolled or cut off
    QDockWidget *dock = nullptr;
    for (QWidget *w = plot; w && !dock; w = w->parentWidget())
        dock = qobject_cast<QDockWidget *>(w);
    QVERIFY(dock);
    QVERIFY(dock->rect().contains(QRect(plot->mapTo(dock, QPoint(0, 0)), plot->size())));
    // Room for the curves: several lines of text high, most of the window wide.
    const QRect area = plot->axisRect()->rect();
    QVERIFY2(area.height() >= 4 * plot->fontMetrics().height() && area.width() >= 600,
             qPrintable(QStringLiteral("%1×%2").arg(area.width()).arg(area.height())));
    const QString fault = labelFault(plot);
    QVERIFY2(fault.isEmpty(), qPrintable(fault));
}

void TestLayout::servingRowsAreReadable()
{
    MainWindow window;
    QCOMPARE(window.size(), QSize(1280, 800));
    QVERIFY(plannedExample(window, QStringLiteral("hexgen-full-price")));
    const size_t replicas = window.results()->shownPlan()->evaluation.replicaLatencyS.size();
    QVERIFY(replicas >= 4);
    ServingView *serving = window.results()->servingView();
    window.bringToFront(serving);
    QTest::qWait(50);
    QCustomPlot *plot = serving->latencyPlot();
    auto *bars = qobject_cast<QCPBars *>(plot->plottable(0));
    QVERIFY(bars);
    plot->replot();
    const QRect area = plot->axisRect()->rect();
    // A replica's bar row holds its name; the bars are long enough to compare latencies.
    const QPointF first = bars->dataPixelPosition(0);
    const QPointF second = bars->dataPixelPosition(1);
    const bool stacked = std::abs(first.x() - second.x()) < 1; // one row under the other
    const double rowPx = std::abs(stacked ? second.y() - first.y() : second.x() - first.x());
    QVERIFY2(rowPx >= 1.2 * plot->fontMetrics().height(), qPrintable(QString::number(rowPx)));
    const int barRoomPx = stacked ? area.width() : area.height();
    QVERIFY2(barRoomPx >= 200, qPrintable(QString::number(barRoomPx)));
    // Every row is named.
    QSet<QString> named;
    for (const QCPAxis *axis : plot->axisRect()->axes())
        for (const QString &label : axis->tickVectorLabels())
            named.insert(label);
    for (int r = 0; r < int(replicas); ++r)
        QVERIFY2(named.contains(ResultsText::pipelineName(Mode::Infer, r)),
                 qPrintable(QString::number(r)));
    const QString fault = labelFault(plot);
    QVERIFY2(fault.isEmpty(), qPrintable(fault));
}

void TestLayout::chartLabelsFit_data()
{
    QTest::addColumn<QString>("example");
    QTest::newRow("case-study") << QStringLiteral("case-study");
    QTest::newRow("large-cluster") << QStringLiteral("large-cluster");
    QTest::newRow("hexgen-full-price") << QStringLiteral("hexgen-full-price");
}

void TestLayout::chartLabelsFit()
{
    QFETCH(QString, example);
    MainWindow window;
    QVERIFY(plannedExample(window, example));
    ResultsPanel *results = window.results();
    // The tabs the plan's mode shows: the timeline for training, serving for inference.
    const bool serving = results->shownPlan()->plan.workload.mode == Mode::Infer;
    QList<QCustomPlot *> plots
        = {results->breakdownChart(), results->memoryChart(), results->convergenceChart()};
    if (serving)
        plots << results->servingView()->latencyPlot() << results->servingView()->attainmentPlot();
    else
        plots << results->timelineChart();
    for (QCustomPlot *plot : plots) {
        window.bringToFront(plot);
        QTest::qWait(50);
        QVERIFY(plot->isVisible());
        const QString fault = labelFault(plot);
        QVERIFY2(fault.isEmpty(), qPrintable(chartTitle(plot) + QStringLiteral(": ") + fault));
    }
}

void TestLayout::stageTitlesAreWhole()
{
    MainWindow window;
    QVERIFY(plannedExample(window, QStringLiteral("hexgen-full-price"))); // 80 layers
    const PlanView *view = window.results()->planView();
    QFont bold = view->font();
    bold.setBold(true);
    const QFontMetrics fm(bold);
    const Plan &plan = window.results()->shownPlan()->plan;
    for (int p = 0; p < int(plan.pipelines.size()); ++p) {
        for (int j = 0; j < int(plan.pipelines[size_t(p)].stages.size()); ++j) {
            // "Stage 0 · 0–39 (40 layers)": the first line of the box, in bold, with padding.
            const QString title = view->stageText(p, j).section(QLatin1Char('\n'), 0, 0);
            QVERIFY2(fm.horizontalAdvance(title) + 12 <= view->stageRect(p, j).width(),
                     qPrintable(title));
        }
    }
}

HETPLAN_TEST_MAIN(TestLayout)
#include "tst_layout.moc"
