#pragma once

#include "results/qcustomplot_include.h"
#include "results/results_text.h"
#include "results/shown_plan.h"

#include <optional>
#include <vector>

namespace hetplan::gui {

// Where the time of an iteration goes (evaluation.h, Breakdown): one stacked bar for the
// whole plan (what the iteration time is made of) and one per pipeline, stacked as
// compute, TP comm, PP comm, DP comm and bubble.
class BreakdownChart : public QCustomPlot
{
    Q_OBJECT

public:
    explicit BreakdownChart(QWidget *parent = nullptr);

    void setPlan(const ShownPlan &shown);
    void clear(const QString &message = {});
    // A measured run beside the shown plan's bars: what was predicted for it, what it measured
    // and what the calibrated cluster predicts (docs/calibration.md). Kept across plans until
    // cleared; an empty optional clears it.
    struct RunComparison
    {
        Breakdown predicted;
        Breakdown measured;
        Breakdown calibrated;
    };
    void setRunComparison(const std::optional<RunComparison> &comparison);

    // Bar 0 is the whole plan, bar 1 + p pipeline p; parts in ResultsText::breakdownParts()
    // order. Read back from the plotted data.
    int barCount() const;
    double value(int bar, int part) const;
    // The 90 % interval drawn as an error bar on bar 0 (docs/cost-models.md, "Prediction
    // intervals"), read back from the plotted data; empty when none is drawn.
    std::optional<TimeInterval> shownInterval() const;

private:
    void plotBars();

    std::vector<QCPBars *> m_parts;
    QCPGraph *m_total = nullptr; // bar 0's top, what the error bar hangs on
    QCPErrorBars *m_interval = nullptr;
    std::optional<ShownPlan> m_shown;
    std::optional<RunComparison> m_comparison;
};

} // namespace hetplan::gui
