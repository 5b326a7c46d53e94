#pragma once

#include "core/planners/planner.h"
#include "results/qcustomplot_include.h"

#include <vector>

namespace hetplan::gui {

// The planners' searches: best cost found after each iteration, one line per planner.
// Updated while a search runs (setTrace with the trace so far) and when it ends.
class ConvergenceChart : public QCustomPlot
{
    Q_OBJECT

public:
    explicit ConvergenceChart(QWidget *parent = nullptr);

    void reset();
    // Replaces line `index` (created on first use) with this planner's trace.
    void setTrace(int index, const QString &planner, const std::vector<TracePoint> &trace);
    int lineCount() const { return graphCount(); }

private:
    void rescale();
};

} // namespace hetplan::gui
