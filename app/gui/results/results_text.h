#pragma once

#include "core/cost/problem.h"
#include "core/plan/plan.h"
#include "core/planners/bandwidth_sweep.h"

#include <QColor>
#include <QCoreApplication>
#include <QString>
#include <QStringList>

#include <memory>
#include <optional>
#include <vector>

namespace hetplan::gui {

// Words and colours the results views share, so a GPU type has one colour everywhere and a
// duration reads the same in every view.
class ResultsText
{
    Q_DECLARE_TR_FUNCTIONS(hetplan::gui::ResultsText)

public:
    // "25.6 s", "845 ms", "12 µs"; "∞" for a plan that cannot run.
    static QString duration(double seconds);
    // The prediction with its 90 % interval (docs/cost-models.md, "Prediction intervals"):
    // "16.40 s ± 1.10 s (90 %)", or "16.40 s (90 %: 14.20 s–18.90 s)" when the sides differ by
    // more than a tenth; the duration alone without an interval.
    static QString durationWithInterval(double seconds,
                                        const std::optional<PredictionInterval> &interval);
    static QString range(const TimeInterval &interval); // "14.20 s–18.90 s"
    // "GPU types RTX4090-24G; link classes ethernet": what nothing measured; empty when all
    // was.
    static QString extrapolated(const PredictionInterval &interval);
    // The status line's note naming what extrapolates; empty when nothing does.
    static QString extrapolationNote(const std::optional<PredictionInterval> &interval);
    static QString percent(double fraction); // 0.431 -> "43.1 %"
    static QString gib(double gib);          // "61.2 GiB"
    static QString bandwidth(double gbps);   // "1.5 GB/s"
    static QString gpuList(const Topology &topology, const std::vector<int> &gpus);
    static QStringList gpuNames(const Topology &topology, const std::vector<int> &gpus);
    // Distinct GPU type names of the given GPUs, in first-use order.
    static QStringList gpuTypes(const Topology &topology, const std::vector<int> &gpus);
    // "Pipeline 2" in training, "Replica 2" in inference; pipelines, stages and layers count
    // from 0 as in the plan file and the command line (core/base/text.h).
    static QString pipelineName(Mode mode, int pipeline);
    static QString stageName(int stage); // "Stage 0"
    // The plan file's half-open [begin, end) as core's layerRangeText(): "2–8 (7 layers)",
    // translated.
    static QString layerRange(int layerBegin, int layerEnd);
    // "Link A – tor", "All links between machines", …
    static QString targetName(const Cluster &cluster, const BandwidthTarget &target);
    // Breakdown parts, in the order every chart and the CSV use.
    static QStringList breakdownParts();
    static std::vector<double> breakdownValues(const Breakdown &breakdown);
    static std::vector<QColor> breakdownColors();
};

// The colour of a GPU's type (Topology's type index), light enough for black text on it;
// the same in every view of one cluster.
QColor gpuTypeColor(const Topology &topology, int gpu);

} // namespace hetplan::gui
