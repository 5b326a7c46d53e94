#pragma once

#include "core/model/gpu_type.h"

#include <optional>
#include <string>
#include <vector>

namespace hetplan {

// What the last calibration of a cluster left beside its figures (docs/calibration.md, "What
// the calibrated cluster records"; docs/formats.md, "calibration"): each fitted figure's
// standard uncertainty and the fit's relative residuals per phase kind and link class, for
// readers that put an interval around a prediction.

// A figure the fit moved and its standard uncertainty, in the figure's own units.
struct FigureUncertainty
{
    std::string field; // as in ClusterOrigin: "/transports/ethernet/efficiency"
    double value = 0;
    double standardUncertainty = 0;
    bool operator==(const FigureUncertainty &) const = default;
};

// The calibrated prediction's relative error (measured − predicted) / predicted over the
// per-stage phase times of one kind that crossed one link class.
struct PhaseResidual
{
    std::string phase;            // "compute", "tp_comm", "pp_comm", "dp_comm"
    std::optional<LinkKind> link; // the slowest link the phase crosses; none for compute
    int rows = 0;
    double meanRelativeError = 0;
    double rmsRelativeError = 0;
    bool operator==(const PhaseResidual &) const = default;
};

struct CalibrationRecord
{
    std::vector<FigureUncertainty> figures;
    std::vector<PhaseResidual> residuals;
    bool empty() const { return figures.empty() && residuals.empty(); }
    bool operator==(const CalibrationRecord &) const = default;
};

} // namespace hetplan
