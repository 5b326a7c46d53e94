// The inspector edits what is selected through the model: invalid values are refused at the
// field with the model's reason and change nothing; valid ones are one undo step each.
#include "canvas_test_support.h"
#include "inspector/inspector.h"
#include "tests/test_registry.h"

#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QUndoStack>

using namespace hetplan;
using namespace hetplan::gui;
using namespace hetplan::gui::test;

namespace {

struct Fixture
{
    Fixture()
        : inspector(&model, nullptr)
    {
        if (!model.reset(bundledCluster("case-study")))
            qFatal("case-study refused");
        inspector.resize(360, 700);
        inspector.show();
    }

    template<typename T>
    T *field(const QString &name) const
    {
        T *w = inspector.findChild<T *>(name);
        if (!w)
            qFatal("no field %s", qPrintable(name));
        return w;
    }
    QLabel *hint(const QString &name) const { return field<QLabel>(name + QStringLiteral("Hint")); }

    // Types into a field and commits it as Enter does.
    void type(const QString &name, const QString &text)
    {
        QLineEdit *edit = field<QLineEdit>(name);
        edit->setFocus();
        edit->clear();
        QTest::keyClicks(edit, text);
        QTest::keyClick(edit, Qt::Key_Return);
    }

    ItemId select(const char *node)
    {
        const ItemId id = model.nodeByName(node);
        inspector.setSelection({id});
        return id;
    }

    // A node by name, or "link": machine A's link.
    void selectItem(const QString &item)
    {
        if (item == QStringLiteral("link"))
            inspector.setSelection({model.linksOf(model.nodeByName("A")).front()});
        else
            select(item.toUtf8().constData());
    }

    ClusterModel model;
    Inspector inspector;
};

// Which item is selected (a node's name, or "link"), which field, what is typed.
void addEditColumns()
{
    QTest::addColumn<QString>("item");
    QTest::addColumn<QString>("fieldName");
    QTest::addColumn<QString>("text");
}

struct EditRow
{
    QString item;
    QString fieldName;
    QString text;
};

EditRow fetchEditRow()
{
    QFETCH(QString, item);
    QFETCH(QString, fieldName);
    QFETCH(QString, text);
    return {item, fieldName, text};
}

} // namespace

class TestInspector : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void invalidValueIsRefusedAtTheField_data();
    void invalidValueIsRefusedAtTheField();
    void validEditIsAcceptedAndUndoable_data();
    void validEditIsAcceptedAndUndoable();
    void choicesCommitAtOnce();
    void customGpuSpecsAreEditable();
    void followsTheCanvasSelection();
    void refusalHintClearsOnAnotherSelection();
};

void TestInspector::invalidValueIsRefusedAtTheField_data()
{
    addEditColumns();
    QTest::newRow("no GPUs") << "A"
                             << "machineCount"
                             << "0";
    QTest::newRow("negative GPUs") << "A"
                                   << "machineCount"
                                   << "-2";
    QTest::newRow("count not a number") << "A"
                                        << "machineCount"
                                        << "eight";
    QTest::newRow("name taken") << "A"
                                << "machineName"
                                << "B";
    QTest::newRow("name with colon") << "A"
                                     << "machineName"
                                     << "A:1";
    QTest::newRow("empty name") << "A"
                                << "machineName"
                                << "";
    QTest::newRow("intra bandwidth -1") << "A"
                                        << "intraBandwidth"
                                        << "-1";
    QTest::newRow("intra latency not a number") << "A"
                                                << "intraLatency"
                                                << "fast";
    QTest::newRow("link bandwidth -1") << "link"
                                       << "linkBandwidth"
                                       << "-1";
    QTest::newRow("link bandwidth 0") << "link"
                                      << "linkBandwidth"
                                      << "0";
    QTest::newRow("link latency -5") << "link"
                                     << "linkLatency"
                                     << "-5";
    QTest::newRow("switch named like a machine") << "eth"
                                                 << "switchName"
                                                 << "C";
}

void TestInspector::invalidValueIsRefusedAtTheField()
{
    const auto [item, fieldName, text] = fetchEditRow();
    Fixture f;
    f.selectItem(item);
    const Cluster before = f.model.cluster();
    const int steps = f.model.undoStack()->count();
    QVERIFY(!f.hint(fieldName)->isVisible());

    f.type(fieldName, text);

    QCOMPARE(f.model.cluster(), before);
    QCOMPARE(f.model.undoStack()->count(), steps);
    QLabel *hint = f.hint(fieldName);
    QVERIFY(hint->isVisible());
    QVERIFY(!hint->text().isEmpty());
    // The refused value stays for the person to correct.
    QCOMPARE(f.field<QLineEdit>(fieldName)->text(), text);
}

void TestInspector::validEditIsAcceptedAndUndoable_data()
{
    addEditColumns();
    QTest::newRow("count") << "B"
                           << "machineCount"
                           << "4";
    QTest::newRow("name") << "B"
                          << "machineName"
                          << "box-b";
    QTest::newRow("intra bandwidth") << "B"
                                     << "intraBandwidth"
                                     << "12.5";
    QTest::newRow("intra latency") << "C"
                                   << "intraLatency"
                                   << "3";
    QTest::newRow("ssh host") << "C"
                              << "sshHost"
                              << "gpu@node-c";
    QTest::newRow("link bandwidth") << "link"
                                    << "linkBandwidth"
                                    << "3";
    QTest::newRow("link latency") << "link"
                                  << "linkLatency"
                                  << "12";
    QTest::newRow("switch name") << "eth"
                                 << "switchName"
                                 << "tor";
}

void TestInspector::validEditIsAcceptedAndUndoable()
{
    const auto [item, fieldName, text] = fetchEditRow();
    Fixture f;
    f.selectItem(item);
    const Cluster before = f.model.cluster();
    const QString shownBefore = f.field<QLineEdit>(fieldName)->text();

    // A refused value first, then a good one: the hint goes away.
    if (fieldName != QStringLiteral("sshHost")) {
        f.type(fieldName, fieldName.endsWith(QStringLiteral("Name")) ? QStringLiteral("x:y")
                                                                     : QStringLiteral("-1"));
        QVERIFY(f.hint(fieldName)->isVisible());
    }
    f.type(fieldName, text);
    QVERIFY(!f.hint(fieldName)->isVisible());
    QVERIFY(f.model.cluster() != before);
    QCOMPARE(f.model.undoStack()->count(), 1);

    f.model.undoStack()->undo();
    QCOMPARE(f.model.cluster(), before);
    QCOMPARE(f.field<QLineEdit>(fieldName)->text(), shownBefore);
    f.model.undoStack()->redo();
    QVERIFY(f.model.cluster() != before);
}

void TestInspector::choicesCommitAtOnce()
{
    Fixture f;
    const ItemId a = f.select("A");
    auto *nic = f.field<QComboBox>(QStringLiteral("nicKind"));
    const int ib = nic->findText(QStringLiteral("InfiniBand"));
    QVERIFY(ib >= 0);
    nic->setCurrentIndex(ib);
    Q_EMIT nic->activated(ib);
    QCOMPARE(f.model.machine(a)->nic, NicKind::InfiniBand);

    // Another GPU type: the box's untouched link follows the type's typical one.
    auto *gpu = f.field<QComboBox>(QStringLiteral("gpuType"));
    const int h100 = gpu->findData(QStringLiteral("H100-80G"));
    QVERIFY(h100 >= 0);
    gpu->setCurrentIndex(h100);
    Q_EMIT gpu->activated(h100);
    QCOMPARE(f.model.machine(a)->gpu, std::string("H100-80G"));
    QCOMPARE(f.model.undoStack()->count(), 2);
    f.model.undoStack()->undo();
    QCOMPARE(f.model.machine(a)->gpu, std::string("A800-80G"));
    QCOMPARE(gpu->currentData().toString(), QStringLiteral("A800-80G"));
}

void TestInspector::customGpuSpecsAreEditable()
{
    Fixture f;
    Cluster custom = bundledCluster("case-study");
    GpuType t;
    t.name = "lab-gpu";
    t.tflops = 50;
    t.memoryGiB = 16;
    t.memoryBandwidthGBps = 500;
    custom.gpuTypes.push_back(t);
    custom.machines[2].gpu = "lab-gpu";
    QVERIFY(f.model.reset(custom).ok());
    f.select("C");
    QVERIFY(f.field<QLineEdit>(QStringLiteral("customTflops"))->isVisible());

    f.type(QStringLiteral("customTflops"), QStringLiteral("-3"));
    QVERIFY(f.hint(QStringLiteral("customTflops"))->isVisible());
    QCOMPARE(f.model.cluster().gpuTypes.front().tflops, 50.0);

    f.type(QStringLiteral("customTflops"), QStringLiteral("120"));
    QVERIFY(!f.hint(QStringLiteral("customTflops"))->isVisible());
    QCOMPARE(f.model.cluster().gpuTypes.front().tflops, 120.0);
    f.model.undoStack()->undo();
    QCOMPARE(f.model.cluster().gpuTypes.front().tflops, 50.0);

    f.select("A"); // a catalog GPU has no editable specs
    QVERIFY(!f.field<QLineEdit>(QStringLiteral("customTflops"))->isVisible());
}

void TestInspector::followsTheCanvasSelection()
{
    Canvas canvas(bundledCluster("case-study"));
    Inspector inspector(canvas.model.get(), nullptr);
    inspector.show();
    QObject::connect(canvas.scene.get(), &ClusterScene::selectionChangedIds, &inspector,
                     &Inspector::setSelection);
    auto *title = inspector.findChild<QLabel *>(QStringLiteral("inspectorTitle"));

    QTest::mouseClick(canvas.view->viewport(), Qt::LeftButton, {},
                      canvas.nodePoint(canvas.model->nodeByName("B")));
    QCOMPARE(inspector.selection(), std::vector<ItemId>{canvas.model->nodeByName("B")});
    QCOMPARE(title->text(), QStringLiteral("Machine"));
    QCOMPARE(inspector.findChild<QLineEdit *>(QStringLiteral("machineName"))->text(),
             QStringLiteral("B"));

    canvas.scene->selectAll();
    QCOMPARE(title->text(), QStringLiteral("Selection"));
    QVERIFY(inspector.findChild<QLabel *>(QStringLiteral("inspectorSummary"))
                ->text()
                .contains(QStringLiteral("8 GPU")));

    // Deleting the selected machine leaves the inspector on what remains.
    canvas.scene->setSelectedIds({canvas.model->nodeByName("C")});
    canvas.view->deleteSelection();
    QCOMPARE(title->text(), QStringLiteral("Cluster"));
}

void TestInspector::refusalHintClearsOnAnotherSelection()
{
    Fixture f;
    f.select("A");
    f.type(QStringLiteral("machineCount"), QStringLiteral("0"));
    QVERIFY(f.hint(QStringLiteral("machineCount"))->isVisible());
    QCoreApplication::processEvents(); // let the layout settle before the picture
    saveScreenshot(&f.inspector, QStringLiteral("inspector-refused.png"));
    f.select("B");
    QVERIFY(!f.hint(QStringLiteral("machineCount"))->isVisible());
    QCOMPARE(f.field<QLineEdit>(QStringLiteral("machineCount"))->text(), QStringLiteral("3"));
}

HETPLAN_TEST_MAIN(TestInspector)
#include "tst_inspector.moc"
