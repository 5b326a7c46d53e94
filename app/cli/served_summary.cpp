#include "app/cli/served_summary.h"

#include "app/cli/report.h"
#include "app/cli/serving_report.h"
#include "core/cost/cost_model.h"
#include "core/plan/plan_digest.h"
#include "core/serving/plan_serving.h"

#include <algorithm>
#include <iomanip>
#include <map>

namespace hetplan::cli {

namespace {

void printRow(std::ostream &out, const char *name, const LatencyStats &stats)
{
    out << "  " << std::left << std::setw(26) << name << std::right;
    for (double s : {stats.meanS, stats.p50S, stats.p90S, stats.p99S})
        out << std::setw(11) << formatSeconds(s);
    out << '\n';
}

} // namespace

Result<ServingMeasurement> servedMeasurement(const runtime::Job &job, const std::string &planPath,
                                             const runtime::RequestStreamOptions &stream,
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
        for (const runtime::Rank &r : job.program.ranks)
            if (r.pipeline == int(p)) {
                replica.gpus.push_back(r.gpuName);
                replica.ranks.push_back(r.rank);
            }
        m.replicas.push_back(std::move(replica));
    }
    summarizeMeasurement(m);
    return m;
}

void printServedSummary(std::ostream &out, const ServingMeasurement &measured)
{
    const ServingSummary &s = measured.summary;
    out << "served " << s.completed << " of " << s.requests << " requests on "
        << measured.replicas.size() << " replicas\n";
    for (const ServedReplica &r : measured.replicas) {
        out << "  replica " << r.replica << ": " << r.completed << " completed, " << r.failed
            << " failed";
        if (r.completed > 0)
            out << "; mean queueing " << formatSeconds(r.meanQueueS) << ", prefill "
                << formatSeconds(r.meanPrefillS) << ", per output token "
                << formatSeconds(r.meanTpotS);
        out << '\n';
    }
    std::map<std::string, int> failures;
    for (const ServedRequest &r : measured.requests)
        if (!r.completed)
            ++failures[r.failure.empty() ? std::string("no record") : r.failure];
    for (const auto &[why, count] : failures)
        out << "  failed (" << count << "): " << why << '\n';
    if (s.completed - s.warmup <= 0)
        return;
    out << "  " << std::left << std::setw(26) << "warm-up excluded" << std::right << std::setw(11)
        << "mean" << std::setw(11) << "p50" << std::setw(11) << "p90" << std::setw(11) << "p99"
        << '\n';
    printRow(out, "time to first token", s.ttft);
    printRow(out, "time per output token", s.tpot);
    printRow(out, "end-to-end latency", s.latency);
    out << "  SLO " << formatSeconds(measured.run.sloS) << ": " << std::fixed
        << std::setprecision(1) << s.attainment * 100 << " % attained; " << std::setprecision(2)
        << s.outputTokensPerS << " output tokens/s\n";
}

} // namespace hetplan::cli
