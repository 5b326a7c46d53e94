#include "app/cli/calibrate_serving.h"

#include "app/cli/calibrate_report.h"
#include "app/cli/output.h"
#include "app/cli/report.h"
#include "app/cli/serving_report.h"
#include "app/cli/setup.h"
#include "core/calibrate/serving_calibration.h"
#include "core/cost/cost_model.h"
#include "core/io/catalog_json.h"
#include "core/io/files.h"
#include "core/io/formats.h"
#include "core/io/loaders.h"
#include "core/io/serving_measurement_json.h"
#include "core/serving/serving_comparison.h"

#include <iomanip>
#include <iostream>

namespace hetplan::cli {
namespace {

Result<ServingCalibrationRun> loadServedRun(const std::string &path, std::string planPath,
                                            const std::string &model, const Topology &topology)
{
    auto measured = loadServingMeasurement(path);
    if (!measured)
        return measured.error();
    if (planPath.empty())
        planPath = measured->run.planFile;
    if (planPath.empty())
        return badInput(path + ": run.plan is empty; give the plan with --plan");
    auto text = readTextFile(planPath);
    if (!text)
        return text.error();
    auto plan = parsePlan(*text, planPath, topology);
    if (!plan)
        return plan.error();
    if (Status same = checkServedPlan(*measured, path, *plan, topology, planPath); !same)
        return same.error();
    auto loaded = modelOfRun(model, planPath, plan->model, measured->run.model);
    if (!loaded)
        return loaded.error();
    const Problem planned{topology, std::move(loaded).value(), plan->workload};
    auto asRun = servedProblem(planned, *measured, path);
    if (!asRun)
        return asRun.error();
    return ServingCalibrationRun{path, std::move(plan).value(), asRun->model, asRun->workload,
                                 std::move(measured).value()};
}

void printServingCalibration(std::ostream &out, const ServingCalibration &c)
{
    out << "Fitted figures (least squares over ln(simulated / measured) of each replica's mean "
           "prefill and time per output token):\n";
    for (const FittedFigure &f : c.figures)
        printFittedFigure(out, f, "phases");
    out << "Residual: rms of ln(simulated / measured) " << fourDigits(c.rmsLogErrorBefore) << " -> "
        << fourDigits(c.rmsLogErrorAfter) << " after " << c.iterations << " iterations\n\n";
    out << std::left << std::setw(40) << "replica phase (measured)" << std::right << std::setw(12)
        << "measured" << std::setw(12) << "before" << std::setw(12) << "after" << '\n';
    for (const ServingPhaseFit &p : c.phases) {
        std::string what = p.run;
        what += " replica ";
        what += std::to_string(p.replica);
        what += p.phase == ServingPhase::Prefill ? " prefill" : " per token";
        out << std::left << std::setw(40) << what << std::right << std::setw(12)
            << formatSeconds(p.measured) << std::setw(12) << formatSeconds(p.before)
            << std::setw(12) << formatSeconds(p.after) << '\n';
    }
}

} // namespace

bool isServingMeasurement(const std::string &path)
{
    auto text = readTextFile(path);
    if (!text)
        return false;
    const auto format = fileFormat(*text, path);
    return format && *format == kServingMeasurementFormat;
}

int calibrateServed(const Args &args, const Cluster &cluster, const Topology &topology,
                    const std::vector<std::string> &measurements,
                    const std::vector<std::string> &plans, const std::string &out)
{
    std::vector<ServingCalibrationRun> runs;
    for (std::size_t i = 0; i < measurements.size(); ++i) {
        if (!isServingMeasurement(measurements[i]))
            return fail(badInput(measurements[i]
                                 + ": not a serving measurement; serving and training runs are "
                                   "calibrated separately"));
        auto run = loadServedRun(measurements[i], plans.empty() ? std::string() : plans[i],
                                 args.value("model").value_or(""), topology);
        if (!run)
            return fail(run.error());
        runs.push_back(std::move(run).value());
    }
    // The first run's plan names the cost model the calibrated figures are for.
    std::string costModelName = "hetplan";
    if (!runs.empty() && !runs.front().plan.costModel.empty())
        costModelName = runs.front().plan.costModel;
    auto kind = costModelKindFromName(costModelName);
    if (!kind)
        return fail(badInput("cost_model: " + kind.error().message));
    const std::unique_ptr<CostModel> costModel = makeCostModel(*kind);
    auto calibration = calibrateServing(cluster, builtinGpuCatalog(), *costModel, runs);
    if (!calibration)
        return fail(calibration.error());
    if (Status written = writeOutput(out, writeCluster(calibration->cluster)); !written)
        return fail(written.error());
    printServingCalibration(out == kStandardOutput ? std::cerr : std::cout, *calibration);
    if (out != kStandardOutput)
        std::cerr << "wrote " << out << '\n';
    return 0;
}

} // namespace hetplan::cli
