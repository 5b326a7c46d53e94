// Linking two machines in the real window on the first try, with real mouse events on the
// canvas: from anywhere on an unselected machine's border, with the Link tool (drag or click
// then click), and with feedback when the line is dropped on empty space.
#include "canvas/cluster_scene.h"
#include "canvas/cluster_view.h"
#include "canvas/node_item.h"
#include "canvas_test_support.h"
#include "mainwindow.h"
#include "model/cluster_model.h"
#include "model/document.h"
#include "tests/test_registry.h"

#include <QAction>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTest>

using namespace hetplan;
using namespace hetplan::gui;
using hetplan::gui::test::threeMachines;

namespace {

// The window at its default size on three unlinked machines, fitted as after opening.
struct Window
{
    Window()
    {
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.document()->clusterModel()->reset(threeMachines()).ok());
        QApplication::processEvents();
        window.view()->fitToWindow();
    }

    ClusterModel *model() const { return window.document()->clusterModel(); }
    QWidget *viewport() const { return window.view()->viewport(); }
    ItemId node(const char *name) const { return model()->nodeByName(name); }
    const NodeItem *item(const char *name) const
    {
        return static_cast<const NodeItem *>(window.scene()->itemFor(node(name)));
    }
    // A point `insetPx` pixels inside the left edge of a card, halfway down.
    QPoint borderPoint(const char *name, int insetPx) const
    {
        const NodeItem *card = item(name);
        const QPointF left
            = card->mapToScene(QPointF(card->cardRect().left(), card->cardRect().center().y()));
        return window.view()->mapFromScene(left) + QPoint(insetPx, 0);
    }
    QPoint centre(const char *name) const { return window.view()->mapFromScene(item(name)->pos()); }

    MainWindow window;
};

void drag(QWidget *viewport, QPoint from, QPoint to)
{
    QTest::mousePress(viewport, Qt::LeftButton, {}, from);
    constexpr int kSteps = 6;
    for (int i = 1; i <= kSteps; ++i)
        QTest::mouseMove(viewport, from + (to - from) * i / kSteps);
    QTest::mouseRelease(viewport, Qt::LeftButton, {}, to);
}

} // namespace

class TestLinkDrawing : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void dragFromTheBorderOfAnUnselectedMachine();
    void linkToolDragAndClickClick();
    void droppingOnEmptySpaceSaysSo();
};

void TestLinkDrawing::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("HetPlanTest"));
    QSettings().clear();
}

void TestLinkDrawing::dragFromTheBorderOfAnUnselectedMachine()
{
    Window w;
    QVERIFY(w.model()->linkIds().empty());
    QVERIFY(!w.item("A")->isSelected());
    const CanvasPosition before = w.model()->machine(w.node("A"))->position;
    // A few pixels inside the border, far from the connector handle on the right edge.
    const QPoint from = w.borderPoint("A", 5);
    QTest::mousePress(w.viewport(), Qt::LeftButton, {}, from);
    QTest::mouseMove(w.viewport(), (from + w.centre("B")) / 2);
    QVERIFY(w.window.scene()->isDrawingLink()); // the rubber-band line is up
    QTest::mouseMove(w.viewport(), w.centre("B"));
    QTest::mouseRelease(w.viewport(), Qt::LeftButton, {}, w.centre("B"));

    QCOMPARE(w.model()->linkIds().size(), std::size_t(1));
    QCOMPARE(w.model()->linkEnds(w.model()->linkIds().front()),
             std::make_pair(w.node("A"), w.node("B")));
    QCOMPARE(w.model()->machine(w.node("A"))->position, before); // nothing moved
    // The middle of a card still moves it.
    drag(w.viewport(), w.centre("C"), w.centre("C") + QPoint(0, 60));
    QCOMPARE(w.model()->linkIds().size(), std::size_t(1));
    QVERIFY(w.model()->machine(w.node("C"))->position.y > 0);
}

void TestLinkDrawing::linkToolDragAndClickClick()
{
    Window w;
    QAction *tool = w.window.view()->action(ClusterView::Action::LinkTool);
    QVERIFY(tool && tool->isCheckable());
    QCOMPARE(tool->shortcut(), QKeySequence(Qt::Key_L));
    w.window.view()->setFocus();
    QTest::keyClick(w.viewport(), Qt::Key_L);
    QVERIFY(w.window.scene()->linkMode());

    // In the tool, a drag from the middle of a card links.
    drag(w.viewport(), w.centre("A"), w.centre("B"));
    QCOMPARE(w.model()->linkIds().size(), std::size_t(1));

    // Click C, the line follows the pointer, click B.
    QTest::mouseClick(w.viewport(), Qt::LeftButton, {}, w.centre("C"));
    QVERIFY(w.window.scene()->isDrawingLink());
    QTest::mouseMove(w.viewport(), w.centre("B"));
    QTest::mouseClick(w.viewport(), Qt::LeftButton, {}, w.centre("B"));
    QCOMPARE(w.model()->linkIds().size(), std::size_t(2));
    QCOMPARE(w.model()->linkEnds(w.model()->linkIds().back()),
             std::make_pair(w.node("C"), w.node("B")));

    // Escape leaves the tool.
    QTest::keyClick(w.viewport(), Qt::Key_Escape);
    QVERIFY(!w.window.scene()->linkMode());
    QVERIFY(!tool->isChecked());
}

void TestLinkDrawing::droppingOnEmptySpaceSaysSo()
{
    Window w;
    const QPoint empty = w.centre("A") + QPoint(0, w.viewport()->height() / 3);
    QCOMPARE(w.window.scene()->nodeAt(w.window.view()->mapToScene(empty)), ItemId(0));
    drag(w.viewport(), w.borderPoint("A", 4), empty);
    QVERIFY(w.model()->linkIds().empty());
    QVERIFY(!w.window.scene()->isDrawingLink());
    const QString message = w.window.statusBar()->currentMessage();
    QVERIFY2(message.contains(QLatin1String("No link drawn")), qPrintable(message));
}

HETPLAN_TEST_MAIN(TestLinkDrawing)
#include "tst_link_drawing.moc"
