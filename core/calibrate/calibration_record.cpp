#include "core/calibrate/calibration_record.h"

#include <cmath>

namespace hetplan {

CalibrationRecord calibrationRecord(const std::vector<FittedFigure> &figures)
{
    CalibrationRecord record;
    for (const FittedFigure &f : figures)
        if (f.changed())
            record.figures.push_back(
                {f.field, f.after, std::isfinite(f.standardError) ? f.standardError : 0});
    return record;
}

} // namespace hetplan
