// The request-level serving simulation: continuous batching on a hand case worked out by hand,
// and its phases taken from the same cost-model terms as the replica latency.
#include "core/cost/cost_model.h"
#include "core/io/catalog_json.h"
#include "core/io/formats.h"
#include "core/io/loaders.h"
#include "core/serving/plan_serving.h"
#include "core/serving/request_sim.h"
#include "core/serving/serving_measurement.h"
#include "core/serving/serving_stream.h"
#include "serving_test_fixtures.h"
#include "tests/test_registry.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

using namespace hetplan;
using namespace hetplan::testing;

namespace {

// HexGen's Appendix F plan (12 replicas of Llama-2 70B on hexgen-full-price) and its problem.
std::pair<Problem, Plan> appendixF()
{
    const Cluster cluster = loadCluster("hexgen-full-price").value();
    Problem problem{Topology::build(cluster, builtinGpuCatalog()).value(),
                    loadModel("llama2-70b").value(), Workload{}};
    const auto example = findExample("hexgen-full-price-appendix-f", ExampleKind::Plan);
    Plan plan = parsePlan(example.value().text, example->path, problem.topology).value();
    problem.workload = plan.workload;
    return {std::move(problem), std::move(plan)};
}

} // namespace

class TestServingRequests : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // By hand, step by step. Replica 0: request 0 is admitted at 0, its prompt is the step to 1.
    // Request 1 (arrived 0.5) joins at 1: its prompt and request 0's 2nd token, 1 + 0.5, to 2.5.
    // Both decode (0.8) to 3.3: request 0 is done. Request 2 (arrived 0.6, waiting for a slot)
    // joins at 3.3: its prompt and request 1's last token, to 4.8; then alone to 5.3 and 5.8.
    // Replica 1: request 3 arrives at 1 to an idle replica: prompt to 3, tokens at 4 and 5.
    // Request 4 wants one token: its prompt is all (10 → 12). Request 5 has no replica.
    void continuousBatchingByHand()
    {
        const std::vector<ServingRequest> requests = handRequests();
        const std::vector<ServedRequest> served = simulateRequests(requests, handPhases(), 1);
        QCOMPARE(served.size(), requests.size());
        struct Expected
        {
            double admittedS, firstTokenS, finishS;
        };
        const Expected expected[]
            = {{0, 1, 3.3}, {1, 2.5, 4.8}, {3.3, 4.8, 5.8}, {1, 3, 5}, {10, 12, 12}};
        for (int i = 0; i < 5; ++i) {
            const ServedRequest &r = served[std::size_t(i)];
            QVERIFY2(r.completed, qPrintable(QString::number(i)));
            QCOMPARE(r.id, i);
            QCOMPARE(r.replica, requests[std::size_t(i)].replica);
            QCOMPARE(r.admittedS, expected[i].admittedS);
            QCOMPARE(r.firstTokenS, expected[i].firstTokenS);
            QVERIFY(qFuzzyCompare(r.finishS, expected[i].finishS));
            QCOMPARE(r.outputTokens, requests[std::size_t(i)].outputTokens);
            QVERIFY(r.failure.empty());
        }
        QVERIFY(served[0].warmup);
        QVERIFY(!served[1].warmup);
        QVERIFY(!served[5].completed);
        QCOMPARE(served[5].failure, std::string("no replica can serve it"));

        // Its figures: requests 1–5 are measured, 1–4 completed; latencies 4.3, 5.2, 4.0, 2.0.
        const ServingSummary summary = summarizeServed(served, 4.5, 10);
        QCOMPARE(summary.requests, 6);
        QCOMPARE(summary.warmup, 1);
        QCOMPARE(summary.completed, 5);
        QCOMPARE(summary.failed, 1);
        QCOMPARE(summary.attainment, 3.0 / 5.0);
        QVERIFY(qFuzzyCompare(summary.latency.p50S, 0.5 * (4.0 + 4.3)));
        const std::vector<ServedReplica> replicas = servedReplicas(served, 2);
        QCOMPARE(replicas[0].requests, 3);
        QVERIFY(qFuzzyCompare(replicas[0].meanQueueS, (0.5 + 2.7) / 2));
        QCOMPARE(replicas[0].meanPrefillS, 1.5);
        QVERIFY(qFuzzyCompare(replicas[0].meanTpotS, (1.15 + 0.5) / 2));
        QCOMPARE(replicas[1].meanPrefillS, 2.0);
    }

    void percentilesInterpolate()
    {
        QCOMPARE(percentileOf({}, 0.5), 0.0);
        QCOMPARE(percentileOf({4, 1, 3, 2}, 0.5), 2.5);
        QCOMPARE(percentileOf({1, 2, 3, 4, 5}, 0.9), 4.6);
        QCOMPARE(percentileOf({7}, 0.99), 7.0);
    }

    // HexGen's traffic split: each replica's share of the requests is its share of the
    // throughput (batch / latency), within one request per replica (smooth weighted round robin
    // never lets a replica's count stray further from its due).
    void trafficSplitByThroughput()
    {
        auto [problem, plan] = appendixF();
        const auto costModel = makeCostModel(CostModelKind::HexGenPaper);
        const std::vector<double> weight = replicaThroughputPerS(problem, *costModel, plan);
        QCOMPARE(weight.size(), plan.pipelines.size());
        const Evaluation evaluation = costModel->evaluate(problem, plan);
        double total = 0;
        for (std::size_t r = 0; r < weight.size(); ++r) {
            QVERIFY(qFuzzyCompare(weight[r], 1.0 / evaluation.replicaLatencyS[r]));
            total += weight[r];
        }
        std::vector<ServingRequest> requests(1000);
        dispatchRequests(requests, weight);
        std::vector<int> count(weight.size(), 0);
        for (const ServingRequest &r : requests)
            ++count[std::size_t(r.replica)];
        for (std::size_t r = 0; r < weight.size(); ++r)
            QVERIFY2(std::abs(count[r] - 1000.0 * weight[r] / total) <= double(weight.size()),
                     qPrintable(QStringLiteral("replica %1: %2").arg(r).arg(count[r])));
    }

    // A run's requests: the same seed gives the same arrivals on the same replicas; a trace
    // that cannot be read is the error.
    void requestsOfARun()
    {
        auto [problem, plan] = appendixF();
        const auto costModel = makeCostModel(CostModelKind::HexGenPaper);
        PoissonStream stream;
        stream.seed = 5;
        stream.ratePerS = 1;
        stream.requests = 50;
        const auto a = servingRequests(problem, *costModel, plan, stream, {});
        const auto b = servingRequests(problem, *costModel, plan, stream, {});
        QVERIFY(a && b);
        QCOMPARE(a->size(), std::size_t(50));
        for (std::size_t i = 0; i < a->size(); ++i) {
            QCOMPARE((*a)[i].arrivalS, (*b)[i].arrivalS);
            QCOMPARE((*a)[i].replica, (*b)[i].replica);
            QVERIFY((*a)[i].replica >= 0);
        }
        const auto missing
            = servingRequests(problem, *costModel, plan, stream, "/nonexistent/trace.txt");
        QVERIFY(!missing);
        QVERIFY2(missing.error().message.find("/nonexistent/trace.txt") != std::string::npos,
                 missing.error().message.c_str());
    }

    // A request alone on a replica takes its prefill and s_out − 1 decode steps at one
    // sequence: the cost model's latency at b = 1 less one step (the prefill gives the first
    // token), so the phases come from the same terms as the replica latency.
    void phasesFromTheCostModel_data()
    {
        QTest::addColumn<int>("kind");
        QTest::newRow("hetplan") << int(CostModelKind::HetPlan);
        QTest::newRow("hexgen-paper") << int(CostModelKind::HexGenPaper);
    }
    void phasesFromTheCostModel()
    {
        QFETCH(int, kind);
        auto [problem, plan] = appendixF();
        problem.workload.infer.batch = 4;
        const auto costModel = makeCostModel(CostModelKind(kind));

        PoissonStream stream;
        stream.ratePerS = 1e-3; // one request at a time
        stream.requests = 3;
        stream.promptTokens = problem.workload.infer.promptLen;
        stream.outputTokens = problem.workload.infer.outputLen;
        std::vector<ServingRequest> requests = poissonRequests(stream);
        const ServingPhases phases = servingPhases(problem, *costModel, plan, requests);
        QCOMPARE(phases.replicas.size(), plan.pipelines.size());
        // The first replica that holds the model at batch 4 under this cost model.
        const auto fitting = std::find_if(phases.replicas.begin(), phases.replicas.end(),
                                          [](const ReplicaPhases &r) { return r.fits; });
        QVERIFY(fitting != phases.replicas.end());
        const int index = int(fitting - phases.replicas.begin());
        for (ServingRequest &r : requests)
            r.replica = index;
        const ReplicaPhases &replica = *fitting;
        QCOMPARE(replica.decodeSPerToken.size(), std::size_t(4));
        // More sequences per step cost more per step, less per sequence.
        QVERIFY(replica.decodeSPerToken[3] >= replica.decodeSPerToken[0]);
        QVERIFY(replica.decodeSPerToken[3] < 4 * replica.decodeSPerToken[0]);

        Problem one = problem;
        one.workload.infer.batch = 1;
        Pipeline single = plan.pipelines[std::size_t(index)];
        single.microBatch = 1;
        const double latencyS = replicaLatencyS(one, *costModel, single);
        const std::vector<ServedRequest> served = simulateRequests(requests, phases, 0);
        for (const ServedRequest &r : served) {
            QVERIFY(r.completed);
            QCOMPARE(r.admittedS, r.arrivalS);
            const double expectedS = latencyS - replica.decodeSPerToken[0];
            // Equal but for the rounding of s_out − 1 additions.
            QVERIFY2(std::abs(r.finishS - r.arrivalS - expectedS) < 1e-9 * expectedS,
                     qPrintable(QStringLiteral("%1 s, expected %2 s")
                                    .arg(r.finishS - r.arrivalS, 0, 'g', 12)
                                    .arg(expectedS, 0, 'g', 12)));
        }
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestServingRequests)
#include "tst_serving_requests.moc"
