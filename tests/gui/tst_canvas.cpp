// The cluster canvas driven as a person would: drops from the palette, links drawn by
// dragging, moves, and the edit actions, each checked in the model and through undo.
#include "canvas/canvas_style.h"
#include "canvas/palette.h"
#include "canvas_test_support.h"
#include "tests/test_registry.h"

#include <QApplication>
#include <QClipboard>
#include <QDragEnterEvent>
#include <QElapsedTimer>
#include <QMimeData>
#include <QScrollBar>
#include <QUndoStack>

using namespace hetplan;
using namespace hetplan::gui;
using namespace hetplan::gui::test;

namespace {

// Three machines, no links: room to draw some.

int paletteRow(const Palette &palette, const QString &title)
{
    for (int i = 0; i < palette.count(); ++i)
        if (palette.item(i)->text() == title)
            return i;
    return -1;
}

bool sendDrop(QWidget *viewport, QPoint at, const QMimeData *mime)
{
    QDragEnterEvent enter(at, Qt::CopyAction, mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(viewport, &enter);
    if (!enter.isAccepted())
        return false;
    QDragMoveEvent move(at, Qt::CopyAction, mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(viewport, &move);
    QDropEvent drop(QPointF(at), Qt::CopyAction, mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(viewport, &drop);
    return drop.isAccepted();
}

void drag(QWidget *viewport, QPoint from, QPoint to, Qt::KeyboardModifiers modifiers = {})
{
    QTest::mousePress(viewport, Qt::LeftButton, modifiers, from);
    constexpr int kSteps = 6;
    for (int i = 1; i <= kSteps; ++i)
        QTest::mouseMove(viewport, from + (to - from) * i / kSteps);
    QTest::mouseRelease(viewport, Qt::LeftButton, modifiers, to);
}

bool cardsOverlap(const ClusterModel &model)
{
    std::vector<QRectF> cards;
    for (const ItemId id : model.machineIds()) {
        const CanvasPosition p = model.machine(id)->position;
        cards.emplace_back(p.x - CanvasStyle::kMachineWidth / 2,
                           p.y - CanvasStyle::kMachineHeight / 2, CanvasStyle::kMachineWidth,
                           CanvasStyle::kMachineHeight);
    }
    for (const ItemId id : model.switchIds()) {
        const CanvasPosition p = model.networkSwitch(id)->position;
        cards.emplace_back(p.x - CanvasStyle::kSwitchWidth / 2,
                           p.y - CanvasStyle::kSwitchHeight / 2, CanvasStyle::kSwitchWidth,
                           CanvasStyle::kSwitchHeight);
    }
    for (std::size_t i = 0; i < cards.size(); ++i)
        for (std::size_t j = i + 1; j < cards.size(); ++j)
            if (cards[i].intersects(cards[j]))
                return true;
    return false;
}

} // namespace

class TestCanvas : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void paletteOffersCommonBoxes();
    void dropTemplateAddsNodeAtDropPoint_data();
    void dropTemplateAddsNodeAtDropPoint();
    void dropOfForeignDataIsIgnored();
    void drawLinkByDragging_data();
    void drawLinkByDragging();
    void escapeCancelsLinkDrawing();
    void drawnLinkTakesLastEditedParameters();
    void dragMovesSelectionInOneUndoStep();
    void deleteRemovesLinksAndUndoRestores();
    void duplicateAndAddCopies();
    void copyPasteCarriesLinksAmongCopiedNodes();
    void cutRemovesAndPasteBrings();
    void shortcutsActWhileCanvasHasFocus();
    void autoLayoutGroupsAroundSwitchesAndUndoes();
    void sceneFollowsUndoOfModelEdits();
    void largeClusterBuildsAndFits();
    void caseStudyScreenshot();
};

void TestCanvas::paletteOffersCommonBoxes()
{
    Palette palette(nullptr);
    for (const char *title : {"8× A100-80G NVLink", "8× H100 NVLink", "4× RTX 4090 PCIe",
                              "2× RTX 3090 PCIe", "Custom machine", "Switch"})
        QVERIFY2(paletteRow(palette, QString::fromUtf8(title)) >= 0, title);
    for (int row = 0; row < palette.count(); ++row) {
        std::unique_ptr<QMimeData> mime(palette.mimeDataForRow(row));
        QVERIFY(mime);
        QVERIFY(mime->hasFormat(QStringLiteral("application/x-hetplan-nodes")));
        QVERIFY(!palette.item(row)->icon().pixmap(32, 32).isNull());
    }
    palette.resize(240, 520);
    saveScreenshot(&palette, QStringLiteral("palette.png"));
}

void TestCanvas::dropTemplateAddsNodeAtDropPoint_data()
{
    QTest::addColumn<QString>("title");
    QTest::addColumn<QString>("gpu");
    QTest::addColumn<int>("count");
    QTest::addColumn<QPoint>("at");
    QTest::newRow("H100 box") << QStringLiteral("8× H100 NVLink") << "H100-80G" << 8
                              << QPoint(200, 500);
    QTest::newRow("RTX 3090 pair")
        << QStringLiteral("2× RTX 3090 PCIe") << "RTX3090-24G" << 2 << QPoint(700, 120);
    QTest::newRow("custom") << QStringLiteral("Custom machine") << "custom-gpu" << 4
                            << QPoint(480, 610);
    QTest::newRow("switch") << QStringLiteral("Switch") << QString() << 0 << QPoint(820, 560);
}

void TestCanvas::dropTemplateAddsNodeAtDropPoint()
{
    QFETCH(QString, title);
    QFETCH(QString, gpu);
    QFETCH(int, count);
    QFETCH(QPoint, at);

    Canvas canvas(bundledCluster("case-study"));
    Palette palette(nullptr);
    const int row = paletteRow(palette, title);
    QVERIFY(row >= 0);
    std::unique_ptr<QMimeData> mime(palette.mimeDataForRow(row));
    const std::vector<ItemId> machinesBefore = canvas.model->machineIds();
    const std::size_t switchesBefore = canvas.model->switchIds().size();
    const QPointF scenePos = canvas.view->mapToScene(at);

    QVERIFY(sendDrop(canvas.view->viewport(), at, mime.get()));

    const std::vector<ItemId> selected = canvas.scene->selectedIds();
    QCOMPARE(selected.size(), std::size_t(1));
    const ItemId added = selected.front();
    CanvasPosition position;
    if (gpu.isEmpty()) {
        QCOMPARE(canvas.model->switchIds().size(), switchesBefore + 1);
        QVERIFY(canvas.model->networkSwitch(added));
        position = canvas.model->networkSwitch(added)->position;
    } else {
        QCOMPARE(canvas.model->machineIds().size(), machinesBefore.size() + 1);
        const Machine *m = canvas.model->machine(added);
        QVERIFY(m);
        QCOMPARE(QString::fromStdString(m->gpu), gpu);
        QCOMPARE(m->count, count);
        position = m->position;
    }
    QCOMPARE(position.x, scenePos.x());
    QCOMPARE(position.y, scenePos.y());
    QCOMPARE(canvas.scene->itemFor(added)->pos(), scenePos);
    QCOMPARE(canvas.scene->nodeAt(scenePos), added);

    canvas.model->undoStack()->undo();
    QVERIFY(!canvas.model->kindOf(added));
    QCOMPARE(canvas.model->machineIds(), machinesBefore);
    QVERIFY(!canvas.scene->itemFor(added));
}

void TestCanvas::dropOfForeignDataIsIgnored()
{
    Canvas canvas(bundledCluster("case-study"));
    QMimeData text;
    text.setText(QStringLiteral("not a cluster"));
    const Cluster before = canvas.model->cluster();
    QVERIFY(!sendDrop(canvas.view->viewport(), {300, 300}, &text));
    QCOMPARE(canvas.model->cluster(), before);
}

void TestCanvas::drawLinkByDragging_data()
{
    QTest::addColumn<bool>("fromConnector");
    QTest::newRow("shift+drag") << false;
    QTest::newRow("connector handle") << true;
}

void TestCanvas::drawLinkByDragging()
{
    QFETCH(bool, fromConnector);
    Canvas canvas(threeMachines(), {1400, 600});
    const ItemId a = canvas.model->nodeByName("A");
    const ItemId b = canvas.model->nodeByName("B");
    QVERIFY(canvas.model->linkIds().empty());

    const auto *itemA = static_cast<const NodeItem *>(canvas.scene->itemFor(a));
    const QPoint from = fromConnector
                            ? canvas.viewportPoint(itemA->mapToScene(itemA->connectorCenter()))
                            : canvas.nodePoint(a);
    drag(canvas.view->viewport(), from, canvas.nodePoint(b),
         fromConnector ? Qt::KeyboardModifiers() : Qt::ShiftModifier);

    QCOMPARE(canvas.model->linkIds().size(), std::size_t(1));
    const ItemId link = canvas.model->linkIds().front();
    QCOMPARE(canvas.model->linkEnds(link), std::make_pair(a, b));
    // Drawing a link moves nothing.
    QCOMPARE(canvas.model->machine(a)->position, (CanvasPosition{0, 0}));
    QCOMPARE(canvas.scene->selectedIds(), std::vector<ItemId>{link});
    QVERIFY(canvas.scene->itemFor(link));
    QVERIFY(!canvas.scene->isDrawingLink());
    canvas.model->undoStack()->undo();
    QVERIFY(canvas.model->linkIds().empty());
}

void TestCanvas::escapeCancelsLinkDrawing()
{
    Canvas canvas(threeMachines(), {1400, 600});
    QWidget *viewport = canvas.view->viewport();
    const ItemId a = canvas.model->nodeByName("A");
    const ItemId b = canvas.model->nodeByName("B");
    canvas.view->setFocus();
    QTest::mousePress(viewport, Qt::LeftButton, Qt::ShiftModifier, canvas.nodePoint(a));
    QTest::mouseMove(viewport, canvas.nodePoint(b));
    QVERIFY(canvas.scene->isDrawingLink());
    QTest::keyClick(canvas.view.get(), Qt::Key_Escape);
    QVERIFY(!canvas.scene->isDrawingLink());
    QTest::mouseRelease(viewport, Qt::LeftButton, Qt::ShiftModifier, canvas.nodePoint(b));
    QVERIFY(canvas.model->linkIds().empty());

    // Released over empty canvas: no link either.
    drag(viewport, canvas.nodePoint(a), canvas.nodePoint(a) + QPoint(0, 250), Qt::ShiftModifier);
    QVERIFY(canvas.model->linkIds().empty());
}

void TestCanvas::drawnLinkTakesLastEditedParameters()
{
    Canvas canvas(threeMachines(), {1400, 600});
    QWidget *viewport = canvas.view->viewport();
    const ItemId a = canvas.model->nodeByName("A");
    const ItemId b = canvas.model->nodeByName("B");
    const ItemId c = canvas.model->nodeByName("C");
    QUndoStack *undo = canvas.model->undoStack();

    // The first link: what the machines' NICs suggest.
    drag(viewport, canvas.nodePoint(a), canvas.nodePoint(b), Qt::ShiftModifier);
    QCOMPARE(canvas.model->linkIds().size(), std::size_t(1));
    const ItemId ab = canvas.model->linkIds().front();
    const Link drawn = *canvas.model->link(ab);
    QCOMPARE(drawn.kind, LinkKind::Ethernet);
    QCOMPARE(drawn.bandwidthGBps, 1.25);

    Link fast = drawn;
    fast.kind = LinkKind::InfiniBand;
    fast.bandwidthGBps = 25;
    fast.latencyUs = 5;
    QVERIFY(canvas.model->updateLink(ab, fast));
    // Renaming an end changes the link's value but is no edit of its parameters.
    Machine renamed = *canvas.model->machine(c);
    renamed.name = "C2";
    QVERIFY(canvas.model->updateMachine(c, renamed));

    drag(viewport, canvas.nodePoint(b), canvas.nodePoint(c), Qt::ShiftModifier);
    QCOMPARE(canvas.model->linkIds().size(), std::size_t(2));
    const Link *bc = canvas.model->link(canvas.model->linkIds().back());
    QCOMPARE(bc->kind, LinkKind::InfiniBand);
    QCOMPARE(bc->bandwidthGBps, 25.0);
    QCOMPARE(bc->latencyUs, 5.0);
    QCOMPARE(bc->b, std::string("C2"));

    // Undo takes the new link away, then the rename, then the edit, one step each.
    undo->undo();
    QCOMPARE(canvas.model->linkIds().size(), std::size_t(1));
    undo->undo();
    undo->undo();
    QCOMPARE(*canvas.model->link(ab), drawn);
    undo->redo();
    QCOMPARE(canvas.model->link(ab)->bandwidthGBps, 25.0);

    // Another document starts from the NICs again.
    QVERIFY(canvas.model->reset(threeMachines()));
    QVERIFY(!canvas.scene->newLinkParameters());
}

void TestCanvas::dragMovesSelectionInOneUndoStep()
{
    Canvas canvas(bundledCluster("case-study"));
    QWidget *viewport = canvas.view->viewport();
    const ItemId a = canvas.model->nodeByName("A");
    const ItemId b = canvas.model->nodeByName("B");
    const CanvasPosition startA = canvas.model->machine(a)->position;
    const CanvasPosition startB = canvas.model->machine(b)->position;
    QUndoStack *undo = canvas.model->undoStack();
    const int steps = undo->count();

    // Ctrl+click adds B to the selection; dragging A then moves both.
    QTest::mouseClick(viewport, Qt::LeftButton, {}, canvas.nodePoint(a));
    QTest::mouseClick(viewport, Qt::LeftButton, Qt::ControlModifier, canvas.nodePoint(b));
    QCOMPARE(canvas.scene->selectedIds(), (std::vector<ItemId>{a, b}));
    drag(viewport, canvas.nodePoint(a), canvas.nodePoint(a) + QPoint(60, 90));

    QCOMPARE(undo->count(), steps + 1);
    QCOMPARE(canvas.model->machine(a)->position, (CanvasPosition{startA.x + 60, startA.y + 90}));
    QCOMPARE(canvas.model->machine(b)->position, (CanvasPosition{startB.x + 60, startB.y + 90}));
    QCOMPARE(canvas.scene->itemFor(a)->pos(), QPointF(startA.x + 60, startA.y + 90));

    // A second drag of the same nodes is a step of its own.
    drag(viewport, canvas.nodePoint(a), canvas.nodePoint(a) + QPoint(-30, 0));
    QCOMPARE(undo->count(), steps + 2);
    undo->undo();
    QCOMPARE(canvas.model->machine(a)->position, (CanvasPosition{startA.x + 60, startA.y + 90}));
    undo->undo();
    QCOMPARE(canvas.model->machine(a)->position, startA);
    QCOMPARE(canvas.model->machine(b)->position, startB);
    QCOMPARE(canvas.scene->itemFor(b)->pos(), QPointF(startB.x, startB.y));
}

void TestCanvas::deleteRemovesLinksAndUndoRestores()
{
    Canvas canvas(bundledCluster("case-study"));
    const Cluster before = canvas.model->cluster();
    const ItemId a = canvas.model->nodeByName("A");
    const std::vector<ItemId> linksOfA = canvas.model->linksOf(a);
    QCOMPARE(linksOfA.size(), std::size_t(1));

    canvas.scene->setSelectedIds({a});
    canvas.view->deleteSelection();
    QVERIFY(!canvas.model->kindOf(a));
    QVERIFY(!canvas.model->kindOf(linksOfA.front()));
    QVERIFY(!canvas.scene->itemFor(a));
    QVERIFY(!canvas.scene->itemFor(linksOfA.front()));
    QCOMPARE(canvas.model->linkIds().size(), std::size_t(2));

    canvas.model->undoStack()->undo();
    QCOMPARE(canvas.model->cluster(), before);
    QVERIFY(canvas.scene->itemFor(a));
    QVERIFY(canvas.scene->itemFor(linksOfA.front()));
}

void TestCanvas::duplicateAndAddCopies()
{
    Canvas canvas(bundledCluster("case-study"));
    const Cluster before = canvas.model->cluster();
    const ItemId b = canvas.model->nodeByName("B");
    canvas.scene->setSelectedIds({b});
    canvas.view->duplicate();

    QCOMPARE(canvas.model->machineIds().size(), before.machines.size() + 1);
    const std::vector<ItemId> copy = canvas.scene->selectedIds();
    QCOMPARE(copy.size(), std::size_t(1));
    const Machine *m = canvas.model->machine(copy.front());
    QVERIFY(m);
    QCOMPARE(m->gpu, canvas.model->machine(b)->gpu);
    QVERIFY(m->name != "B");
    // Beside the original, not on top of it (tst_layout: nor on top of any other card).
    const CanvasPosition original = canvas.model->machine(b)->position;
    QVERIFY(std::abs(m->position.x - original.x) >= CanvasStyle::kMachineWidth
            || std::abs(m->position.y - original.y) >= CanvasStyle::kMachineHeight);

    canvas.scene->setSelectedIds({b});
    canvas.scene->addCopies(3);
    QCOMPARE(canvas.model->machineIds().size(), before.machines.size() + 4);
    canvas.model->undoStack()->undo();
    canvas.model->undoStack()->undo();
    QCOMPARE(canvas.model->cluster(), before);
}

void TestCanvas::copyPasteCarriesLinksAmongCopiedNodes()
{
    Canvas canvas(bundledCluster("case-study"));
    const Cluster before = canvas.model->cluster();
    const ItemId a = canvas.model->nodeByName("A");
    const ItemId eth = canvas.model->nodeByName("eth");
    canvas.scene->setSelectedIds({a, eth});
    canvas.view->copy();
    QVERIFY(QApplication::clipboard()->mimeData()->hasFormat(
        QStringLiteral("application/x-hetplan-nodes")));

    canvas.scene->paste();
    QCOMPARE(canvas.model->machineIds().size(), before.machines.size() + 1);
    QCOMPARE(canvas.model->switchIds().size(), before.switches.size() + 1);
    // The A–eth link comes along; B–eth and C–eth do not.
    QCOMPARE(canvas.model->linkIds().size(), before.links.size() + 1);
    QCOMPARE(canvas.scene->selectedIds().size(), std::size_t(3));

    canvas.scene->pasteAt(QPointF(2000, 2000));
    QCOMPARE(canvas.model->machineIds().size(), before.machines.size() + 2);
    const Machine *pasted = canvas.model->machine(canvas.model->machineIds().back());
    // The pasted group's centre sits at the point: A above-left of it, eth below-right.
    QVERIFY(pasted->position.x < 2000 && pasted->position.y < 2000);

    canvas.model->undoStack()->undo();
    canvas.model->undoStack()->undo();
    QCOMPARE(canvas.model->cluster(), before);

    // A switch alone is a fragment too: it pastes as one switch and nothing else.
    canvas.scene->setSelectedIds({eth});
    canvas.view->copy();
    canvas.scene->paste();
    QCOMPARE(canvas.model->machineIds().size(), before.machines.size());
    QCOMPARE(canvas.model->switchIds().size(), before.switches.size() + 1);
}

void TestCanvas::cutRemovesAndPasteBrings()
{
    Canvas canvas(bundledCluster("case-study"));
    const ItemId c = canvas.model->nodeByName("C");
    canvas.scene->setSelectedIds({c});
    canvas.view->cut();
    QVERIFY(!canvas.model->nodeByName("C"));
    canvas.scene->paste();
    // The name is free again, so the machine comes back as it was, without its link.
    const ItemId back = canvas.model->nodeByName("C");
    QVERIFY(back);
    QCOMPARE(canvas.model->machine(back)->gpu, std::string("RTX3090-24G"));
    QVERIFY(canvas.model->linksOf(back).empty());
}

void TestCanvas::shortcutsActWhileCanvasHasFocus()
{
    Canvas canvas(bundledCluster("case-study"));
    canvas.view->activateWindow();
    canvas.view->setFocus();
    if (!QTest::qWaitForWindowActive(canvas.view.get()))
        QSKIP("the platform does not activate windows; shortcuts need an active window");
    const std::size_t machines = canvas.model->machineIds().size();

    QTest::keyClick(canvas.view.get(), Qt::Key_A, Qt::ControlModifier);
    QCOMPARE(canvas.scene->selectedIds().size(), std::size_t(7));

    canvas.scene->setSelectedIds({canvas.model->nodeByName("A")});
    QTest::keyClick(canvas.view.get(), Qt::Key_D, Qt::ControlModifier);
    QCOMPARE(canvas.model->machineIds().size(), machines + 1);
    QTest::keyClick(canvas.view.get(), Qt::Key_Delete);
    QCOMPARE(canvas.model->machineIds().size(), machines);

    const double zoom = canvas.view->zoom();
    QTest::keyClick(canvas.view.get(), Qt::Key_Equal, Qt::ControlModifier);
    QVERIFY(canvas.view->zoom() > zoom);
    QTest::keyClick(canvas.view.get(), Qt::Key_Minus, Qt::ControlModifier);
    QTest::keyClick(canvas.view.get(), Qt::Key_Minus, Qt::ControlModifier);
    QVERIFY(canvas.view->zoom() < zoom);
}

void TestCanvas::autoLayoutGroupsAroundSwitchesAndUndoes()
{
    for (const char *name : {"case-study", "holmes-hybrid", "large-cluster"}) {
        Canvas canvas(bundledCluster(name));
        const Cluster before = canvas.model->cluster();
        canvas.view->autoLayout();
        const Cluster after = canvas.model->cluster();
        QVERIFY2(!cardsOverlap(*canvas.model), name);
        QCOMPARE(canvas.model->undoStack()->count(), 1);

        // Deterministic: laying out again changes nothing.
        canvas.view->autoLayout();
        QCOMPARE(canvas.model->cluster(), after);

        // Every machine is nearer to its switch than to any other switch.
        for (const ItemId link : canvas.model->linkIds()) {
            const auto [x, y] = canvas.model->linkEnds(link);
            if (canvas.model->kindOf(y) != ItemKind::Switch || !canvas.model->machine(x))
                continue;
            const CanvasPosition m = canvas.model->machine(x)->position;
            const auto distance = [&](ItemId sw) {
                const CanvasPosition s = canvas.model->networkSwitch(sw)->position;
                return std::hypot(m.x - s.x, m.y - s.y);
            };
            if (canvas.model->linksOf(x).size() == 1)
                for (const ItemId other : canvas.model->switchIds())
                    QVERIFY2(distance(y) <= distance(other), name);
        }
        canvas.model->undoStack()->undo();
        QCOMPARE(canvas.model->cluster(), before);
    }
}

void TestCanvas::sceneFollowsUndoOfModelEdits()
{
    Canvas canvas(bundledCluster("case-study"));
    const ItemId a = canvas.model->nodeByName("A");
    Machine renamed = *canvas.model->machine(a);
    renamed.position = {-300, -200};
    QVERIFY(canvas.model->updateMachine(a, renamed).ok());
    QCOMPARE(canvas.scene->itemFor(a)->pos(), QPointF(-300, -200));
    canvas.model->undoStack()->undo();
    QCOMPARE(canvas.scene->itemFor(a)->pos(), QPointF(80, 60));

    QVERIFY(canvas.model->reset(bundledCluster("holmes-hybrid")).ok());
    QVERIFY(!canvas.scene->itemFor(a) || canvas.model->kindOf(a));
    std::size_t items = 0;
    for (QGraphicsItem *item : canvas.scene->items())
        items += item->type() > QGraphicsItem::UserType ? 1 : 0;
    QCOMPARE(items, canvas.model->machineIds().size() + canvas.model->switchIds().size()
                        + canvas.model->linkIds().size());
}

void TestCanvas::largeClusterBuildsAndFits()
{
    const Cluster cluster = bundledCluster("large-cluster");
    ClusterModel model;
    QVERIFY(model.reset(cluster).ok());
    int gpus = 0;
    for (const Machine &m : cluster.machines)
        gpus += m.count;
    QCOMPARE(gpus, 240);

    QElapsedTimer timer;
    timer.start();
    ClusterScene scene(&model, nullptr);
    const qint64 buildMs = timer.elapsed();
    ClusterView view(&scene, nullptr);
    view.resize(1280, 800);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.fitToWindow();
    const QImage first = view.grab().toImage();
    const qint64 firstPaintMs = timer.elapsed();
    qInfo("large-cluster (240 GPUs, %zu machines): scene built in %lld ms, fitted and first "
          "painted after %lld ms",
          cluster.machines.size(), static_cast<long long>(buildMs),
          static_cast<long long>(firstPaintMs));
    QVERIFY(!first.isNull());

    const QRect visible = view.viewport()->rect();
    const QRect content = view.mapFromScene(scene.contentRect()).boundingRect();
    QVERIFY2(visible.contains(content), "fit-to-window shows every card");
    QCOMPARE(scene.items().size(),
             qsizetype(cluster.machines.size() + cluster.switches.size() + cluster.links.size()));

    // Pan and zoom repaint from cached cards; report how long a few frames take.
    timer.restart();
    for (int i = 0; i < 10; ++i) {
        view.horizontalScrollBar()->setValue(view.horizontalScrollBar()->value() + 40);
        view.zoomIn();
        (void)view.grab();
    }
    qInfo("large-cluster: 10 pan+zoom frames in %lld ms", static_cast<long long>(timer.elapsed()));
    view.fitToWindow();
    saveScreenshot(&view, QStringLiteral("large-cluster.png"));
    view.autoLayout();
    QVERIFY(!cardsOverlap(model));
    saveScreenshot(&view, QStringLiteral("large-cluster-auto-layout.png"));
}

void TestCanvas::caseStudyScreenshot()
{
    Canvas canvas(bundledCluster("case-study"), {900, 560});
    canvas.scene->setSelectedIds({canvas.model->nodeByName("B")});
    canvas.scene->setHighlightedGpus({"A:0", "A:1"});
    canvas.view->fitToWindow();
    const QRect content = canvas.view->mapFromScene(canvas.scene->contentRect()).boundingRect();
    QVERIFY(canvas.view->viewport()->rect().contains(content));
    saveScreenshot(canvas.view.get(), QStringLiteral("case-study.png"));

    // A dark theme: the cards follow the palette.
    const QPalette light = QApplication::palette();
    QPalette dark = light;
    dark.setColor(QPalette::Window, QColor(0x2b, 0x2b, 0x2b));
    dark.setColor(QPalette::Base, QColor(0x1e, 0x1e, 0x1e));
    dark.setColor(QPalette::AlternateBase, QColor(0x33, 0x33, 0x33));
    dark.setColor(QPalette::Text, QColor(0xe8, 0xe8, 0xe8));
    dark.setColor(QPalette::WindowText, QColor(0xe8, 0xe8, 0xe8));
    dark.setColor(QPalette::PlaceholderText, QColor(0xa0, 0xa0, 0xa0));
    dark.setColor(QPalette::Mid, QColor(0x55, 0x55, 0x55));
    QApplication::setPalette(dark);
    const QImage shot = canvas.view->grab().toImage();
    const QPoint corner
        = canvas.viewportPoint(canvas.scene->contentRect().topLeft()) - QPoint(8, 8);
    QVERIFY(qGray(shot.pixel(corner)) < 100);
    // An empty spot inside card A, right of its link label.
    const QPointF insideCard
        = canvas.scene->itemFor(canvas.model->nodeByName("A"))->pos() + QPointF(75, 40);
    const QPoint inside = canvas.viewportPoint(insideCard) * shot.devicePixelRatio();
    QVERIFY(qGray(shot.pixel(inside)) < 100);
    saveScreenshot(canvas.view.get(), QStringLiteral("case-study-dark.png"));
    QApplication::setPalette(light);
}

HETPLAN_TEST_MAIN(TestCanvas)
#include "tst_canvas.moc"
