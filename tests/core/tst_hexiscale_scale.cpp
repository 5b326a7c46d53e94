// The default planner at the format's limit: 2048 machines, 16,384 GPUs (tests/bench/fleet.h).
// Not timed (the bench measures speed): these check what a person gets back when planning
// such a cluster is bounded by a time limit or stopped.
#include "core/cost/validator.h"
#include "core/io/catalog_json.h"
#include "core/planners/hexiscale/hexiscale_planner.h"
#include "tests/bench/fleet.h"
#include "tests/core/planner_test_support.h"
#include "tests/test_registry.h"

#include <QtTest>

#include <stop_token>

using namespace hetplan;
using namespace hetplan::test;

namespace {

Problem fleetProblem()
{
    const Cluster cluster = bench::benchFleet(kMaxMachines);
    return {orFail(Topology::build(cluster, builtinGpuCatalog()), "fleet"),
            orFail(loadModel("llama2-70b"), "llama2-70b"), bench::fleetWorkload()};
}

// Requests a stop at the first progress report: the search has started and must end there.
class StopAtFirstReport final : public ProgressSink
{
public:
    explicit StopAtFirstReport(std::stop_source &stop)
        : m_stop(stop)
    {}
    void report(const Progress &) override
    {
        ++reports;
        m_stop.request_stop();
    }
    int reports = 0;

private:
    std::stop_source &m_stop;
};

// A plan a person can use, or the planner's clear word that it had none yet.
void checkPlanOrStopped(const Problem &problem, const CostModel &costModel,
                        const Result<PlanSearch> &search)
{
    if (!search) {
        QCOMPARE(search.error().kind, ErrorKind::Cancelled);
        // A stop request ("stopped before any plan") or the time limit ("... passed before any
        // plan was found"), whichever came first.
        QVERIFY2(search.error().message.find("before any plan") != std::string::npos,
                 search.error().message.c_str());
        return;
    }
    const std::vector<PlanIssue> issues = validatePlan(problem, search->plan, &costModel);
    QVERIFY2(issues.empty(), issues.empty() ? "" : issues.front().message.c_str());
    QVERIFY(std::isfinite(search->evaluation.iterationS));
}

} // namespace

class TestHexiScaleScale : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void topologyAcceptsTheFormatsLimit()
    {
        const Problem problem = fleetProblem();
        QCOMPARE(problem.topology.gpuCount(), kMaxMachines * 8);
        // Rack mates (one search serves a rack; see Topology) and machines in different pods.
        const int rackMate = problem.topology.firstGpuOf(1);
        const int otherPod = problem.topology.firstGpuOf(8 * 32);
        QCOMPARE(problem.topology.bandwidthGBps(0, rackMate), 100.0);
        QCOMPARE(problem.topology.latencyUs(0, rackMate), 4.0);
        QCOMPARE(problem.topology.bandwidthGBps(0, otherPod), 100.0);
        QCOMPARE(problem.topology.latencyUs(0, otherPod), 2.0 + 1 + 5 + 5 + 1 + 2);
        // A 3090 box (rack 3) to an H100 box: its own 25 GbE link is the narrowest.
        const int slowBox = problem.topology.firstGpuOf(3 * 32 + 5);
        QCOMPARE(problem.topology.bandwidthGBps(slowBox, 0), 3.125);
        QCOMPARE(problem.topology.bandwidthGBps(0, slowBox), 3.125);
    }

    void timeLimitGivesPlanOrClearStop()
    {
        const Problem problem = fleetProblem();
        const auto costModel = makeCostModel(CostModelKind::HetPlan);
        PlannerOptions options;
        options.timeLimitS = 2;
        const Result<PlanSearch> search
            = runPlanner(HexiScalePlanner(), problem, *costModel, options);
        checkPlanOrStopped(problem, *costModel, search);
    }

    void honoursStopRequest()
    {
        const Problem problem = fleetProblem();
        const auto costModel = makeCostModel(CostModelKind::HetPlan);
        std::stop_source stop;
        StopAtFirstReport progress(stop);
        const Result<PlanSearch> search
            = HexiScalePlanner().plan(problem, *costModel, {}, stop.get_token(), progress);
        checkPlanOrStopped(problem, *costModel, search);
        // The first report ends the outer loop; polishing is skipped and one last report says
        // where the search stood.
        QVERIFY2(progress.reports <= 2, std::to_string(progress.reports).c_str());
        if (search) {
            QVERIFY(search->stoppedEarly);
            QVERIFY(search->trace.size() <= 2);
        }
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestHexiScaleScale)
#include "tst_hexiscale_scale.moc"
