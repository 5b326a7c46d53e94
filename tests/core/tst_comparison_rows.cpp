// Measured-beside-predicted rows (docs/runtime.md, "Comparing with the prediction"): the
// iteration's row carries the run-sized prediction's 90 % interval, and a phase predicted as
// nothing has no relative error.
#include "core/cost/cost_model.h"
#include "core/cost/measured_comparison.h"
#include "core/io/comparison_json.h"
#include "cost_test_fixtures.h"
#include "tests/test_registry.h"

#include <QtTest>

#include <cmath>
#include <nlohmann/json.hpp>

using namespace hetplan;
using namespace hetplan::testing;

class TestComparisonRows : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void theIterationRowCarriesItsInterval()
    {
        const Problem problem
            = makeProblem(twoMachineCluster(), smallModel(), trainWorkload(4, 512));
        Plan plan;
        plan.pipelines = {pipeline(1, 4, {stage({0}, 1, 1, 0, 4), stage({3}, 1, 1, 4, 8)})};
        const Evaluation e = CostModel(CostModelKind::HetPlan).evaluate(problem, plan);
        QVERIFY(e.interval);
        const std::vector<Comparison> rows = compareMeasured(plan, e, measuredAsPredicted(plan, e));
        QCOMPARE(rows.front().key.phase, Phase::Iteration);
        QVERIFY(rows.front().interval90);
        QCOMPARE(*rows.front().interval90, e.interval->iteration);
        const nlohmann::json json = comparisonToJson(rows);
        QCOMPARE(json[0]["interval_90"]["lo_s"].get<double>(), e.interval->iteration.loS);
        QCOMPARE(json[0]["interval_90"]["hi_s"].get<double>(), e.interval->iteration.hiS);
        QVERIFY(e.interval->iteration.loS < e.iterationS
                && e.iterationS < e.interval->iteration.hiS);
        QVERIFY(!json[1].contains("interval_90"));
    }

    void aPhasePredictedAsNothingHasNoRelativeError()
    {
        // A bubble the schedule leaves at a rounding residue, measured at 30 ms.
        QVERIFY(
            std::isnan(Comparison(PhaseKey::ofRun(Phase::Bubble), 1e-17, 0.03).relativeError()));
        QVERIFY(std::isnan(Comparison(PhaseKey::ofRun(Phase::Bubble), 0, 0.03).relativeError()));
        QCOMPARE(Comparison(PhaseKey::ofRun(Phase::Bubble), 0.02, 0.03).relativeError(), 0.5);
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestComparisonRows)
#include "tst_comparison_rows.moc"
