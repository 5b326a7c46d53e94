#pragma once

#include "core/planners/planner.h"
#include "results/qcustomplot_include.h"

#include <vector>

namespace hetplan::gui {

// The planners' searches: what each optimises, for its best plan after each iteration, one
// line per planner: the training planners' iteration time in seconds, HexGen's SLO attainment
// in percent (its trace holds 1 − attainment, HexGen §4). Updated while a search runs
// (setTrace with the trace so far) and when it ends.
class ConvergenceChart : public QCustomPlot
{
    Q_OBJECT

public:
    explicit ConvergenceChart(QWidget *parent = nullptr);

    void reset();
    // Replaces line `index` (created on first use) with this planner's trace.
    void setTrace(int index, PlannerKind planner, const std::vector<TracePoint> &trace);
    int lineCount() const { return graphCount(); }
    // What the y axis shows: attainment for HexGen, else time.
    bool showsAttainment() const { return m_attainment; }

private:
    void rescale();
    void setMeasure(bool attainment);

    bool m_attainment = false;
};

} // namespace hetplan::gui
