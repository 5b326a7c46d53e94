#include "app/cli/served_run.h"

#include "app/cli/served_summary.h"
#include "app/cli/serving_report.h"
#include "app/cli/setup.h"
#include "core/io/files.h"
#include "core/io/serving_measurement_json.h"

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>

namespace hetplan::cli {
namespace {

namespace fs = std::filesystem;

// Every request of the stream, each from its replica's records or failed with the reason its
// replica gave none.
std::vector<ServedRequest> gatherServed(const std::vector<ServingRequest> &stream,
                                        std::vector<ServedRequest> records, const std::string &why)
{
    std::map<int, ServedRequest> byId;
    for (ServedRequest &s : records)
        byId[s.id] = std::move(s);
    std::vector<ServedRequest> served;
    for (const ServingRequest &r : stream) {
        if (auto found = byId.find(r.id); found != byId.end()) {
            served.push_back(std::move(found->second));
            continue;
        }
        ServedRequest lost;
        lost.id = r.id;
        lost.replica = r.replica;
        lost.arrivalS = r.arrivalS;
        lost.promptTokens = r.promptTokens;
        lost.failure = "replica " + std::to_string(r.replica) + " wrote no record: " + why;
        served.push_back(std::move(lost));
    }
    return served;
}

// When a run stops early (`why`: "rank R ..." for a rank that failed), a request its scheduler
// cancelled says so: the replica that lost rank R lost it, every other replica was stopped
// with the run.
void explainCancelled(std::vector<ServedRequest> &served, const runtime::JobProgram &program,
                      const std::string &why)
{
    int lostReplica = -1;
    if (why.rfind("rank ", 0) == 0) {
        const int rank = std::atoi(why.c_str() + 5);
        if (rank >= 0 && rank < int(program.ranks.size()))
            lostReplica = program.ranks[std::size_t(rank)].pipeline;
    }
    for (ServedRequest &s : served) {
        if (s.completed || s.failure != "cancelled")
            continue;
        s.failure = s.replica == lostReplica
                        ? "replica " + std::to_string(s.replica) + " lost its " + why
                        : "cancelled: the run stopped: " + why;
    }
}

// Writes `DIR/serving-measurement.json` (docs/formats.md, "Serving measurement").
Status writeServed(const std::string &outDir, const ServingMeasurement &measured)
{
    std::error_code ec;
    fs::create_directories(outDir, ec);
    if (!fs::is_directory(outDir))
        return badInput("--out " + outDir + ": cannot create the directory");
    return writeFileAtomic((fs::path(outDir) / "serving-measurement.json").string(),
                           writeServingMeasurement(measured) + "\n");
}

// The simulator's prediction for the run's own requests, beside what it measured.
Status printComparison(const runtime::Job &job, const std::string &planPath,
                       const CostModel &costModel, const ServingMeasurement &measured)
{
    const Problem planned{*job.topology, job.model, job.plan.workload};
    auto compared = compareServedRun(measured, "the run", planned, costModel, job.plan, planPath);
    if (!compared)
        return compared.error();
    printServingComparison(std::cout, measured, *compared);
    return okStatus();
}

} // namespace

Result<ServeOptions> serveOptions(const Args &args, int seed)
{
    auto requests = args.integer("requests", 1, 1 << 24);
    auto duration = args.number("duration", 0.001, 86400.0 * 365);
    auto rate = args.number("rate", 1e-6, 1e6);
    auto temperature = args.number("temperature", 0.0, 100.0);
    if (!requests)
        return requests.error();
    for (const auto *read : {&duration, &rate, &temperature})
        if (!*read)
            return read->error();
    ServeOptions o;
    o.stream.requests = requests->value_or(0);
    o.stream.durationS = duration->value_or(0);
    o.stream.rate = *rate;
    o.stream.trace = args.value("trace").value_or("");
    o.stream.seed = std::uint64_t(seed);
    o.temperature = temperature->value_or(0);
    return o;
}

Result<ServeSetup> serveSetup(const runtime::Job &job, const std::string &planPath,
                              runtime::RequestStreamOptions options, int scale)
{
    ServeSetup setup;
    options.scale = scale;
    auto made = runtime::makeRequests(Problem{*job.topology, job.model, job.plan.workload},
                                      job.plan, options);
    if (!made)
        return made.error();
    setup.stream = std::move(made).value();
    auto kind = costModelKindFromName(job.plan.costModel.empty() ? "hetplan" : job.plan.costModel);
    if (!kind)
        return badInput(planPath + ": cost_model: " + kind.error().message);
    setup.costModel = makeCostModel(*kind);
    setup.options = std::move(options);
    return setup;
}

int finishServed(const runtime::Job &job, const std::string &planPath, const ServeSetup &setup,
                 std::vector<ServedRequest> records, const std::string &failure,
                 const std::optional<std::string> &outDir, const std::vector<std::string> &hosts)
{
    std::vector<ServedRequest> served
        = gatherServed(setup.stream, std::move(records),
                       failure.empty() ? "its scheduler exited without one" : failure);
    if (!failure.empty())
        explainCancelled(served, job.program, failure);
    auto measured
        = servedMeasurement(job, planPath, setup.options, *setup.costModel, std::move(served));
    if (!measured)
        return fail(measured.error());
    if (!hosts.empty())
        measured->run.hosts = hosts;
    printServedSummary(std::cout, *measured);
    if (outDir)
        if (Status written = writeServed(*outDir, *measured); !written)
            return fail(written.error());
    if (!failure.empty()) {
        std::cerr << "hetplan-cli: error: run failed: " << failure << '\n';
        return 1;
    }
    if (Status printed = printComparison(job, planPath, *setup.costModel, *measured); !printed)
        return fail(printed.error());
    return 0;
}

} // namespace hetplan::cli
