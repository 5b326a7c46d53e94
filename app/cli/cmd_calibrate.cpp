// hetplan-cli calibrate: the cluster's figures fitted to measured runs (docs/calibration.md);
// serving runs by calibrate_serving.h.
#include "app/cli/calibrate_report.h"
#include "app/cli/calibrate_serving.h"
#include "app/cli/commands.h"
#include "app/cli/output.h"
#include "app/cli/setup.h"
#include "core/calibrate/calibration.h"
#include "core/cost/measured_plan.h"
#include "core/io/catalog_json.h"
#include "core/io/comparison_json.h"
#include "core/io/files.h"
#include "core/io/formats.h"
#include "core/io/loaders.h"
#include "core/io/measurement_json.h"
#include "core/model/topology.h"
#include "runtime/worker/measured_run.h"

#include <algorithm>
#include <filesystem>
#include <iostream>

namespace hetplan::cli {
namespace {

namespace fs = std::filesystem;

const Args::Spec kSpec{
    {"cluster", "measured", "out", "plan", "model"}, {"json", "accept-bound"}, {"measured"}};

std::vector<std::string> commaList(const std::string &text)
{
    std::vector<std::string> items;
    std::string item;
    for (char ch : text + ",") {
        if (ch != ',') {
            item += ch;
        } else if (!item.empty()) {
            items.push_back(item);
            item.clear();
        }
    }
    return items;
}

// The plan a measurement names, as given to `run` (relative to where it ran), else beside
// the measurement file.
std::string planOf(const Measurement &measured, const std::string &measurementPath)
{
    const fs::path given = measured.run.planFile;
    std::error_code ec;
    if (given.empty() || fs::exists(given, ec) || given.is_absolute())
        return given.string();
    const fs::path beside = fs::path(measurementPath).parent_path() / given.filename();
    return fs::exists(beside, ec) ? beside.string() : given.string();
}

// `model`: --model where given (every run's model), else the plan's, else the measurement's.
Result<CalibrationRun> loadRun(const std::string &measurementPath, std::string planPath,
                               const std::string &model, const Topology &topology)
{
    auto measured = loadMeasurement(measurementPath);
    if (!measured)
        return measured.error();
    // A plan the measurement names is read on its word: every message says where the path came
    // from, so a measurement naming another file is seen as such.
    const bool named = planPath.empty();
    if (named)
        planPath = planOf(*measured, measurementPath);
    if (planPath.empty())
        return badInput(measurementPath + ": run.plan is empty; give the plan with --plan");
    const auto fromMeasurement = [&](const Error &error) {
        if (!named)
            return error;
        return Error{error.kind, measurementPath + ": run.plan names " + planPath
                                     + " (give the plans with --plan P1,P2,... in the order of "
                                       "the measurements): "
                                     + error.message};
    };
    auto text = readTextFile(planPath);
    if (!text)
        return fromMeasurement(badInput(text.error().message));
    auto plan = parsePlan(*text, planPath, topology);
    if (!plan)
        return fromMeasurement(plan.error());
    auto samePlan = checkMeasuredPlan(*measured, measurementPath, *plan, topology, planPath);
    if (!samePlan)
        return samePlan.error();
    warn(*samePlan);
    auto loaded = modelOfRun(model, planPath, plan->model, measured->run.model);
    if (!loaded)
        return loaded.error();
    return runtime::measuredRun(*plan, *loaded, *measured, measurementPath);
}

} // namespace

int runCalibrate(const std::vector<std::string> &words)
{
    if (std::find(words.begin(), words.end(), "--design") != words.end())
        return runCalibrateDesign(words);
    auto args = Args::parse(words, kSpec);
    if (!args)
        return fail(args.error());
    auto clusterPath = args->required("cluster");
    auto first = args->required("measured");
    auto out = args->required("out");
    if (out) {
        auto checked = outputFromArgs(*args);
        if (!checked)
            return fail(checked.error());
    }
    for (const auto *required : {&clusterPath, &out, &first})
        if (!*required)
            return fail(required->error());
    // Plain words after the first --measured are measurements too, as earlier versions read.
    std::vector<std::string> measurements = args->values("measured");
    for (const std::string &more : args->positional())
        measurements.push_back(more);
    const std::vector<std::string> plans = commaList(args->value("plan").value_or(""));
    if (!plans.empty() && plans.size() != measurements.size())
        return fail(badInput("--plan names " + std::to_string(plans.size()) + " plans for "
                             + std::to_string(measurements.size())
                             + " measurements; give one plan per measurement, in order"));
    for (const std::string &plan : plans)
        if (sameFile(*out, plan))
            return fail(badInput("--out " + *out
                                 + " is one of the --plan files; refusing to "
                                   "overwrite an input"));

    auto cluster = loadCluster(*clusterPath);
    if (!cluster)
        return fail(cluster.error());
    auto topology = Topology::build(*cluster, builtinGpuCatalog());
    if (!topology)
        return fail(badInput(*clusterPath + ": " + topology.error().message));
    if (isServingMeasurement(measurements.front()))
        return calibrateServed(*args, *cluster, *topology, measurements, plans, *out);
    std::vector<CalibrationRun> runs;
    for (size_t i = 0; i < measurements.size(); ++i) {
        auto run = loadRun(measurements[i], plans.empty() ? std::string() : plans[i],
                           args->value("model").value_or(""), *topology);
        if (!run)
            return fail(run.error());
        runs.push_back(std::move(run).value());
    }
    auto calibration = calibrate(*cluster, builtinGpuCatalog(), runs,
                                 {.acceptAtBound = args->has("accept-bound")});
    if (!calibration)
        return fail(calibration.error());
    if (Status written = writeOutput(*out, writeCluster(calibration->cluster)); !written)
        return fail(written.error());
    std::ostream &report = *out == kStandardOutput ? std::cerr : std::cout;
    if (args->has("json"))
        report << writeCalibrationReport(*calibration) << '\n';
    else
        printCalibration(report, *calibration);
    if (*out != kStandardOutput)
        std::cerr << "wrote " << *out << '\n';
    return 0;
}

} // namespace hetplan::cli
