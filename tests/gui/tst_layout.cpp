// The window at its default size, 1280×800, as a person first sees it: the canvas opens at a
// readable zoom, Duplicate puts the copy in free space, the what-if rows are readable and show
// what the group slider does to each link.
#include "canvas/cluster_scene.h"
#include "canvas/cluster_view.h"
#include "canvas_test_support.h"
#include "mainwindow.h"
#include "model/cluster_model.h"
#include "model/document.h"
#include "results/planning_controller.h"
#include "results/results_panel.h"
#include "results/whatif_panel.h"

#include <QAction>
#include <QLabel>
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

QTEST_MAIN(TestLayout)
#include "tst_layout.moc"
