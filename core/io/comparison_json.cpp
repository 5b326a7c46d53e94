#include "core/io/comparison_json.h"

#include <cmath>
#include <nlohmann/json.hpp>

namespace hetplan {
namespace {

nlohmann::json finiteOrNull(double value)
{
    return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr);
}

// The key's fields of a row; `what` stays for readers of the label.
nlohmann::json keyed(const PhaseKey &key)
{
    nlohmann::json row{{"what", labelOf(key)}, {"phase", phaseName(key.phase)}};
    if (key.pipeline)
        row["pipeline"] = *key.pipeline;
    if (key.stage)
        row["stage"] = *key.stage;
    if (key.rank)
        row["rank"] = *key.rank;
    return row;
}

} // namespace

nlohmann::json comparisonToJson(const std::vector<Comparison> &rows)
{
    nlohmann::json list = nlohmann::json::array();
    for (const Comparison &c : rows) {
        nlohmann::json row = keyed(c.key);
        row["predicted_s"] = c.predicted;
        row["measured_s"] = c.measured;
        row["relative_error"] = finiteOrNull(c.relativeError());
        if (c.interval90)
            row["interval_90"] = {{"lo_s", c.interval90->loS}, {"hi_s", c.interval90->hiS}};
        list.push_back(std::move(row));
    }
    return list;
}

std::string writeCalibrationReport(const Calibration &c)
{
    nlohmann::json figures = nlohmann::json::array();
    for (const FittedFigure &f : c.figures)
        figures.push_back({{"field", f.field},
                           {"before", f.before},
                           {"after", f.after},
                           {"standard_error", finiteOrNull(f.standardError)},
                           {"verdict", nameOf<FigureVerdict>(kFigureVerdictNames, f.verdict)},
                           {"fitted_value", f.fittedValue},
                           {"observations", f.observations},
                           {"runs", f.runs},
                           {"note", f.note}});
    nlohmann::json phases = nlohmann::json::array();
    for (const PhaseFit &p : c.phases) {
        nlohmann::json row = keyed(p.key);
        row["run"] = p.run;
        row["fitted"] = p.fitted;
        row["measured_s"] = p.measured;
        row["before_s"] = p.before;
        row["after_s"] = p.after;
        phases.push_back(std::move(row));
    }
    const nlohmann::json report{{"figures", figures},
                                {"rms_log_error_before", c.rmsLogErrorBefore},
                                {"rms_log_error_after", c.rmsLogErrorAfter},
                                {"iterations", c.iterations},
                                {"phases", phases}};
    return report.dump(2);
}

} // namespace hetplan
