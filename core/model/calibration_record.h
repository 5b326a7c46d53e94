#pragma once

#include <string>
#include <vector>

namespace hetplan {

// What the last calibration of a cluster left beside its figures (docs/calibration.md, "What
// the calibrated cluster records"; docs/formats.md, "calibration"): each fitted figure's
// standard uncertainty. The fit's residuals per phase and scope are the origin's
// (ClusterOrigin::residuals), which prediction intervals read.

// A figure the fit moved and its standard uncertainty, in the figure's own units.
struct FigureUncertainty
{
    std::string field; // as in ClusterOrigin: "/transports/ethernet/efficiency"
    double value = 0;
    double standardUncertainty = 0;
    bool operator==(const FigureUncertainty &) const = default;
};

struct CalibrationRecord
{
    std::vector<FigureUncertainty> figures;
    bool empty() const { return figures.empty(); }
    bool operator==(const CalibrationRecord &) const = default;
};

} // namespace hetplan
