// Opening a bundled example as a person does (File ▸ Open Example): the scenario's own model
// and workload, and nothing to save until the person changes something.
#include "core/catalog/catalog.h"
#include "core/io/formats.h"
#include "mainwindow.h"
#include "model/document.h"
#include "tests/test_registry.h"
#include "window_test_support.h"

#include <QAction>
#include <QApplication>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>
#include <QTimer>

using namespace hetplan;
using namespace hetplan::gui;
using namespace hetplan::gui::test;

namespace {} // namespace

class TestExamplesOpen : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void opensWithItsModelUnmodified_data();
    void opensWithItsModelUnmodified();
    void newAfterAnExampleAsksNothing();
    void startPlanLeavesTheDocumentUnmodified();
};

void TestExamplesOpen::initTestCase()
{
    useTestSettings();
}

void TestExamplesOpen::opensWithItsModelUnmodified_data()
{
    // The model each scenario's paper plans (see resources/examples/*.workload.json).
    QTest::addColumn<QString>("example");
    QTest::addColumn<QString>("model");
    QTest::newRow("case-study") << "case-study"
                                << "llama2-13b";
    QTest::newRow("hetero-setting-1") << "hetero-setting-1"
                                      << "llama2-13b";
    QTest::newRow("hetero-setting-2") << "hetero-setting-2"
                                      << "llama2-13b";
    QTest::newRow("hetero-setting-3") << "hetero-setting-3"
                                      << "llama-30b";
    QTest::newRow("large-cluster") << "large-cluster"
                                   << "llama2-70b";
    QTest::newRow("metis-v100-t4") << "metis-v100-t4"
                                   << "gpt3-6.7b";
    QTest::newRow("holmes-hybrid") << "holmes-hybrid"
                                   << "gpt3-7.5b";
    QTest::newRow("hexgen-full-price") << "hexgen-full-price"
                                       << "llama2-70b";
    QTest::newRow("hexgen-half-price") << "hexgen-half-price"
                                       << "llama2-70b";
}

void TestExamplesOpen::opensWithItsModelUnmodified()
{
    QFETCH(QString, example);
    QFETCH(QString, model);
    MainWindow window;
    window.show();
    QAction *open = fileAction(window, example, QStringLiteral("Open E&xample"));
    QVERIFY(open);
    open->trigger();
    const Project project = window.document()->project();
    QCOMPARE(QString::fromStdString(project.cluster.name).isEmpty(), false);
    QCOMPARE(QString::fromStdString(project.modelName), model);
    QVERIFY(!project.customModel);
    // The bundled workload of the same name.
    const auto bundled = findExample(example.toStdString(), ExampleKind::Workload);
    QVERIFY(bundled);
    QCOMPARE(project.workload, parseWorkload(bundled->text, bundled->path).value());
    QVERIFY(!window.document()->isModified());
    QVERIFY(!window.isWindowModified());
    // Still unmodified once the panels have taken the example in.
    QTest::qWait(50);
    QVERIFY(!window.document()->isModified());
}

void TestExamplesOpen::newAfterAnExampleAsksNothing()
{
    MainWindow window;
    window.show();
    fileAction(window, QStringLiteral("hexgen-full-price"), QStringLiteral("Open E&xample"))
        ->trigger();
    bool asked = false;
    // Should a question come, answer it so the test goes on and says what happened.
    QTimer::singleShot(500, &window, [&] {
        if (auto *box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget())) {
            asked = true;
            box->button(QMessageBox::Discard)->click();
        }
    });
    fileAction(window, QStringLiteral("&New"))->trigger();
    QVERIFY2(!asked, "New asked to save changes nobody made");
    QVERIFY(window.document()->project().cluster.machines.empty());
}

void TestExamplesOpen::startPlanLeavesTheDocumentUnmodified()
{
    // What `hetplan` does when started without a file: the case study, planned unasked.
    MainWindow window;
    window.show();
    QSignalSpy finished(window.results()->controller(), &PlanningController::finished);
    window.openStartDocument();
    QVERIFY(finished.wait(kPlanTimeoutMs));
    QVERIFY(window.results()->shownPlan());
    QVERIFY(!window.document()->isModified());
    QVERIFY(!window.isWindowModified());
}

HETPLAN_TEST_MAIN(TestExamplesOpen)
#include "tst_examples_open.moc"
