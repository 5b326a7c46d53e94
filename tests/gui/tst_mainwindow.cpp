// The window around the document: title and dirty marker, status totals, menus, undo, and
// the plan it starts on.
#include "canvas/cluster_scene.h"
#include "canvas/cluster_view.h"
#include "core/catalog/catalog.h"
#include "mainwindow.h"
#include "model/cluster_model.h"
#include "model/document.h"
#include "results/planning_controller.h"
#include "results/problems_view.h"
#include "results/results_panel.h"
#include "tests/test_registry.h"

#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTest>
#include <QToolBar>
#include <QUndoStack>

#include <algorithm>

using namespace hetplan;
using namespace hetplan::gui;

namespace {

QMenu *menuNamed(QMainWindow &window, const QString &title)
{
    for (QAction *a : window.menuBar()->actions())
        if (a->menu() && a->text() == title)
            return a->menu();
    return nullptr;
}

QString totals(QMainWindow &window)
{
    QStringList texts;
    for (QLabel *label : window.statusBar()->findChildren<QLabel *>())
        texts << label->text();
    return texts.join(QLatin1Char('|'));
}

} // namespace

class TestMainWindow : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void showsTheCaseStudy();
    void editsMarkTheWindowModified();
    void examplesMenuListsEveryBundledCluster();
    void startsOnThePlannedCaseStudy();
    void newStartsOnAnEmptyCanvas();
};

void TestMainWindow::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("HetPlanTest"));
    QSettings().clear(); // no window layout or recent files from an earlier run
}

void TestMainWindow::showsTheCaseStudy()
{
    MainWindow window;
    QVERIFY(window.openExample(QStringLiteral("case-study")));
    QVERIFY(window.windowTitle().contains(QLatin1String("case-study")));
    QVERIFY(!window.isWindowModified());
    const QString status = totals(window);
    QVERIFY2(status.contains(QLatin1String("8 GPU")) && status.contains(QLatin1String("3 machine")),
             qPrintable(status));
    QVERIFY(menuNamed(window, QStringLiteral("&File")));
    QVERIFY(menuNamed(window, QStringLiteral("&Edit")));
    QVERIFY(menuNamed(window, QStringLiteral("&View")));
}

void TestMainWindow::editsMarkTheWindowModified()
{
    MainWindow window;
    QVERIFY(window.openExample(QStringLiteral("case-study")));
    ClusterModel *model = window.document()->clusterModel();
    Machine m = *model->machine(model->nodeByName("C"));
    m.count = 4;
    QVERIFY(model->updateMachine(model->nodeByName("C"), m).ok());
    QVERIFY(window.isWindowModified());
    QVERIFY(totals(window).contains(QLatin1String("10 GPU")));

    // A refused edit says why in the status bar and changes nothing.
    m.count = 0;
    QVERIFY(!model->updateMachine(model->nodeByName("C"), m).ok());
    QVERIFY2(window.statusBar()->currentMessage().contains(QLatin1String("count")),
             qPrintable(window.statusBar()->currentMessage()));
    QVERIFY(totals(window).contains(QLatin1String("10 GPU")));

    model->undoStack()->undo();
    QVERIFY(!window.isWindowModified());
    QVERIFY(totals(window).contains(QLatin1String("8 GPU")));
}

void TestMainWindow::examplesMenuListsEveryBundledCluster()
{
    MainWindow window;
    QMenu *file = menuNamed(window, QStringLiteral("&File"));
    QVERIFY(file);
    QMenu *examples = nullptr;
    for (QAction *a : file->actions())
        if (a->menu() && a->text() == QLatin1String("Open E&xample"))
            examples = a->menu();
    QVERIFY(examples);
    QStringList listed;
    for (QAction *a : examples->actions())
        listed << a->text();
    for (const Example &e : bundledExamples())
        if (e.kind == ExampleKind::Cluster)
            QVERIFY2(listed.contains(QString::fromStdString(e.name)), e.name.c_str());
    // File › Save Serving Run… after Export Cluster…, disabled until the Serving tab holds a run.
    const QList<QAction *> actions = file->actions();
    const auto exportAt = std::find_if(actions.begin(), actions.end(), [](QAction *a) {
        return a->text() == QStringLiteral("&Export Cluster…");
    });
    QVERIFY(exportAt != actions.end() && exportAt + 1 != actions.end());
    QCOMPARE((*(exportAt + 1))->objectName(), QStringLiteral("saveServingRun"));
    QVERIFY(!(*(exportAt + 1))->isEnabled());
}

void TestMainWindow::startsOnThePlannedCaseStudy()
{
    // `make run`: the app opens on the case study and plans it without being asked, in the
    // background; the Plan menu and the toolbar's Plan button are there to plan again.
    MainWindow window;
    QSignalSpy finished(window.results()->controller(), &PlanningController::finished);
    window.openStartDocument();
    QVERIFY(window.windowTitle().contains(QLatin1String("case-study")));
    QVERIFY(window.results()->controller()->isRunning());
    QVERIFY(finished.wait(120000));
    QVERIFY(window.results()->shownPlan());
    QCOMPARE(window.results()->shownPlan()->plan.planner, std::string("hexiscale"));
    QVERIFY(menuNamed(window, QStringLiteral("&Plan")));
    QAction *plan = window.results()->planAction();
    bool onToolBar = false;
    for (QToolBar *bar : window.findChildren<QToolBar *>())
        onToolBar = onToolBar || bar->actions().contains(plan);
    QVERIFY(onToolBar);
    QVERIFY(plan->isEnabled());
}

void TestMainWindow::newStartsOnAnEmptyCanvas()
{
    MainWindow window;
    window.show();
    QVERIFY(window.openExample(QStringLiteral("case-study")));
    ClusterModel *model = window.document()->clusterModel();
    QVERIFY(!window.view()->isEmptyHintVisible());

    // Deleting everything is allowed, shows the hint, and one undo brings it all back.
    const Cluster caseStudy = model->cluster();
    window.scene()->selectAll();
    window.scene()->deleteSelection();
    QVERIFY(model->cluster().machines.empty() && model->cluster().switches.empty());
    QVERIFY(window.view()->isEmptyHintVisible());
    model->undoStack()->undo();
    QVERIFY(model->cluster() == caseStudy);
    QVERIFY(!window.view()->isEmptyHintVisible());

    QAction *newAction = nullptr;
    for (QAction *a : menuNamed(window, QStringLiteral("&File"))->actions())
        if (a->text() == QLatin1String("&New"))
            newAction = a;
    QVERIFY(newAction);
    newAction->trigger();
    QCOMPARE(window.document()->clusterModel(), model);
    QVERIFY(model->cluster().machines.empty());
    QVERIFY(model->cluster().switches.empty());
    QVERIFY(window.view()->isEmptyHintVisible());

    // Plan says what is missing in the Problems list instead of planning nothing.
    window.results()->plan();
    const std::vector<ResultIssue> &issues = window.results()->problemsView()->issues();
    QTRY_VERIFY_WITH_TIMEOUT(!issues.empty(), 60000);
    const QString expected = QStringLiteral("cluster '%1' has no GPUs; add a machine")
                                 .arg(QString::fromStdString(model->cluster().name));
    QVERIFY2(issues.front().message.contains(expected), qPrintable(issues.front().message));
}

HETPLAN_TEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
