// hetplan-cli launch: a training plan across the hosts of a hosts file over SSH, one
// hetplan-worker (or the person's own command) per rank (docs/launcher.md); a serving plan's
// replicas likewise (launch_serve.h). The job itself is runtime/launcher's LaunchJob, the one
// the app's Launch runs too.
#include "app/cli/commands.h"
#include "app/cli/launch_files.h"
#include "app/cli/launch_output.h"
#include "app/cli/launch_serve.h"
#include "app/cli/measured_report.h"
#include "app/cli/output.h"
#include "app/cli/run_results.h"
#include "app/cli/setup.h"
#include "app/cli/signals.h"
#include "core/io/files.h"
#include "core/io/formats.h"
#include "core/io/loaders.h"
#include "core/io/preflight_json.h"
#include "core/launch/preflight_fold.h"
#include "runtime/launcher/launch_job.h"
#include "runtime/launcher/launch_plan.h"
#include "runtime/launcher/preflight_job.h"

#include <climits>
#include <filesystem>
#include <iostream>
#include <stop_token>

namespace hetplan::cli {
namespace {

// Everything after `--command` is the person's command, word by word.
std::pair<std::vector<std::string>, std::vector<std::string>>
splitCommand(const std::vector<std::string> &words)
{
    const auto at = std::find(words.begin(), words.end(), "--command");
    if (at == words.end())
        return {words, {}};
    return {std::vector<std::string>(words.begin(), at),
            std::vector<std::string>(at + 1, words.end())};
}

Status readRunOptions(const Args &args, LaunchSpec &spec)
{
    auto scale = args.integer("scale", 1, 1 << 16);
    auto iterations = args.integer("iterations", 1, 1 << 20);
    auto seed = args.integer("seed", 0, INT_MAX);
    auto timeout = args.number("timeout-s", 0.1, 86400);
    auto connect = args.integer("connect-timeout-s", 1, 600);
    auto grace = args.number("grace-s", 0, 600);
    for (const Status &s :
         {scale ? okStatus() : Status(scale.error()),
          iterations ? okStatus() : Status(iterations.error()),
          seed ? okStatus() : Status(seed.error()), timeout ? okStatus() : Status(timeout.error()),
          connect ? okStatus() : Status(connect.error()),
          grace ? okStatus() : Status(grace.error())})
        if (!s)
            return s;
    spec.scale = scale->value_or(spec.scale);
    spec.iterations = iterations->value_or(spec.iterations);
    spec.seed = seed->value_or(spec.seed);
    spec.rankTimeoutS = timeout->value_or(spec.rankTimeoutS);
    spec.connectTimeoutS = connect->value_or(spec.connectTimeoutS);
    spec.stopGraceS = grace->value_or(spec.stopGraceS);
    if (const auto backend = args.value("backend")) {
        auto kind = backendOption(*backend);
        if (!kind)
            return kind.error();
        spec.backend = *kind;
    }
    return okStatus();
}

Result<LaunchSpec> launchSpec(const Args &args, std::vector<std::string> command)
{
    LaunchSpec spec;
    auto planPath = args.required("plan");
    if (!planPath)
        return planPath.error();
    auto planText = readTextFile(*planPath);
    if (!planText)
        return planText.error();
    auto hosts = launchHostsFromArgs(args);
    if (!hosts)
        return hosts.error();
    auto knownHosts = knownHostsFromArgs(args);
    if (!knownHosts)
        return knownHosts.error();
    spec.planText = std::move(planText).value();
    spec.planName = *planPath;
    spec.hosts = std::move(hosts).value();
    if (const auto cluster = args.value("cluster")) {
        auto loaded = loadCluster(*cluster);
        if (!loaded)
            return loaded.error();
        spec.clusterText = writeCluster(*loaded);
    }
    if (const auto model = args.value("model")) {
        auto loaded = loadModel(*model);
        if (!loaded)
            return loaded.error();
        spec.modelText = writeModel(*loaded);
    }
    spec.knownHostsFile = std::move(knownHosts).value();
    spec.acceptNewHostKeys = args.has("accept-new-host-keys");
    spec.command = std::move(command);
    if (Status s = readRunOptions(args, spec); !s)
        return s.error();
    return spec;
}

// Measured beside predicted, as `evaluate --measured` prints it: the run as it trained (its
// scale, sequence length and precision) predicted with the plan's cost model on its cluster.
Status printPredicted(const Args &args, const LaunchSpec &spec, const Measurement &measured)
{
    std::optional<std::string> planCluster;
    if (auto named = planClusterName(spec.planText, spec.planName); named && !named->empty())
        planCluster = *named;
    auto topology = topologyFromArgs(args, planCluster);
    if (!topology)
        return topology.error();
    auto plan = parsePlan(spec.planText, spec.planName, *topology);
    if (!plan)
        return plan.error();
    ProblemDefaults defaults{plan->model.empty() ? std::nullopt : std::optional(plan->model),
                             plan->workload, "plan file " + spec.planName};
    auto problem = buildProblem(std::move(topology).value(), args, defaults);
    if (!problem)
        return problem.error();
    auto costModel = costModelFromArgs(
        args, plan->costModel.empty() ? std::nullopt : std::optional(plan->costModel));
    if (!costModel)
        return costModel.error();
    auto rows
        = compareWithRun(*problem, **costModel, *plan, spec.planName, measured, "the launched run");
    if (!rows)
        return rows.error();
    printComparison(std::cout, measured, *rows);
    return okStatus();
}

// The cluster the launch runs on: --cluster's, else the one the plan names.
Result<Cluster> launchCluster(const LaunchSpec &spec)
{
    if (!spec.clusterText.empty())
        return parseCluster(spec.clusterText, "--cluster");
    auto named = planClusterName(spec.planText, spec.planName);
    if (!named)
        return named.error();
    return loadCluster(*named);
}

// `--preflight-only` (docs/launcher.md, "Pre-flight"): the table or --json, the folded cluster
// with --preflight-out, and an exit code that tells ok, slow and hung or failed apart.
int runPreflightOnly(const Args &args, const LaunchSpec &launch)
{
    PreflightOptions options;
    auto checkS = args.number("preflight-s", 0.01, 600);
    auto guardS = args.number("hang-guard-s", kMinHangGuardS, 3600);
    if (!checkS)
        return fail(checkS.error());
    if (!guardS)
        return fail(guardS.error());
    options.checkS = checkS->value_or(options.checkS);
    options.hangGuardS = guardS->value_or(options.hangGuardS);
    const auto foldTo = args.value("preflight-out");
    std::optional<Cluster> cluster;
    if (foldTo) {
        auto loaded = launchCluster(launch);
        if (!loaded)
            return fail(loaded.error());
        cluster = std::move(loaded).value();
    }

    // With --json, stdout carries the report alone.
    const bool json = args.has("json");
    LaunchOutput output(json ? std::cerr : std::cout, std::cerr);
    LaunchJob job;
    const StoppableScope stoppable;
    const std::stop_callback onSignal(stopToken(), [&job] { job.cancel(); });
    auto report = runPreflight(job, launch, options, std::ref(output));
    output.flush();
    if (!report) {
        const int code = fail(report.error());
        return receivedSignal() != 0 ? signalExitCode() : code;
    }
    std::cout << (json ? writePreflightJson(*report) : preflightTable(*report));
    if (cluster) {
        const int folded = foldPreflight(*cluster, *report);
        if (Status written = writeFileAtomic(*foldTo, writeCluster(*cluster)); !written)
            return fail(written.error());
        std::cerr << "hetplan-cli launch: " << folded << " measured pair(s) folded into " << *foldTo
                  << '\n';
    }
    return preflightExitCode(*report);
}

} // namespace

int runLaunch(const std::vector<std::string> &allWords)
{
    auto [words, command] = splitCommand(allWords);
    const Args::Spec spec{{"plan",        "hosts",       "cluster",      "model",
                           "known-hosts", "scale",       "iterations",   "seed",
                           "out",         "timeout-s",   "backend",      "connect-timeout-s",
                           "grace-s",     "preflight-s", "hang-guard-s", "preflight-out",
                           "requests",    "duration",    "rate",         "trace",
                           "temperature"},
                          {"accept-new-host-keys", "preflight-only", "json"}};
    auto args = Args::parse(words, spec);
    if (!args)
        return fail(args.error());
    if (Status none = args->noPositional(spec); !none)
        return fail(none.error());
    auto launch = launchSpec(*args, std::move(command));
    if (!launch)
        return fail(launch.error());
    if (args->has("preflight-only"))
        return runPreflightOnly(*args, *launch);
    for (const char *only : {"preflight-s", "hang-guard-s", "preflight-out", "json"})
        if (args->has(only))
            return fail(badInput(std::string("--") + only + " needs --preflight-only"));
    if (launch->command.empty()) {
        auto job = launch::loadLaunchJob(*launch);
        if (!job)
            return fail(job.error());
        if (job->plan.workload.mode == Mode::Infer)
            return launchServing(*args, std::move(launch).value(), *job);
    }
    for (const char *serving : kServeOptionNames)
        if (args->has(serving))
            return fail(badInput(std::string("--") + serving + " needs a serving plan"));
    const auto out = args->value("out");
    if (out && !launch->command.empty())
        return fail(badInput("--out needs hetplan-worker ranks: a --command job has no "
                             "measurement"));
    // Checked now, not after the job: a run is never lost to a bad --out.
    if (auto checked = outputFromArgs(*args); !checked)
        return fail(checked.error());

    LaunchOutput output(std::cout, std::cerr);
    LaunchJob job;
    // A signal now cancels the job, which stops every remote rank, instead of ending this
    // process with the ranks left running.
    const StoppableScope stoppable;
    const std::stop_callback onSignal(stopToken(), [&job] { job.cancel(); });
    auto measurement = job.run(*launch, std::ref(output));
    output.flush();
    if (!measurement)
        return launchFailed(measurement.error(), *launch);
    if (!launch->command.empty())
        return 0;
    // The ranks ran the uploaded copy ("plan.json" in the job folder, gone now); record the
    // plan as this machine has it, so `calibrate --measured` finds it without --plan.
    std::error_code absoluteError;
    const std::filesystem::path planPath
        = std::filesystem::absolute(launch->planName, absoluteError);
    if (!absoluteError)
        measurement->run.planFile = planPath.lexically_normal().string();
    printMeasurement(std::cout, *measurement);
    if (Status s = printPredicted(*args, *launch, *measurement); !s)
        std::cerr << "hetplan-cli launch: no prediction to compare with: " << s.error().message
                  << '\n';
    if (out)
        if (Status written = writeMeasurementFile(*out, *measurement); !written)
            return fail(written.error());
    return 0;
}

} // namespace hetplan::cli
