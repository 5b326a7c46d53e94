// Every edit of what to plan (model, mode, batch, lengths, rates, SLO, planner, cost model)
// is a step on the same undo stack as the canvas edits, as a person meets it in the window.
#include "mainwindow.h"
#include "model/cluster_model.h"
#include "model/document.h"
#include "panels/workload_panel.h"
#include "results/results_panel.h"
#include "tests/test_registry.h"
#include "window_test_support.h"

#include <QAction>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTest>
#include <QUndoStack>

using namespace hetplan;
using namespace hetplan::gui;
using namespace hetplan::gui::test;

namespace {

// The Workload panel's field behind a label, as a person finds it.
QWidget *fieldLabelled(MainWindow &window, const QString &label)
{
    for (QLabel *l : window.findChild<WorkloadPanel *>()->findChildren<QLabel *>())
        if (l->text() == label)
            return l->buddy();
    return nullptr;
}

// Types `text` over the field's contents, key by key, and leaves the field.
void typeInto(QAbstractSpinBox *box, const QString &text)
{
    box->setFocus();
    box->selectAll();
    QTest::keyClicks(box, text);
    QTest::keyClick(box, Qt::Key_Tab);
}

QAction *planMenuAction(MainWindow &window, const QString &submenu, const QString &text)
{
    for (QAction *a : window.results()->planMenu()->actions())
        if (a->menu() && a->text() == submenu)
            for (QAction *item : a->menu()->actions())
                if (item->text() == text)
                    return item;
    return nullptr;
}

} // namespace

class TestWorkloadUndo : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void typedFieldIsOneUndoStep_data();
    void typedFieldIsOneUndoStep();
    void choicesAreUndoable_data();
    void choicesAreUndoable();
    void planMenuChoicesAreUndoable();
};

void TestWorkloadUndo::initTestCase()
{
    useTestSettings();
}

void TestWorkloadUndo::typedFieldIsOneUndoStep_data()
{
    QTest::addColumn<QString>("example");
    QTest::addColumn<QString>("label");
    QTest::addColumn<QString>("typed");
    QTest::addColumn<double>("value");
    QTest::newRow("global batch") << "case-study"
                                  << "&Global batch:"
                                  << "2048" << 2048.0;
    QTest::newRow("micro-batch") << "case-study"
                                 << "Mi&cro-batch:"
                                 << "4" << 4.0;
    QTest::newRow("sequence length") << "case-study"
                                     << "&Sequence length:"
                                     << "2048" << 2048.0;
    QTest::newRow("prompt length") << "hexgen-full-price"
                                   << "Pro&mpt length:"
                                   << "1024" << 1024.0;
    QTest::newRow("output length") << "hexgen-full-price"
                                   << "O&utput length:"
                                   << "256" << 256.0;
    QTest::newRow("request rate") << "hexgen-full-price"
                                  << "Request &rate:"
                                  << "2.5" << 2.5;
    QTest::newRow("latency target") << "hexgen-full-price"
                                    << "Latency &target:"
                                    << "7.5" << 7.5;
}

void TestWorkloadUndo::typedFieldIsOneUndoStep()
{
    QFETCH(QString, example);
    QFETCH(QString, label);
    QFETCH(QString, typed);
    QFETCH(double, value);
    MainWindow window;
    window.show();
    QVERIFY(window.openExample(example));
    Document *document = window.document();
    QUndoStack *stack = document->clusterModel()->undoStack();
    const Workload before = document->project().workload;
    QVERIFY(!document->isModified());

    auto *box = qobject_cast<QAbstractSpinBox *>(fieldLabelled(window, label));
    QVERIFY(box);
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.findChild<QWidget *>(QStringLiteral("workload"))->raise();
    typeInto(box, typed);
    const Workload after = document->project().workload;
    QVERIFY(!(after == before));
    QCOMPARE(box->text().remove(QRegularExpression(QStringLiteral("[^0-9.]"))).toDouble(), value);
    QVERIFY(document->isModified());
    // Typing it, key by key, is one step.
    QCOMPARE(stack->count(), 1);
    QVERIFY(stack->undoText().startsWith(QLatin1String("Change")));

    stack->undo();
    QCOMPARE(document->project().workload, before);
    QVERIFY(!document->isModified());
    QVERIFY(!window.isWindowModified());
    stack->redo();
    QCOMPARE(document->project().workload, after);
    QVERIFY(document->isModified());

    // A second visit to the field is a step of its own.
    typeInto(box, QStringLiteral("3"));
    QCOMPARE(stack->count(), 2);
    stack->undo();
    QCOMPARE(document->project().workload, after);
}

void TestWorkloadUndo::choicesAreUndoable_data()
{
    QTest::addColumn<QString>("label");
    QTest::newRow("model") << "&Model:";
    QTest::newRow("mode") << "M&ode:";
    QTest::newRow("precision") << "&Precision:";
    QTest::newRow("recomputation") << "&Recomputation:";
}

void TestWorkloadUndo::choicesAreUndoable()
{
    QFETCH(QString, label);
    MainWindow window;
    window.show();
    QVERIFY(window.openExample(QStringLiteral("case-study")));
    Document *document = window.document();
    QUndoStack *stack = document->clusterModel()->undoStack();
    const Project before = document->project();
    auto *combo = qobject_cast<QComboBox *>(fieldLabelled(window, label));
    QVERIFY(combo);
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    const int indexBefore = combo->currentIndex();
    combo->setFocus();
    // The neighbouring choice, as an arrow key picks it.
    QTest::keyClick(combo, indexBefore + 1 < combo->count() ? Qt::Key_Down : Qt::Key_Up);
    const Project after = document->project();
    QVERIFY(!(after.workload == before.workload) || after.modelName != before.modelName);
    QVERIFY(document->isModified());
    QCOMPARE(stack->count(), 1);

    stack->undo();
    QCOMPARE(document->project().workload, before.workload);
    QCOMPARE(document->project().modelName, before.modelName);
    QCOMPARE(combo->currentIndex(), indexBefore); // the panel shows the document again
    QVERIFY(!document->isModified());
    stack->redo();
    QCOMPARE(document->project().workload, after.workload);
    QCOMPARE(document->project().modelName, after.modelName);
    QVERIFY(document->isModified());
}

void TestWorkloadUndo::planMenuChoicesAreUndoable()
{
    MainWindow window;
    window.show();
    QVERIFY(window.openExample(QStringLiteral("case-study")));
    Document *document = window.document();
    QUndoStack *stack = document->clusterModel()->undoStack();
    QAction *metis = planMenuAction(window, QStringLiteral("P&lanner"), QStringLiteral("metis"));
    QAction *paper
        = planMenuAction(window, QStringLiteral("C&ost model"), QStringLiteral("hexiscale-paper"));
    QVERIFY(metis && paper);
    metis->trigger();
    paper->trigger();
    QVERIFY(document->project().planner == PlannerKind::Metis);
    QVERIFY(document->project().costModel == CostModelKind::HexiScalePaper);
    QCOMPARE(stack->count(), 2);
    QVERIFY(document->isModified());

    stack->undo();
    QVERIFY(document->project().costModel == CostModelKind::HetPlan);
    QVERIFY(window.results()->costModel() == CostModelKind::HetPlan);
    stack->undo();
    QVERIFY(document->project().planner == PlannerKind::HexiScale);
    QVERIFY(!metis->isChecked());
    QVERIFY(!document->isModified());
    stack->redo();
    QVERIFY(document->project().planner == PlannerKind::Metis);
    QVERIFY(metis->isChecked());
}

HETPLAN_TEST_MAIN(TestWorkloadUndo)
#include "tst_workload_undo.moc"
