#include "runtime/worker/served_accounting.h"

#include "core/io/files.h"
#include "core/io/hosts_json.h"
#include "core/io/serving_measurement_json.h"
#include "core/plan/plan_digest.h"
#include "core/serving/plan_serving.h"
#include "runtime/serve/served_records.h"
#include "runtime/worker/served_run.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

namespace hetplan::runtime {
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
void explainCancelled(std::vector<ServedRequest> &served, const JobProgram &program,
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

} // namespace

Result<ServeSetup> serveSetup(const Job &job, const std::string &planPath,
                              RequestStreamOptions options, int scale)
{
    ServeSetup setup;
    options.scale = scale;
    auto made
        = makeRequests(Problem{*job.topology, job.model, job.plan.workload}, job.plan, options);
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

Result<ServingMeasurement> servedMeasurement(const Job &job, const std::string &planPath,
                                             const RequestStreamOptions &stream,
                                             const CostModel &costModel,
                                             std::vector<ServedRequest> served)
{
    const InferWorkload &w = job.plan.workload.infer;
    ServingMeasurement m;
    ServingRun &run = m.run;
    run.backend = BackendKind::Gloo;
    run.planFile = planPath;
    run.planDigest = planDigest(job.plan, *job.topology);
    run.model = job.model.name;
    run.scale = stream.scale;
    run.promptTokens = std::max(1, w.promptLen / stream.scale);
    run.outputTokens = std::max(1, w.outputLen / stream.scale);
    run.batch = std::max(1, w.batch);
    run.traceFile = stream.trace;
    run.seed = stream.seed;
    run.requestRatePerS = stream.rate.value_or(w.requestRatePerS);
    run.hosts = {"localhost"};
    // Every replica serves one unrecorded warm-up request before the stream starts; none of the
    // stream's requests is a warm-up one.
    run.warmupRequests = 0;
    run.sloS = 1; // replaced below; servedProblem refuses no value
    const Problem planned{*job.topology, job.model, job.plan.workload};
    auto asRun = servedProblem(planned, m, planPath);
    if (!asRun)
        return asRun.error();
    asRun->workload.infer.sloS = w.sloS;
    asRun->workload.infer.sloScale = w.sloScale;
    run.sloS = sloSeconds(*asRun, costModel);
    m.requests = std::move(served);
    for (std::size_t p = 0; p < job.plan.pipelines.size(); ++p) {
        ServedReplica replica;
        replica.replica = int(p);
        for (const Rank &r : job.program.ranks)
            if (r.pipeline == int(p)) {
                replica.gpus.push_back(r.gpuName);
                replica.ranks.push_back(r.rank);
            }
        m.replicas.push_back(std::move(replica));
    }
    summarizeMeasurement(m);
    return m;
}

Result<std::vector<ServedRequest>> replicaRecords(const std::map<int, std::string> &texts)
{
    std::vector<ServedRequest> records;
    for (const auto &[replica, text] : texts) {
        auto read = parseServedRecords(text, "replica " + std::to_string(replica) + "'s records");
        if (!read)
            return read.error();
        records.insert(records.end(), read->begin(), read->end());
    }
    return records;
}

std::vector<std::string> jobHosts(const Job &job, const HostsFile &hosts)
{
    std::vector<std::string> found;
    for (const Rank &rank : job.program.ranks)
        if (const HostEntry *entry = hosts.find(rank.machine);
            entry != nullptr && std::find(found.begin(), found.end(), entry->host) == found.end())
            found.push_back(entry->host);
    return found;
}

Result<ServingMeasurement> accountServed(const Job &job, const std::string &planPath,
                                         const ServeSetup &setup,
                                         std::vector<ServedRequest> records,
                                         const std::string &failure,
                                         const std::vector<std::string> &hosts)
{
    std::vector<ServedRequest> served
        = gatherServed(setup.stream, std::move(records),
                       failure.empty() ? "its scheduler exited without one" : failure);
    if (!failure.empty())
        explainCancelled(served, job.program, failure);
    auto measured
        = servedMeasurement(job, planPath, setup.options, *setup.costModel, std::move(served));
    if (measured && !hosts.empty())
        measured->run.hosts = hosts;
    return measured;
}

Status writeServedMeasurement(const std::string &dir, const ServingMeasurement &measured)
{
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (!fs::is_directory(dir))
        return badInput(dir + ": cannot create the directory");
    return writeFileAtomic((fs::path(dir) / "serving-measurement.json").string(),
                           writeServingMeasurement(measured) + "\n");
}

} // namespace hetplan::runtime
