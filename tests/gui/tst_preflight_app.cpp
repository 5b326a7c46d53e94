// The launch flow's Pre-flight step once a report is in (docs/app-launch.md, "Pre-flight"),
// fed through the same PreflightStep::showReport the job's report goes through: the table per
// check, the canvas's links coloured by verdict with the legend, Launch asking again when a
// check hung, Fold moving the plan's hop off the slow pair, and one Undo restoring the cluster
// and the plan. The real pre-flight over SSH is tst_launch_flow's.
#include "canvas/cluster_scene.h"
#include "canvas/cluster_view.h"
#include "canvas/link_item.h"
#include "canvas/verdict_legend.h"
#include "core/io/project_json.h"
#include "launch/launch_actions.h"
#include "launch/launch_panel.h"
#include "launch/preflight_dialog.h"
#include "launch/preflight_step.h"
#include "model/cluster_model.h"
#include "model/document.h"
#include "tests/core/planner_test_support.h"
#include "tests/test_registry.h"
#include "window_test_support.h"

#include <QApplication>
#include <QCheckBox>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QUndoStack>

#include <functional>
#include <set>

using namespace hetplan;
using namespace hetplan::gui;
using namespace hetplan::gui::test;

namespace {

// Three one-GPU machines, each pair joined by its own link, all alike: where the planner puts
// the pipeline's hop is up to it until a pair is measured slower.
Cluster triangle()
{
    Cluster cluster;
    cluster.name = "triangle";
    double x = 0;
    for (const char *name : {"A", "B", "C"}) {
        cluster.machines.push_back(
            {name, "RTX4090-24G", 1, "", {LinkKind::Pcie, 16, 8}, NicKind::Ethernet, {x, 0}});
        x += 300;
    }
    cluster.machines[2].position = {150, 250};
    cluster.links = {{"A", "B", LinkKind::Ethernet, 2, 25},
                     {"B", "C", LinkKind::Ethernet, 2, 25},
                     {"A", "C", LinkKind::Ethernet, 2, 25}};
    return cluster;
}

// The unordered GPU-name pairs the shown plan's hops cross.
std::set<std::pair<std::string, std::string>> hopPairs(const ShownPlan &shown)
{
    return hetplan::test::hopPairs(shown.plan, shown.problem->topology);
}

std::string machineOf(const std::string &gpu)
{
    return gpu.substr(0, gpu.rfind(':'));
}

PreflightRow row(const std::string &group, const std::string &kind,
                 std::vector<PreflightMember> members, double achievedGBps)
{
    PreflightRow r;
    r.group = group;
    r.kind = kind;
    r.members = std::move(members);
    r.messageBytes = 1 << 24;
    r.ops = 3;
    r.seconds = 2.5;
    r.achievedBytesPerS = achievedGBps * 1e9;
    r.latencyS = 400e-6;
    r.assumedBytesPerS = 2e9;
    r.assumedLatencyS = 25e-6;
    judgeMeasured(r);
    return r;
}

// The hop x → y measured at a hundredth of its claim, an all-reduce of x and z ok, one of
// y and z hung on z.
PreflightReport reportOn(const std::string &x, const std::string &y, const std::string &z)
{
    PreflightRow hop
        = row("hop/p0/s0-s1/r0-r0", "hop", {{0, x, "10.0.0.1"}, {1, y, "10.0.0.2"}}, 0.02);
    hop.fromGpu = x;
    hop.toGpu = y;
    hop.transport = "nccl";
    PreflightRow ok = row("dp/x-z", "DP", {{0, x, "10.0.0.1"}, {2, z, "10.0.0.3"}}, 1.9);
    PreflightRow hung = row("dp/y-z", "DP", {{1, y, "10.0.0.2"}, {2, z, "10.0.0.3"}}, 0);
    hung.achievedBytesPerS.reset();
    hung.latencyS.reset();
    hung.verdict = PreflightVerdict::Hung;
    hung.detail = z + " (rank 2, 10.0.0.3) did not answer";
    PreflightReport report;
    report.rows = {hop, ok, hung};
    report.wallS = 3.2;
    return report;
}

} // namespace

class TestPreflightApp : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { useTestSettings(); }
    void init();
    void cleanup() { m_window.reset(); }
    void reportShowsTableAndColoursLinks();
    void hungCheckMakesLaunchAskAgain();
    void foldMovesTheHopAndOneUndoRestores();
    void coloursFollowTheCheckedClusterUntilClear();
    void preflightFirstIsRemembered();

private:
    // The link item between two machines.
    LinkItem *linkBetween(const std::string &a, const std::string &b) const;
    PreflightDialog *showReport();

    QTemporaryDir m_dir;
    std::unique_ptr<MainWindow> m_window;
    std::string m_x, m_y, m_z; // the hop's GPUs and the third one
};

void TestPreflightApp::init()
{
    Project p;
    p.cluster = triangle();
    // Does not fit one 24 GiB GPU with its optimizer state: the plan is a pipeline.
    p.customModel
        = ModelSpec{"pipeline-sized", 24, 2048, 5504, 16, 16, 32000, 2048, MlpKind::SwiGlu};
    p.workload.mode = Mode::Train;
    p.workload.train.globalBatch = 8;
    p.workload.train.microBatchSizes = {1};
    p.workload.train.seqLen = 2048;
    const QString path = m_dir.filePath(QStringLiteral("triangle.hetplan.json"));
    QVERIFY(saveProjectFile(p, path.toStdString()).ok());
    m_window = std::make_unique<MainWindow>();
    m_window->show();
    QVERIFY(m_window->openFile(path));
    QVERIFY(planAndWait(*m_window));
    const auto crossed = hopPairs(*m_window->results()->shownPlan());
    QVERIFY2(!crossed.empty(), "the fixture's plan is not a pipeline");
    std::tie(m_x, m_y) = *crossed.begin();
    for (const char *gpu : {"A:0", "B:0", "C:0"})
        if (gpu != m_x && gpu != m_y)
            m_z = gpu;
}

LinkItem *TestPreflightApp::linkBetween(const std::string &a, const std::string &b) const
{
    ClusterModel *model = m_window->document()->clusterModel();
    for (const ItemId id : model->linkIds()) {
        const Link *link = model->link(id);
        if ((link->a == a && link->b == b) || (link->a == b && link->b == a))
            return static_cast<LinkItem *>(m_window->scene()->itemFor(id));
    }
    return nullptr;
}

PreflightDialog *TestPreflightApp::showReport()
{
    PreflightStep *step = m_window->launch()->preflightStep();
    step->showReport(reportOn(m_x, m_y, m_z),
                     m_window->results()->shownPlan()->problem->topology.cluster());
    return step->dialog();
}

void TestPreflightApp::reportShowsTableAndColoursLinks()
{
    PreflightDialog *dialog = showReport();
    QVERIFY(dialog);
    QVERIFY(dialog->isVisible());
    QTableWidget *table = dialog->table();
    QCOMPARE(table->rowCount(), 3);
    const auto cell = [&](int r, int c) { return table->item(r, c)->text(); };
    const QString x = QString::fromStdString(m_x);
    const QString y = QString::fromStdString(m_y);
    const QString z = QString::fromStdString(m_z);
    QCOMPARE(cell(0, PreflightDialog::Group), QStringLiteral("hop/p0/s0-s1/r0-r0"));
    QCOMPARE(cell(0, PreflightDialog::Members), QStringLiteral("%1 → %2").arg(x, y));
    // The backend's transport over the links' kind; a row whose transport nobody told: the links.
    QCOMPARE(cell(0, PreflightDialog::Transport), QStringLiteral("nccl over Ethernet"));
    QCOMPARE(cell(1, PreflightDialog::Transport), QStringLiteral("Ethernet"));
    QCOMPARE(cell(0, PreflightDialog::Message), QStringLiteral("16 MiB"));
    QCOMPARE(cell(0, PreflightDialog::Achieved), QStringLiteral("0.02 GB/s"));
    QCOMPARE(cell(0, PreflightDialog::Latency), QStringLiteral("400 µs"));
    QCOMPARE(cell(0, PreflightDialog::Assumed), QStringLiteral("2 GB/s"));
    QCOMPARE(cell(0, PreflightDialog::AssumedLatency), QStringLiteral("25 µs"));
    QCOMPARE(cell(0, PreflightDialog::Verdict), QStringLiteral("slow by 100×"));
    QCOMPARE(cell(1, PreflightDialog::Members), QStringLiteral("%1, %2").arg(x, z));
    QCOMPARE(cell(1, PreflightDialog::Verdict), QStringLiteral("ok"));
    QCOMPARE(cell(2, PreflightDialog::Achieved), QStringLiteral("–"));
    QVERIFY2(cell(2, PreflightDialog::Verdict).startsWith(QStringLiteral("hung: ") + z),
             qPrintable(cell(2, PreflightDialog::Verdict)));
    QVERIFY2(dialog->summaryLabel()->text().contains(u"1 ok, 1 slow, 1 hung or failed"),
             qPrintable(dialog->summaryLabel()->text()));
    QVERIFY2(dialog->summaryLabel()->text().contains(u"Transport: nccl."),
             qPrintable(dialog->summaryLabel()->text()));
    // Members name their hosts.
    QVERIFY(table->item(0, PreflightDialog::Members)->toolTip().contains(u"10.0.0.2"));
    // Two pairs between machines were measured: Fold is offered.
    QVERIFY(dialog->foldButton()->isEnabled());

    // The canvas: slow amber with its ratio, ok green, hung red; the legend says so.
    LinkItem *slow = linkBetween(machineOf(m_x), machineOf(m_y));
    LinkItem *ok = linkBetween(machineOf(m_x), machineOf(m_z));
    LinkItem *hung = linkBetween(machineOf(m_y), machineOf(m_z));
    QVERIFY(slow && ok && hung);
    QVERIFY(slow->verdict() && ok->verdict() && hung->verdict());
    QCOMPARE(slow->verdict()->verdict, PreflightVerdict::Slow);
    QCOMPARE(ok->verdict()->verdict, PreflightVerdict::Ok);
    QCOMPARE(hung->verdict()->verdict, PreflightVerdict::Hung);
    QVERIFY2(slow->toolTip().contains(u"slow by 100×"), qPrintable(slow->toolTip()));
    QVERIFY2(hung->toolTip().contains(u"did not answer"), qPrintable(hung->toolTip()));
    auto *legend = m_window->view()->findChild<VerdictLegend *>(QStringLiteral("verdictLegend"));
    QVERIFY(legend);
    QVERIFY(legend->isVisible());
    QVERIFY(legend->textLabel()->text().contains(u"slow"));
    // The CLI's table is in the Job pane too.
    QVERIFY(m_window->launch()
                ->panel()
                ->pane(QStringLiteral("job"))
                ->toPlainText()
                .contains(u"slow by 100×"));
    dialog->cancelButton()->click();
    QVERIFY(!m_window->launch()->preflightStep()->dialog()
            || !m_window->launch()->preflightStep()->dialog()->isVisible());
}

void TestPreflightApp::hungCheckMakesLaunchAskAgain()
{
    PreflightDialog *dialog = showReport();
    QVERIFY(dialog);
    QSignalSpy launched(m_window->launch()->preflightStep(), &PreflightStep::launchChosen);
    // A hung check: Cancel is the default, and Launch asks; No keeps the dialog open.
    QVERIFY(dialog->cancelButton()->isDefault());
    QString asked;
    whenModal<QMessageBox>(m_window.get(), [&](QMessageBox *box) {
        asked = box->objectName() + u'\n' + box->text();
        box->findChild<QPushButton *>(QStringLiteral("preflightConfirmNo"))->click();
    });
    dialog->launchButton()->click();
    QVERIFY2(asked.startsWith(u"preflightConfirmLaunch\n1 of the checks hung or failed"),
             qPrintable(asked));
    QCOMPARE(launched.count(), 0);
    QVERIFY(dialog->isVisible());
    // Yes launches.
    whenModal<QMessageBox>(m_window.get(), [](QMessageBox *box) {
        box->findChild<QPushButton *>(QStringLiteral("preflightConfirmYes"))->click();
    });
    dialog->launchButton()->click();
    QCOMPARE(launched.count(), 1);
}

void TestPreflightApp::foldMovesTheHopAndOneUndoRestores()
{
    ClusterModel *model = m_window->document()->clusterModel();
    const Cluster before = model->cluster();
    const ShownPlan planBefore = *m_window->results()->shownPlan();
    const int steps = model->undoStack()->count();
    PreflightDialog *dialog = showReport();
    QVERIFY(dialog);
    QSignalSpy shown(m_window->results(), &ResultsPanel::planShown);
    dialog->foldButton()->click();

    // The measured pairs are the cluster's, as measured by the pre-flight, in one step.
    QCOMPARE(model->undoStack()->count(), steps + 1);
    const Cluster &folded = model->cluster();
    QCOMPARE(folded.pairOverrides.size(), std::size_t(2));
    QVERIFY(std::any_of(
        folded.pairOverrides.begin(), folded.pairOverrides.end(), [&](const PairOverride &o) {
            return std::set{o.a, o.b} == std::set{m_x, m_y} && o.bandwidthGBps == 0.02;
        }));
    QVERIFY(std::any_of(folded.origin.sources.begin(), folded.origin.sources.end(),
                        [](const std::string &s) { return s == "preflight"; }));
    // The colours were for the cluster before.
    QVERIFY(!m_window->scene()->hasLinkVerdicts());

    // The re-plan crosses the slow pair no more.
    QVERIFY(QTest::qWaitFor(
        [&] {
            const auto &now = m_window->results()->shownPlan();
            return now && now->problem->topology.cluster() == model->cluster();
        },
        kPlanTimeoutMs));
    const ShownPlan planAfter = *m_window->results()->shownPlan();
    const auto crossed = hopPairs(planAfter);
    QVERIFY2(!crossed.empty(), "the re-planned plan is no pipeline");
    QVERIFY2(!crossed.contains({m_x, m_y}),
             qPrintable(QStringLiteral("the hop still crosses %1-%2")
                            .arg(QString::fromStdString(m_x), QString::fromStdString(m_y))));

    // One Undo: the cluster and the plan shown before.
    model->undoStack()->undo();
    QCOMPARE(model->cluster(), before);
    QVERIFY(m_window->results()->shownPlan()->plan.pipelines == planBefore.plan.pipelines);
    QVERIFY(m_window->results()->shownPlan()->problem->topology.cluster() == before);
    // Redo: the folded cluster and its re-plan again.
    model->undoStack()->redo();
    QCOMPARE(model->cluster().pairOverrides.size(), std::size_t(2));
    QVERIFY(m_window->results()->shownPlan()->plan.pipelines == planAfter.plan.pipelines);
}

void TestPreflightApp::coloursFollowTheCheckedClusterUntilClear()
{
    PreflightDialog *dialog = showReport();
    QVERIFY(dialog);
    dialog->cancelButton()->click();
    ClusterScene *scene = m_window->scene();
    ClusterModel *model = scene->model();
    auto *legend = m_window->view()->findChild<VerdictLegend *>(QStringLiteral("verdictLegend"));
    QVERIFY(scene->hasLinkVerdicts());
    // Moving a card keeps them: the links are the same.
    const ItemId a = model->nodeByName("A");
    model->moveNodes({{a, {-100, -100}}}, false);
    QVERIFY(scene->hasLinkVerdicts());
    QVERIFY(legend->isVisible());
    // Clear draws the links by kind again.
    legend->clearButton()->click();
    QVERIFY(!scene->hasLinkVerdicts());
    QVERIFY(!linkBetween(machineOf(m_x), machineOf(m_y))->verdict());
    QVERIFY(!legend->isVisible());
    // An edit of a link's figures clears them too.
    showReport()->cancelButton()->click();
    QVERIFY(scene->hasLinkVerdicts());
    Link changed = *model->link(model->linkIds().front());
    changed.bandwidthGBps = 5;
    QVERIFY(model->updateLink(model->linkIds().front(), changed).ok());
    QVERIFY(!scene->hasLinkVerdicts());
    QVERIFY(!legend->isVisible());
    // Undo brings back the cluster they were made for, and them with it.
    model->undoStack()->undo();
    QVERIFY(scene->hasLinkVerdicts());
    QVERIFY(legend->isVisible());
    // After Clear, nothing brings them back.
    legend->clearButton()->click();
    model->undoStack()->redo();
    model->undoStack()->undo();
    QVERIFY(!scene->hasLinkVerdicts());
}

void TestPreflightApp::preflightFirstIsRemembered()
{
    QCheckBox *box = m_window->launch()->panel()->preflightBox();
    QVERIFY(box->isChecked()); // by default Launch checks the links first
    box->setChecked(false);
    m_window.reset();
    MainWindow again;
    QVERIFY(!again.launch()->panel()->preflightFirst());
    again.launch()->panel()->preflightBox()->setChecked(true);
}

HETPLAN_TEST_MAIN(TestPreflightApp)
#include "tst_preflight_app.moc"
