// The serving simulator: deterministic for a seed, exactly monotone in the request rate with
// weighted round robin (common random numbers), queueing theory where it has an answer, and
// the SLO from an absolute value or HexGen's scale of the A100 reference.
#include "core/cost/cost_model.h"
#include "core/cost/problem.h"
#include "core/io/catalog_json.h"
#include "core/io/formats.h"
#include "core/io/loaders.h"
#include "core/serving/plan_serving.h"
#include "core/serving/serving_sim.h"
#include "tests/test_registry.h"

#include <QtTest>

#include <cmath>
#include <vector>

using namespace hetplan;

namespace {

// Four replicas of different speed, as a heterogeneous plan has them.
const std::vector<double> kReplicaLatencyS{3.1, 3.4, 6.5, 7.6};

std::vector<double> rateGrid()
{
    std::vector<double> rates;
    for (double r = 0.05; r <= 3.0; r *= 1.15)
        rates.push_back(r);
    return rates;
}

ServingOptions withPolicy(DispatchPolicy policy, std::uint64_t seed = 1)
{
    ServingOptions options;
    options.dispatch = policy;
    options.seed = seed;
    return options;
}

Problem fullPriceProblem()
{
    const Cluster cluster = loadCluster("hexgen-full-price").value();
    Workload workload;
    workload.mode = Mode::Infer;
    return {Topology::build(cluster, builtinGpuCatalog()).value(), loadModel("llama2-70b").value(),
            workload};
}

} // namespace

class TestServingSim : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void sameSeedSameOutcome_data()
    {
        QTest::addColumn<int>("policy");
        QTest::newRow("weighted round robin") << int(DispatchPolicy::WeightedRoundRobin);
        QTest::newRow("earliest completion") << int(DispatchPolicy::EarliestCompletion);
    }

    void sameSeedSameOutcome()
    {
        QFETCH(int, policy);
        const ServingSimulator a(withPolicy(DispatchPolicy(policy), 7));
        const ServingSimulator b(withPolicy(DispatchPolicy(policy), 7));
        const ServingSimulator other(withPolicy(DispatchPolicy(policy), 8));
        const ServingOutcome x = a.simulate(kReplicaLatencyS, 1.0, 8.0);
        const ServingOutcome y = b.simulate(kReplicaLatencyS, 1.0, 8.0);
        QCOMPARE(x.attainment, y.attainment);
        QCOMPARE(x.p50S, y.p50S);
        QCOMPARE(x.p99S, y.p99S);
        QCOMPARE(a.maxSustainableRate(kReplicaLatencyS, 8.0),
                 b.maxSustainableRate(kReplicaLatencyS, 8.0));
        QVERIFY(other.simulate(kReplicaLatencyS, 1.0, 8.0).meanS != x.meanS);
    }

    // Common random numbers and a time-independent dispatch make every request's latency
    // non-decreasing in the rate, so attainment is monotone exactly, not within noise.
    void roundRobinIsExactlyMonotone()
    {
        const ServingSimulator simulator(withPolicy(DispatchPolicy::WeightedRoundRobin));
        double previousAttainment = 2;
        double previousP99 = 0;
        for (double rate : rateGrid()) {
            const ServingOutcome outcome = simulator.simulate(kReplicaLatencyS, rate, 8.0);
            QVERIFY2(outcome.attainment <= previousAttainment,
                     qPrintable(QStringLiteral("rate %1").arg(rate)));
            QVERIFY(outcome.p99S >= previousP99);
            previousAttainment = outcome.attainment;
            previousP99 = outcome.p99S;
        }
        QVERIFY(previousAttainment < 0.5); // the grid reaches overload
    }

    // Earliest completion is not monotone by construction; it stays within one point.
    void earliestCompletionIsMonotoneWithinNoise()
    {
        const ServingSimulator simulator(withPolicy(DispatchPolicy::EarliestCompletion));
        double lowest = 2;
        for (double rate : rateGrid()) {
            const double attainment = simulator.attainment(kReplicaLatencyS, rate, 8.0);
            QVERIFY2(attainment <= lowest + 0.01, qPrintable(QStringLiteral("rate %1").arg(rate)));
            lowest = std::min(lowest, attainment);
        }
    }

    // One replica of latency L with SLO = L: a request meets it only without waiting, which
    // in M/D/1 happens with probability 1 − ρ; 99 % attainment is ρ = 0.01.
    void singleReplicaMatchesQueueingTheory()
    {
        const std::vector<double> one{2.0};
        ServingOptions options = withPolicy(DispatchPolicy::EarliestCompletion);
        options.requests = 20000;
        const ServingSimulator simulator(options);
        const double rho = 0.3;
        QVERIFY(std::abs(simulator.attainment(one, rho / 2.0, 2.0) - (1 - rho)) < 0.02);
        const double maxRate = simulator.maxSustainableRate(one, 2.0);
        QVERIFY2(maxRate > 0.6 * 0.01 / 2.0 && maxRate < 1.6 * 0.01 / 2.0,
                 qPrintable(QString::number(maxRate)));
    }

    void maxRateIsTheEdgeOfTheTarget()
    {
        const ServingSimulator simulator(withPolicy(DispatchPolicy::WeightedRoundRobin));
        const double rate = simulator.maxSustainableRate(kReplicaLatencyS, 8.0);
        QVERIFY(rate > 0);
        QVERIFY(simulator.attainment(kReplicaLatencyS, rate, 8.0) >= 0.99);
        QVERIFY(simulator.attainment(kReplicaLatencyS, rate * 1.01, 8.0) < 0.99);
        // Replicas slower than the SLO serve nobody in time, at any rate.
        QCOMPARE(simulator.maxSustainableRate(kReplicaLatencyS, 1.0), 0.0);
        QCOMPARE(simulator.attainment({}, 1.0, 8.0), 0.0);
    }

    void earliestCompletionPrefersFastReplicas()
    {
        const ServingSimulator simulator(withPolicy(DispatchPolicy::EarliestCompletion));
        // Lightly loaded: (almost) every request goes to the fastest idle replica.
        const ServingOutcome outcome = simulator.simulate(kReplicaLatencyS, 0.02, 100.0);
        QCOMPARE(outcome.p50S, 3.1);
        QCOMPARE(outcome.attainment, 1.0);
    }

    void sloFromScaleOrSeconds()
    {
        Problem problem = fullPriceProblem();
        const auto paper = makeCostModel(CostModelKind::HexGenPaper);
        const auto realistic = makeCostModel(CostModelKind::HetPlan);
        const double referenceS = referenceLatencyS(problem, *paper);
        QVERIFY(referenceS > 0.1 && referenceS < 10);
        QVERIFY(referenceLatencyS(problem, *realistic) > 0);
        problem.workload.infer.sloScale = 3;
        QCOMPARE(sloSeconds(problem, *paper), 3 * referenceS);
        problem.workload.infer.sloScale.reset();
        QCOMPARE(sloSeconds(problem, *paper), kDefaultSloScale * referenceS);
        problem.workload.infer.sloS = 12.5;
        QCOMPARE(sloSeconds(problem, *paper), 12.5);
        // Longer outputs take longer on the reference too.
        Problem longer = fullPriceProblem();
        longer.workload.infer.outputLen *= 2;
        QVERIFY(referenceLatencyS(longer, *paper) > referenceS);
    }

    void appendixFPlanServes()
    {
        Problem problem = fullPriceProblem();
        const auto example = findExample("hexgen-full-price-appendix-f", ExampleKind::Plan);
        QVERIFY(example);
        const Plan plan = parsePlan(example->text, example->path, problem.topology).value();
        problem.workload = plan.workload;
        const auto paper = makeCostModel(CostModelKind::HexGenPaper);
        QCOMPARE(plan.pipelines.size(), size_t(12));
        const ServingFigures figures = servePlan(problem, *paper, plan);
        QCOMPARE(figures.requestRatePerS, problem.workload.infer.requestRatePerS);
        QVERIFY(figures.attainment > 0.9);
        QVERIFY(figures.p50S <= figures.p99S);
        QVERIFY(figures.maxRatePerS > 0.5);
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestServingSim)
#include "tst_serving_sim.moc"
