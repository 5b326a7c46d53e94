// A serving measurement beside the simulation of the same requests: a run that went exactly as
// simulated shows no error, one whose replicas were 1.5× slower shows +50 % on every phase.
#include "core/serving/serving_comparison.h"
#include "serving_test_fixtures.h"
#include "tests/test_registry.h"

#include <QtTest>

#include <cmath>

using namespace hetplan;
using namespace hetplan::testing;

namespace {

ServingPhases slowerBy(ServingPhases phases, double factor)
{
    for (ReplicaPhases &replica : phases.replicas) {
        for (auto &[prompt, seconds] : replica.prefillS)
            seconds *= factor;
        for (double &seconds : replica.decodeSPerToken)
            seconds *= factor;
    }
    return phases;
}

// The hand measurement as if the replicas had run `factor` times slower than handPhases().
ServingMeasurement measuredSlowerBy(double factor)
{
    ServingMeasurement m = handMeasurement();
    m.requests
        = simulateRequests(handRequests(), slowerBy(handPhases(), factor), m.run.warmupRequests);
    summarizeMeasurement(m);
    return m;
}

} // namespace

class TestServingComparison : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void asSimulatedNoError()
    {
        const ServingMeasurement m = handMeasurement();
        const ServingComparison c = compareServing(m, handPhases());
        QCOMPARE(c.replicas.size(), std::size_t(2));
        for (const ReplicaServingComparison &r : c.replicas) {
            QCOMPARE(r.prefillS.relativeError(), 0.0);
            QCOMPARE(r.tpotS.relativeError(), 0.0);
        }
        QCOMPARE(c.replicas[0].queueS.simulated, c.replicas[0].queueS.measured);
        QCOMPARE(c.latencyP50S.relativeError(), 0.0);
        QCOMPARE(c.latencyP99S.relativeError(), 0.0);
        QCOMPARE(c.attainment.simulated, 3.0 / 5.0);
        QCOMPARE(c.attainment.measured, 3.0 / 5.0);
        QCOMPARE(c.simulated.completed + c.simulated.failed, c.simulated.requests);
        QCOMPARE(c.simulatedRequests.size(), m.requests.size());
    }

    void slowerRunShowsItsError()
    {
        const ServingComparison c = compareServing(measuredSlowerBy(1.5), handPhases());
        for (const ReplicaServingComparison &r : c.replicas) {
            QVERIFY(std::abs(r.prefillS.relativeError() - 0.5) < 1e-9);
            QVERIFY(std::abs(r.tpotS.relativeError() - 0.5) < 1e-9);
        }
        QVERIFY(c.replicas[0].queueS.relativeError() > 0.5);
        QVERIFY(c.latencyP50S.relativeError() > 0.3);
        QVERIFY(c.attainment.measured < c.attainment.simulated);
    }

    // A request that failed in the run is still simulated, with the run's output length; one
    // the run never dispatched fails in the simulation as well.
    void failedRequestsAreSimulated()
    {
        ServingMeasurement m = handMeasurement();
        ServedRequest &lost = m.requests[3];
        lost.completed = false;
        lost.outputTokens = 1;
        lost.failure = "replica 1 died";
        const std::vector<ServingRequest> asked = requestsOf(m);
        QCOMPARE(asked[3].outputTokens, 3);
        QCOMPARE(asked[3].replica, 1);
        const ServingComparison c = compareServing(m, handPhases());
        QVERIFY(c.simulatedRequests[3].completed);
        QVERIFY(!c.simulatedRequests[5].completed);
        QVERIFY(std::isnan(SimulatedBeside{0, 1}.relativeError()));
    }

    // The simulation's 90 % interval (docs/cost-models.md, "Prediction intervals"): the same
    // requests with every replica's phases at the ends of its factors. A run 1.5× slower falls
    // inside factors of 0.5–2 on every figure and outside 0.5–1.25; without factors the
    // interval is the simulated figure itself.
    void intervalFromPhaseFactors()
    {
        const ServingMeasurement slower = measuredSlowerBy(1.5);
        const ServingComparison none = compareServing(slower, handPhases());
        QCOMPARE(none.latencyP50S.low, none.latencyP50S.simulated);
        QCOMPARE(none.latencyP50S.high, none.latencyP50S.simulated);
        QVERIFY(!none.latencyP50S.measuredInside());

        ServingPhases wide = handPhases();
        for (ReplicaPhases &replica : wide.replicas) {
            replica.lowFactor = 0.5;
            replica.highFactor = 2.0;
        }
        const ServingComparison c = compareServing(slower, wide);
        for (const ReplicaServingComparison &r : c.replicas) {
            QVERIFY(std::abs(r.prefillS.low - 0.5 * r.prefillS.simulated) < 1e-9);
            QVERIFY(std::abs(r.prefillS.high - 2.0 * r.prefillS.simulated) < 1e-9);
            QVERIFY(r.prefillS.measuredInside());
            QVERIFY(r.tpotS.measuredInside());
            QVERIFY(r.queueS.measuredInside());
        }
        for (const SimulatedBeside *figure :
             {&c.ttftP50S, &c.ttftP90S, &c.ttftP99S, &c.tpotP50S, &c.tpotP90S, &c.tpotP99S,
              &c.latencyP50S, &c.latencyP90S, &c.latencyP99S, &c.attainment}) {
            QVERIFY(figure->low <= figure->simulated && figure->simulated <= figure->high);
            QVERIFY(figure->measuredInside());
        }
        QVERIFY(c.latencyP50S.low < c.latencyP50S.high);
        QCOMPARE(c.simulatedLowRequests.size(), slower.requests.size());
        QCOMPARE(c.simulatedHighRequests.size(), slower.requests.size());

        ServingPhases narrow = wide;
        for (ReplicaPhases &replica : narrow.replicas)
            replica.highFactor = 1.25;
        const ServingComparison tight = compareServing(slower, narrow);
        QVERIFY(!tight.replicas[0].prefillS.measuredInside());
        QVERIFY(!tight.latencyP50S.measuredInside());
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestServingComparison)
#include "tst_serving_comparison.moc"
