// The window around the document: title and dirty marker, status totals, menus, undo, and
// the plan it starts on.
#include "canvas/cluster_scene.h"
#include "mainwindow.h"
#include "model/cluster_model.h"
#include "model/document.h"
#include "results/planning_controller.h"
#include "results/results_panel.h"

#include "core/catalog/catalog.h"

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
    window.scene()->setSelectedIds(model->machineIds());
    model->removeItems(model->machineIds());
    QVERIFY(window.statusBar()->currentMessage().contains(QLatin1String("at least one machine")));
    QCOMPARE(model->cluster().machines.size(), std::size_t(3));

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

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
