// The hetplan model's gradient sync pays a ring's latency once per gradient bucket, as the
// runtime's bucketed all-reduce does (docs/cost-models.md, "`hetplan` — the realistic default").
#include "core/cost/cost_model.h"
#include "core/cost/gradient_bucket.h"
#include "cost_test_fixtures.h"
#include "tests/test_registry.h"

#include <QtTest>

using namespace hetplan;
using namespace hetplan::testing;

class TestGradientBuckets : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void aRingPaysItsLatencyOncePerBucket()
    {
        // Two replicas of every layer, on A:0 and B:0, across the 1 GB/s, 50 µs Ethernet link;
        // the link's latency made large (a calibrated latency factor of 100) so that the count
        // of latency terms shows. Layers: 8 × 16 779 264 parameters, 5 buckets of 2^25;
        // embedding and head one each: 7 ring all-reduces of 2 (n − 1) = 2 latencies, not one
        // per layer and one each for the embedding and head (10).
        Cluster cluster = twoMachineCluster();
        cluster.transports = {{LinkKind::Ethernet, 1.0, 0.0, 100.0, 0.0, 0.0, ""}};
        const Problem problem = makeProblem(cluster, smallModel(), trainWorkload(2, 512));
        Plan plan;
        plan.pipelines
            = {pipeline(1, 1, {stage({0}, 1, 1, 0, 8)}), pipeline(1, 1, {stage({3}, 1, 1, 0, 8)})};
        const double layerParams = 8 * 16779264.0;
        QCOMPARE(std::ceil(layerParams / double(kGradientBucketElements)), 5.0);
        const double params = layerParams + 1024000 + 1025024;
        const double latencyS = problem.topology.effectiveLatencyS(0, 3);
        const double bytesPerS = problem.topology.effectiveBandwidthBytesPerS(0, 3);
        // A ring of 2 moves 2 (n − 1) / n = 1 times each bf16 gradient.
        const double expected = params * 2 / bytesPerS + 7 * 2 * latencyS;
        const Evaluation e = CostModel(CostModelKind::HetPlan).evaluate(problem, plan);
        qInfo("dp_comm %.6f s, expected %.6f s (latency %.3g s per hop)", e.breakdown.dpCommS,
              expected, latencyS);
        QVERIFY2(near(e.breakdown.dpCommS, expected), std::to_string(e.breakdown.dpCommS).c_str());
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestGradientBuckets)
#include "tst_gradient_buckets.moc"
