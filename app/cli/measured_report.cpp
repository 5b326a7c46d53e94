#include "app/cli/measured_report.h"

#include "app/cli/report.h"
#include "core/io/files.h"
#include "core/io/measurement_json.h"

#include <cmath>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>

namespace hetplan::cli {
namespace {

struct Phase
{
    const char *name;
    double Breakdown::*field;
};

constexpr Phase kPhases[] = {{"compute", &Breakdown::computeS},
                             {"tp_comm", &Breakdown::tpCommS},
                             {"pp_comm", &Breakdown::ppCommS},
                             {"dp_comm", &Breakdown::dpCommS},
                             {"bubble", &Breakdown::bubbleS}};

std::string percent(double relative)
{
    if (!std::isfinite(relative))
        return "-";
    std::ostringstream text;
    text << std::showpos << std::fixed << std::setprecision(0) << relative * 100 << " %";
    return text.str();
}

} // namespace

double Comparison::relativeError() const
{
    return predicted > 0 ? (measured - predicted) / predicted : std::nan("");
}

std::vector<Comparison> compareMeasured(const Plan &plan, const Evaluation &predicted,
                                        const Measurement &measured)
{
    std::vector<Comparison> rows;
    rows.push_back({"iteration", predicted.iterationS, measured.iterationS});
    for (const Phase &phase : kPhases)
        rows.push_back(
            {phase.name, predicted.breakdown.*(phase.field), measured.breakdown.*(phase.field)});
    for (const MeasuredStage &s : measured.stages) {
        const auto p = std::size_t(s.pipeline);
        if (p >= predicted.pipelines.size() || p >= plan.pipelines.size()
            || std::size_t(s.stage) >= predicted.pipelines[p].stages.size())
            continue;
        const StageTiming &t = predicted.pipelines[p].stages[std::size_t(s.stage)];
        const double microBatches = plan.pipelines[p].microBatches;
        const std::string prefix
            = "p" + std::to_string(s.pipeline) + " s" + std::to_string(s.stage) + " ";
        rows.push_back({prefix + "compute", t.computeS * microBatches, s.breakdown.computeS});
        rows.push_back({prefix + "tp_comm", t.tpCommS * microBatches, s.breakdown.tpCommS});
        rows.push_back({prefix + "pp_comm", t.hopS * microBatches, s.breakdown.ppCommS});
        rows.push_back({prefix + "dp_comm", t.dpCommS, s.breakdown.dpCommS});
    }
    return rows;
}

void printComparison(std::ostream &out, const Measurement &measured,
                     const std::vector<Comparison> &rows)
{
    out << "\nPredicted beside measured (" << measured.run.backend << ", scale "
        << measured.run.scale << ", mean of the timed iterations):\n";
    out << std::left << std::setw(18) << "" << std::right << std::setw(12) << "predicted"
        << std::setw(12) << "measured" << std::setw(10) << "error" << '\n';
    for (const Comparison &row : rows)
        out << std::left << std::setw(18) << row.what << std::right << std::setw(12)
            << formatSeconds(row.predicted) << std::setw(12) << formatSeconds(row.measured)
            << std::setw(10) << percent(row.relativeError()) << '\n';
    if (measured.run.scale != 1 || measured.run.backend == "gloo-cpu")
        out << "note: the run used CPU ranks and/or a model scaled down by --scale; the\n"
               "      prediction is for the cluster file's GPUs and the full model, so the\n"
               "      errors mean something only with a cluster file describing what ran.\n";
}

nlohmann::json comparisonJson(const std::vector<Comparison> &rows)
{
    nlohmann::json list = nlohmann::json::array();
    for (const Comparison &row : rows) {
        const double error = row.relativeError();
        list.push_back({{"what", row.what},
                        {"predicted_s", row.predicted},
                        {"measured_s", row.measured},
                        {"relative_error",
                         std::isfinite(error) ? nlohmann::json(error) : nlohmann::json(nullptr)}});
    }
    return list;
}

Result<Measurement> loadMeasurement(const std::string &path)
{
    auto text = readTextFile(path);
    if (!text)
        return text.error();
    return parseMeasurement(*text, path);
}

} // namespace hetplan::cli
