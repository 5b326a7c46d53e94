// The plan on screen is the plan of what is drawn, or it says it is not: What if's re-planned
// plan can be shown, edits mark the shown plan out of date everywhere it appears, New and
// Open clear the previous project's figures, a reopened project shows its saved estimate.
#include "mainwindow.h"
#include "model/cluster_model.h"
#include "model/document.h"
#include "results/planning_controller.h"
#include "results/results_panel.h"
#include "results/whatif_panel.h"
#include "window_test_support.h"

#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSlider>
#include <QStandardPaths>
#include <QTest>

using namespace hetplan;
using namespace hetplan::gui;
using namespace hetplan::gui::test;

namespace {

QPushButton *buttonNamed(QWidget *parent, const QString &text)
{
    for (QPushButton *button : parent->findChildren<QPushButton *>())
        if (button->text() == text)
            return button;
    return nullptr;
}

} // namespace

class TestStalePlan : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void showReplannedPlanFromWhatIf();
};

void TestStalePlan::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("HetPlanTest"));
    QSettings().clear();
}

void TestStalePlan::showReplannedPlanFromWhatIf()
{
    MainWindow window;
    window.show();
    QVERIFY(window.openExample(QStringLiteral("case-study")));
    QVERIFY(planAndWait(window));
    WhatIfPanel *whatIf = window.results()->whatIfPanel();
    QPushButton *show = buttonNamed(whatIf, QStringLiteral("Show re-planned plan"));
    QVERIFY(show);
    // Slow the network down until the re-plan picks another strategy.
    const int network = whatIf->sliderFor({BandwidthTarget::Kind::Network, -1});
    QVERIFY(network >= 0);
    for (int position : {-100, 100, -50, 50}) {
        QSignalSpy replanned(whatIf, &WhatIfPanel::replanned);
        whatIf->slider(network)->setValue(position);
        QVERIFY(replanned.wait(kPlanTimeoutMs));
        if (show->isEnabled())
            break;
    }
    QVERIFY(show->isEnabled());
    const ShownPlan replanned = *whatIf->replannedPlan();
    QTest::mouseClick(show, Qt::LeftButton);
    QVERIFY(window.results()->shownPlan());
    QVERIFY(window.results()->shownPlan()->plan.sameLayout(replanned.plan));
    QCOMPARE(window.results()->shownPlan()->evaluation.iterationS, replanned.evaluation.iterationS);
}

QTEST_MAIN(TestStalePlan)
#include "tst_stale_plan.moc"
