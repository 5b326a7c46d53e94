// What-if sliders: moving one shows the core's iteration time for the changed bandwidth at
// once, re-plans from the current plan after a pause, and Reset goes back; the sweep gives
// the core's figures at every bandwidth.
#include "core/io/catalog_json.h"
#include "core/io/formats.h"
#include "core/io/loaders.h"
#include "result_value.h"
#include "results/planning_controller.h"
#include "results/sweep_view.h"
#include "results/whatif_panel.h"
#include "tests/test_registry.h"

#include <QLabel>
#include <QSignalSpy>
#include <QSlider>
#include <QTest>

#include <cmath>

using namespace hetplan;
using namespace hetplan::gui;
using hetplan::gui::test::valueOf;

namespace {

// The case study planned by the core, as the results panel would show it.
ShownPlan caseStudyPlan()
{
    const auto workload = findExample("case-study", ExampleKind::Workload);
    Q_ASSERT(workload);
    auto problem = std::make_shared<Problem>(Problem{
        valueOf(Topology::build(valueOf(loadCluster("case-study")), builtinGpuCatalog())),
        valueOf(loadModel("llama2-13b")), valueOf(parseWorkload(workload->text, workload->path))});
    const auto costModel = makeCostModel(CostModelKind::HetPlan);
    NullProgress quiet;
    PlanSearch search = valueOf(
        valueOf(makePlanner(PlannerKind::HexiScale))->plan(*problem, *costModel, {}, {}, quiet));
    return {problem, search.plan, search.evaluation};
}

// What the core says about `plan` on `cluster`: the expected value, computed without the panel.
double coreIterationS(const ShownPlan &shown, const Cluster &cluster)
{
    Problem changed{valueOf(Topology::build(cluster, builtinGpuCatalog())), shown.problem->model,
                    shown.problem->workload};
    return makeCostModel(CostModelKind::HetPlan)->evaluate(changed, shown.plan).iterationS;
}

bool close(double a, double b)
{
    return std::abs(a - b) <= 1e-9 * std::max({1.0, std::abs(a), std::abs(b)});
}

} // namespace

class TestWhatIf : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { m_shown = caseStudyPlan(); }
    void sliderShowsCoreValue_data();
    void sliderShowsCoreValue();
    void replansAfterPause();
    void resetRestoresThePlan();
    void sweepMatchesCore();
    void sweepOfAnOldPlanIsDropped();
    void largeClusterReevaluation();

private:
    ShownPlan m_shown;
};

void TestWhatIf::sliderShowsCoreValue_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<int>("index");
    QTest::addColumn<int>("position");
    using Kind = BandwidthTarget::Kind;
    QTest::newRow("network ×10") << int(Kind::Network) << -1 << 100;
    QTest::newRow("network ×0.1") << int(Kind::Network) << -1 << -100;
    QTest::newRow("intra ×0.3") << int(Kind::Intra) << -1 << -50;
    QTest::newRow("link 0 ×3") << int(Kind::Link) << 0 << 50;
    QTest::newRow("inside machine 1 ×0.5") << int(Kind::MachineIntra) << 1 << -30;
}

void TestWhatIf::sliderShowsCoreValue()
{
    QFETCH(int, kind);
    QFETCH(int, index);
    QFETCH(int, position);
    WhatIfPanel panel;
    panel.setBase(m_shown, CostModelKind::HetPlan, PlannerKind::HexiScale);
    const BandwidthTarget target{BandwidthTarget::Kind(kind), index};
    const int slider = panel.sliderFor(target);
    QVERIFY(slider >= 0);
    QSignalSpy evaluated(&panel, &WhatIfPanel::evaluated);
    panel.slider(slider)->setValue(position);
    QCOMPARE(evaluated.size(), 1); // at once, not after the pause

    // The expected cluster, changed by hand: every bandwidth the slider covers × the factor.
    const double factor = std::pow(10.0, position / 100.0);
    Cluster cluster = m_shown.problem->topology.cluster();
    switch (target.kind) {
    case BandwidthTarget::Kind::Network:
        for (Link &l : cluster.links)
            l.bandwidthGBps *= factor;
        break;
    case BandwidthTarget::Kind::Intra:
        for (Machine &m : cluster.machines)
            m.intra.bandwidthGBps *= factor;
        break;
    case BandwidthTarget::Kind::Link:
        cluster.links[size_t(index)].bandwidthGBps *= factor;
        break;
    case BandwidthTarget::Kind::MachineIntra:
        cluster.machines[size_t(index)].intra.bandwidthGBps *= factor;
        break;
    }
    const double expectedS = coreIterationS(m_shown, cluster);
    QVERIFY(panel.changedEvaluation().has_value());
    QVERIFY(close(panel.changedEvaluation()->iterationS, expectedS));
    QVERIFY2(panel.changedText().contains(ResultsText::duration(expectedS)),
             qPrintable(panel.changedText()));
    QVERIFY(panel.changedText().contains(ResultsText::duration(m_shown.evaluation.iterationS)));
    qInfo("what-if re-evaluation: %.3f ms", panel.lastEvaluationMs());
    // The drawn cluster is untouched.
    QVERIFY(m_shown.problem->topology.cluster() != cluster);
}

void TestWhatIf::replansAfterPause()
{
    WhatIfPanel panel;
    panel.setBase(m_shown, CostModelKind::HetPlan, PlannerKind::HexiScale);
    QSignalSpy replanned(&panel, &WhatIfPanel::replanned);
    QSignalSpy started(panel.replanner(), &PlanningController::started);
    const int network = panel.sliderFor({BandwidthTarget::Kind::Network, -1});
    // A drag: several moves in quick succession start one re-plan, after the pause.
    for (int position = 10; position <= 100; position += 10)
        panel.slider(network)->setValue(position);
    QCOMPARE(started.size(), 0);
    QVERIFY(replanned.wait(60000));
    QCOMPARE(started.size(), 1);
    QVERIFY(panel.replannedPlan().has_value());
    // Warm start from the current plan never returns a worse one.
    const double replannedS = panel.replannedPlan()->evaluation.iterationS;
    QVERIFY(replannedS <= panel.changedEvaluation()->iterationS * (1 + 1e-9));
    // The re-planned figure is the core's for the re-planned plan on the changed cluster.
    QVERIFY(close(replannedS, coreIterationS(*panel.replannedPlan(), panel.changedCluster())));
}

void TestWhatIf::resetRestoresThePlan()
{
    WhatIfPanel panel;
    panel.setBase(m_shown, CostModelKind::HetPlan, PlannerKind::HexiScale);
    panel.slider(0)->setValue(-80);
    QVERIFY(panel.changedEvaluation().has_value());
    panel.reset();
    for (int i = 0; i < panel.sliderCount(); ++i)
        QCOMPARE(panel.slider(i)->value(), 0);
    QVERIFY(!panel.changedEvaluation().has_value());
    QCOMPARE(panel.changedCluster(), m_shown.problem->topology.cluster());
    QVERIFY(panel.changedText().contains(ResultsText::duration(m_shown.evaluation.iterationS)));
}

void TestWhatIf::sweepMatchesCore()
{
    SweepView sweep;
    sweep.setBase(m_shown, CostModelKind::HetPlan, PlannerKind::HexiScale);
    QSignalSpy finished(&sweep, &SweepView::sweepFinished);
    const std::vector<BandwidthTarget> targets
        = bandwidthTargets(m_shown.problem->topology.cluster());
    const int link = int(
        std::find(targets.begin(), targets.end(), BandwidthTarget{BandwidthTarget::Kind::Link, 0})
        - targets.begin());
    sweep.startSweep(link);
    QVERIFY(finished.wait(120000));
    QCOMPARE(int(sweep.points().size()), SweepView::kPoints);
    double previousGBps = 0;
    for (const SweepPoint &point : sweep.points()) {
        QVERIFY(point.bandwidthGBps > previousGBps);
        previousGBps = point.bandwidthGBps;
        Cluster cluster = m_shown.problem->topology.cluster();
        cluster.links[0].bandwidthGBps = point.bandwidthGBps;
        QVERIFY(close(point.currentPlanS, coreIterationS(m_shown, cluster)));
        QVERIFY2(point.replannedS.has_value(), point.error.c_str());
        QVERIFY(*point.replannedS <= point.currentPlanS * (1 + 1e-9));
        QVERIFY(point.replannedMfu > 0);
    }
    // 0.1× to 10× of the drawn bandwidth.
    const double drawnGBps = m_shown.problem->topology.cluster().links[0].bandwidthGBps;
    QVERIFY(close(sweep.points().front().bandwidthGBps, drawnGBps / 10));
    QVERIFY(close(sweep.points().back().bandwidthGBps, drawnGBps * 10));
}

// A sweep still stopping when another plan is shown must not draw its points over the new one.
void TestWhatIf::sweepOfAnOldPlanIsDropped()
{
    SweepView sweep;
    sweep.setBase(m_shown, CostModelKind::HetPlan, PlannerKind::HexiScale);
    QSignalSpy finished(&sweep, &SweepView::sweepFinished);
    sweep.startSweep(0);
    QVERIFY(sweep.isRunning());
    sweep.setBase(m_shown, CostModelKind::HetPlan, PlannerKind::HexiScale);
    QTRY_VERIFY_WITH_TIMEOUT(!sweep.isRunning(), 120000);
    QVERIFY(sweep.points().empty());
    QCOMPARE(finished.size(), 0);

    sweep.startSweep(0);
    QVERIFY(finished.wait(120000));
    QCOMPARE(int(sweep.points().size()), SweepView::kPoints);
}

void TestWhatIf::largeClusterReevaluation()
{
    // 240 GPUs, Llama-2 70B: the slider still shows the core's value for the new bandwidth.
    const auto workload = findExample("large-cluster", ExampleKind::Workload);
    QVERIFY(workload);
    auto problem = std::make_shared<Problem>(Problem{
        valueOf(Topology::build(valueOf(loadCluster("large-cluster")), builtinGpuCatalog())),
        valueOf(loadModel("llama2-70b")), valueOf(parseWorkload(workload->text, workload->path))});
    PlannerOptions options;
    options.maxIterations = 5;
    NullProgress quiet;
    const PlanSearch search
        = valueOf(valueOf(makePlanner(PlannerKind::HexiScale))
                      ->plan(*problem, *makeCostModel(CostModelKind::HetPlan), options, {}, quiet));
    const ShownPlan shown{problem, search.plan, search.evaluation};
    WhatIfPanel panel;
    panel.setBase(shown, CostModelKind::HetPlan, PlannerKind::HexiScale);
    const int network = panel.sliderFor({BandwidthTarget::Kind::Network, -1});
    double worstMs = 0;
    for (int position : {-100, -40, 30, 100}) {
        panel.slider(network)->setValue(position);
        worstMs = std::max(worstMs, panel.lastEvaluationMs());
        Cluster cluster = problem->topology.cluster();
        for (Link &l : cluster.links)
            l.bandwidthGBps *= std::pow(10.0, position / 100.0);
        QVERIFY(close(panel.changedEvaluation()->iterationS, coreIterationS(shown, cluster)));
    }
    qInfo("what-if re-evaluation, 240 GPUs: worst %.3f ms", worstMs);
}

HETPLAN_TEST_MAIN(TestWhatIf)
#include "tst_whatif.moc"
