#pragma once

#include "core/sim/pipeline_sim.h"
#include "results/qcustomplot_include.h"
#include "results/results_text.h"
#include "results/shown_plan.h"

#include <vector>

namespace hetplan::gui {

class GanttPlottable;

// The 1F1B schedule of every stage of every pipeline (one row per stage), from the core's
// event simulation of the evaluated per-micro-batch times: forward passes light, backward
// passes dark, in the colour of the stage's GPU type; the gaps are the pipeline bubbles.
class TimelineChart : public QCustomPlot
{
    Q_OBJECT

public:
    explicit TimelineChart(QWidget *parent = nullptr);

    void setPlan(const ShownPlan &shown);
    void clear(const QString &message = {});

    // The simulated timeline of one pipeline, as drawn.
    const Timeline &timeline(int pipeline) const { return m_timelines[size_t(pipeline)]; }
    int pipelineCount() const { return int(m_timelines.size()); }
    int rowCount() const;

private:
    GanttPlottable *m_gantt = nullptr;
    std::vector<Timeline> m_timelines;
};

// What the cost model's per-stage timings mean as simulator input: stage j sends its
// activation forward and receives the gradient back over the same hop, so each direction
// is half of the evaluated hop (StageTiming::hopS is both).
std::vector<StageWork> stageWorkOf(const PipelineTiming &pipeline);

} // namespace hetplan::gui
