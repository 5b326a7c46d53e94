// The 1F1B simulator draws the Gantt chart and the cost models use the closed form; these
// tests pin down where the two agree exactly and the bounds that hold everywhere else.
#include "core/sim/pipeline_sim.h"
#include "tests/test_registry.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

using namespace hetplan;

namespace {

bool closeRelative(double a, double b, double tolerance = 1e-9)
{
    return std::abs(a - b) <= tolerance * std::max({1.0, std::abs(a), std::abs(b)});
}

// Random stage times; the first stage sends no gradient back, the last no activation on.
std::vector<StageWork> randomStages(std::mt19937_64 &rng, int stageCount)
{
    std::uniform_real_distribution<double> compute(0.0, 3.0);
    std::uniform_real_distribution<double> send(0.0, 1.5);
    std::bernoulli_distribution zero(0.15);
    std::vector<StageWork> stages(static_cast<size_t>(stageCount));
    for (int j = 0; j < stageCount; ++j) {
        StageWork &s = stages[static_cast<size_t>(j)];
        s.forwardS = zero(rng) ? 0.0 : compute(rng);
        s.backwardS = zero(rng) ? 0.0 : compute(rng);
        s.sendForwardS = j + 1 < stageCount && !zero(rng) ? send(rng) : 0.0;
        s.sendBackwardS = j > 0 && !zero(rng) ? send(rng) : 0.0;
    }
    return stages;
}

double perMicroBatchS(const StageWork &s)
{
    return s.forwardS + s.backwardS + s.sendForwardS + s.sendBackwardS;
}

// Stages in order of non-decreasing per-micro-batch time: the class where 1F1B provably
// equals the closed form (pipeline_sim.cpp).
std::vector<StageWork> sortedByWork(std::vector<StageWork> stages)
{
    std::stable_sort(stages.begin(), stages.end(), [](const StageWork &a, const StageWork &b) {
        return perMicroBatchS(a) < perMicroBatchS(b);
    });
    return stages;
}

QString describe(const std::vector<StageWork> &stages, int microBatches)
{
    QString text = QStringLiteral("m=%1:").arg(microBatches);
    for (const StageWork &s : stages)
        text += QStringLiteral(" (%1,%2,%3,%4)")
                    .arg(s.forwardS)
                    .arg(s.backwardS)
                    .arg(s.sendForwardS)
                    .arg(s.sendBackwardS);
    return text;
}

} // namespace

class TestPipelineSim : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void uniformStagesMatchClosedForm_data()
    {
        QTest::addColumn<int>("stageCount");
        QTest::addColumn<int>("microBatches");
        QTest::addColumn<double>("forwardS");
        QTest::addColumn<double>("backwardS");
        QTest::addColumn<double>("expectedS");
        // (m + p − 1)·(F + B): the textbook 1F1B bubble of (p − 1) stage times.
        QTest::newRow("p4 m8 B=2F") << 4 << 8 << 1.0 << 2.0 << 33.0;
        QTest::newRow("p1 m5") << 1 << 5 << 0.5 << 1.0 << 7.5;
        QTest::newRow("p6 m1") << 6 << 1 << 1.0 << 1.0 << 12.0;
        QTest::newRow("p5 m3 fewer micro-batches than stages") << 5 << 3 << 0.25 << 0.5 << 5.25;
    }
    void uniformStagesMatchClosedForm()
    {
        QFETCH(int, stageCount);
        QFETCH(int, microBatches);
        QFETCH(double, forwardS);
        QFETCH(double, backwardS);
        QFETCH(double, expectedS);
        const std::vector<StageWork> stages(static_cast<size_t>(stageCount),
                                            StageWork{forwardS, backwardS, 0, 0});
        QVERIFY(closeRelative(closedFormPipelineS(stages, microBatches), expectedS));
        QVERIFY(closeRelative(simulate1F1B(stages, microBatches).makespanS, expectedS));
    }

    void nonDecreasingStagesMatchClosedFormExactly()
    {
        std::mt19937_64 rng(20240611);
        std::uniform_int_distribution<int> stageCount(1, 8);
        std::uniform_int_distribution<int> microBatches(1, 16);
        for (int trial = 0; trial < 2000; ++trial) {
            const std::vector<StageWork> stages = sortedByWork(randomStages(rng, stageCount(rng)));
            const int m = microBatches(rng);
            const double closedS = closedFormPipelineS(stages, m);
            const double simulatedS = simulate1F1B(stages, m).makespanS;
            QVERIFY2(oneFOneBExcessBoundS(stages) == 0.0, qPrintable(describe(stages, m)));
            QVERIFY2(
                closeRelative(simulatedS, closedS),
                qPrintable(describe(stages, m)
                           + QStringLiteral(" sim %1 closed %2").arg(simulatedS).arg(closedS)));
        }
    }

    void singleMicroBatchMatchesClosedFormForAnyStages()
    {
        std::mt19937_64 rng(7);
        for (int trial = 0; trial < 200; ++trial) {
            const std::vector<StageWork> stages = randomStages(rng, 1 + trial % 7);
            QVERIFY(
                closeRelative(simulate1F1B(stages, 1).makespanS, closedFormPipelineS(stages, 1)));
        }
    }

    // Outside the exact class the closed form is an estimate: the simulation stays between
    // the proven bounds, and both directions really occur.
    void randomStagesStayWithinProvenBounds()
    {
        std::mt19937_64 rng(424242);
        std::uniform_int_distribution<int> stageCount(2, 8);
        std::uniform_int_distribution<int> microBatches(1, 16);
        int faster = 0;
        int slower = 0;
        int exact = 0;
        for (int trial = 0; trial < 3000; ++trial) {
            const std::vector<StageWork> stages = randomStages(rng, stageCount(rng));
            const int m = microBatches(rng);
            const double closedS = closedFormPipelineS(stages, m);
            const double simulatedS = simulate1F1B(stages, m).makespanS;
            const double slackS = 1e-9 * std::max(1.0, closedS);
            QVERIFY2(simulatedS >= pipelineLowerBoundS(stages, m) - slackS,
                     qPrintable(describe(stages, m)));
            QVERIFY2(simulatedS <= closedS + oneFOneBExcessBoundS(stages) + slackS,
                     qPrintable(describe(stages, m)));
            // The general exact class: the last stage a bottleneck and no excess.
            const double lastS = perMicroBatchS(stages.back());
            const bool lastIsBottleneck
                = std::all_of(stages.begin(), stages.end(),
                              [&](const StageWork &s) { return perMicroBatchS(s) <= lastS; });
            if (lastIsBottleneck && oneFOneBExcessBoundS(stages) == 0.0) {
                ++exact;
                QVERIFY2(closeRelative(simulatedS, closedS), qPrintable(describe(stages, m)));
            }
            if (simulatedS < closedS - slackS)
                ++faster;
            if (simulatedS > closedS + slackS)
                ++slower;
        }
        QVERIFY(exact > 0);
        QVERIFY(faster > 0);
        QVERIFY(slower > 0);
    }

    // A slow first stage followed by a fast one: the warm-up hides the fast stage's work, so
    // 1F1B finishes at m·w_0 + (tail) instead of the closed form's w_0 + w_1 + (m−1)·w_0.
    void fastStageAfterBottleneckBeatsClosedForm()
    {
        const std::vector<StageWork> stages{{2.0, 2.0, 0, 0}, {0.5, 0.5, 0, 0}};
        const int m = 4;
        QVERIFY(closeRelative(closedFormPipelineS(stages, m), 17.0));
        // Stage 0: F0 F1 B0 F2 B1 F3 B2 B3, never idle after t = 0: 4 · 4 s.
        QVERIFY(closeRelative(simulate1F1B(stages, m).makespanS, 16.0));
    }

    void intervalsAreConsistent_data()
    {
        QTest::addColumn<quint64>("seed");
        for (quint64 seed = 1; seed <= 6; ++seed)
            QTest::newRow(qPrintable(QStringLiteral("seed %1").arg(seed))) << seed;
    }
    void intervalsAreConsistent()
    {
        QFETCH(quint64, seed);
        std::mt19937_64 rng(seed);
        const int p = 2 + static_cast<int>(seed % 5);
        const int m = 1 + static_cast<int>(seed * 3 % 11);
        const std::vector<StageWork> stages = randomStages(rng, p);
        const Timeline timeline = simulate1F1B(stages, m);

        QCOMPARE(timeline.intervals.size(), static_cast<size_t>(2 * p * m));
        // end[pass][stage][micro-batch]
        std::vector<std::vector<std::vector<double>>> end(
            2, std::vector<std::vector<double>>(static_cast<size_t>(p),
                                                std::vector<double>(static_cast<size_t>(m), -1)));
        std::vector<std::vector<const Interval *>> byStage(static_cast<size_t>(p));
        double latestEndS = 0;
        for (const Interval &interval : timeline.intervals) {
            QVERIFY(interval.stage >= 0 && interval.stage < p);
            QVERIFY(interval.microBatch >= 0 && interval.microBatch < m);
            const StageWork &s = stages[static_cast<size_t>(interval.stage)];
            const double busyS = interval.pass == Pass::Forward ? s.forwardS + s.sendForwardS
                                                                : s.backwardS + s.sendBackwardS;
            QVERIFY(closeRelative(interval.endS - interval.startS, busyS));
            double &slot
                = end[interval.pass == Pass::Forward ? 0 : 1][static_cast<size_t>(interval.stage)]
                     [static_cast<size_t>(interval.microBatch)];
            QCOMPARE(slot, -1.0); // each operation exactly once
            slot = interval.endS;
            byStage[static_cast<size_t>(interval.stage)].push_back(&interval);
            latestEndS = std::max(latestEndS, interval.endS);
        }
        QVERIFY(closeRelative(timeline.makespanS, latestEndS));

        for (int j = 0; j < p; ++j) {
            const auto &ops = byStage[static_cast<size_t>(j)];
            QCOMPARE(ops.size(), static_cast<size_t>(2 * m));
            for (size_t k = 1; k < ops.size(); ++k)
                QVERIFY2(ops[k]->startS >= ops[k - 1]->endS,
                         "a stage runs one operation at a time");
            // At most p − j micro-batches in flight: the 1F1B memory bound.
            int inFlight = 0;
            for (const Interval *op : ops) {
                inFlight += op->pass == Pass::Forward ? 1 : -1;
                QVERIFY(inFlight <= p - j);
                QVERIFY(inFlight >= 0);
            }
        }
        for (const Interval &interval : timeline.intervals) {
            const auto j = static_cast<size_t>(interval.stage);
            const auto i = static_cast<size_t>(interval.microBatch);
            if (interval.pass == Pass::Forward) {
                if (j > 0)
                    QVERIFY(interval.startS >= end[0][j - 1][i]);
            } else if (interval.stage == p - 1) {
                QVERIFY(interval.startS >= end[0][j][i]);
            } else {
                QVERIFY(interval.startS >= end[1][j + 1][i]);
            }
        }
    }

    void emptyInputsGiveEmptyTimeline()
    {
        QCOMPARE(simulate1F1B({}, 4).makespanS, 0.0);
        const std::vector<StageWork> one{{1, 1, 0, 0}};
        QVERIFY(simulate1F1B(one, 0).intervals.empty());
        QCOMPARE(closedFormPipelineS(one, 0), 0.0);
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestPipelineSim)
#include "tst_pipeline_sim.moc"
