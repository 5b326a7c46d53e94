// A plan's pre-flight (preflight_job.h): the checks' results arrive as lines on the ranks'
// stdout (preflightLine), so what a rank told before a host went silent is kept.
#include "runtime/launcher/preflight_job.h"

#include "runtime/launcher/launch_lines.h"
#include "runtime/launcher/launch_plan.h"
#include "runtime/worker/job.h"
#include "runtime/worker/preflight_checks.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>

namespace hetplan {

namespace {

using runtime::PreflightCheck;
using runtime::PreflightResult;

const char *kindName(runtime::GroupKind kind)
{
    switch (kind) {
    case runtime::GroupKind::TensorParallel:
        return "TP";
    case runtime::GroupKind::Hop:
        return "hop";
    case runtime::GroupKind::Gradient:
        return "DP";
    }
    return "";
}

// The ranks' result lines, kept; every other line passed on as an Output event of its own.
class ResultLines
{
public:
    explicit ResultLines(LaunchSink sink)
        : m_sink(std::move(sink))
    {}

    void add(const LaunchEvent &event)
    {
        if (event.kind != LaunchEvent::Kind::Output) {
            if (event.kind == LaunchEvent::Kind::Phase && event.phase == JobPhase::Running)
                m_running = true;
            m_sink(event);
            return;
        }
        std::lock_guard lock(m_mutex);
        for (const LaunchLines::Line &line : m_lines.add(event)) {
            if (auto result = runtime::parsePreflightLine(line.text)) {
                m_results[{result->check, result->rank}] = *result;
                continue;
            }
            LaunchEvent passed = event;
            passed.text = line.text + "\n";
            m_sink(passed);
        }
    }

    // Whether the ranks were started: from then on, a failure is a finding of the pre-flight.
    bool running() const { return m_running; }

    // (check, rank) → what the rank told.
    std::map<std::pair<int, int>, PreflightResult> take()
    {
        std::lock_guard lock(m_mutex);
        return std::move(m_results);
    }

private:
    LaunchSink m_sink;
    std::mutex m_mutex;
    LaunchLines m_lines;
    std::map<std::pair<int, int>, PreflightResult> m_results;
    std::atomic<bool> m_running{false};
};

bool timedOut(const std::string &error)
{
    std::string lower = error;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    return lower.find("timed out") != std::string::npos
           || lower.find("timeout") != std::string::npos;
}

// The report's spelling of a result line's transport (preflight_report.h, PreflightRow).
std::string transportText(const std::string &told)
{
    return told == "gloo" ? std::string("gloo tcp") : told;
}

std::string memberText(const PreflightMember &m)
{
    return m.gpu + " (rank " + std::to_string(m.rank) + ", " + m.host + ")";
}

// The verdict of a check from what its members told.
void judge(const PreflightCheck &check, const std::map<std::pair<int, int>, PreflightResult> &told,
           int index, PreflightRow &row)
{
    std::vector<const PreflightResult *> results;
    std::string missing;
    for (std::size_t i = 0; i < check.members.size(); ++i) {
        const auto it = told.find({index, check.members[i]});
        if (it == told.end())
            missing += (missing.empty() ? "" : ", ") + memberText(row.members[i]);
        else
            results.push_back(&it->second);
    }
    for (const PreflightResult *r : results)
        if (!r->transport.empty())
            row.transport = transportText(r->transport);
    if (!missing.empty()) {
        row.verdict = PreflightVerdict::Hung;
        row.detail = missing + " did not answer";
        return;
    }
    const PreflightResult *failed = nullptr;
    for (const PreflightResult *r : results)
        if (!r->error.empty() && (!failed || failed->error.starts_with("not run:")))
            failed = r;
    if (failed) {
        row.verdict = timedOut(failed->error) ? PreflightVerdict::Hung : PreflightVerdict::Failed;
        row.detail = "rank " + std::to_string(failed->rank) + ": " + failed->error;
        return;
    }
    for (const PreflightResult *r : results) {
        row.ops = std::max(row.ops, r->ops);
        row.seconds = std::max(row.seconds, r->seconds);
        if (r->latencyS)
            row.latencyS = std::max(row.latencyS.value_or(0), *r->latencyS);
    }
    if (row.seconds > 0) {
        const double n = double(check.members.size());
        // nccl-tests' bus bandwidth for an all-reduce (STYLE: collectives report bus bandwidth).
        const double factor = check.isHop() ? 1.0 : 2.0 * (n - 1) / n;
        row.algBytesPerS = check.messageBytes * row.ops / row.seconds;
        row.achievedBytesPerS = factor * *row.algBytesPerS;
    }
    judgeMeasured(row);
}

PreflightRow rowOf(const PreflightCheck &check, const runtime::Job &job, const LaunchSpec &spec)
{
    PreflightRow row;
    row.group = check.group;
    row.kind = kindName(check.kind);
    for (int rank : check.members) {
        const runtime::Rank &r = job.program.ranks[std::size_t(rank)];
        const HostEntry *entry = spec.hosts.find(r.machine);
        row.members.push_back({rank, r.gpuName, entry ? entry->host : std::string("?")});
    }
    if (check.isHop()) {
        row.fromGpu = job.program.ranks[std::size_t(check.from)].gpuName;
        row.toGpu = job.program.ranks[std::size_t(check.to)].gpuName;
    }
    // What the ranks will say (judge): the job's backend.
    row.transport = transportText(spec.backend == BackendKind::Cuda ? "nccl" : "gloo");
    row.messageBytes = check.messageBytes;
    row.assumedBytesPerS = check.assumedBytesPerS;
    row.assumedLatencyS = check.assumedLatencyS;
    return row;
}

} // namespace

Result<PreflightReport> runPreflight(LaunchJob &job, const LaunchSpec &spec,
                                     const PreflightOptions &options, const LaunchSink &sink)
{
    if (!spec.command.empty())
        return badInput("a pre-flight runs hetplan-worker on every rank; it takes no --command");
    if (options.checkS <= 0 || options.hangGuardS < kMinHangGuardS)
        return badInput("the pre-flight's time per check must be positive and its hang guard at "
                        "least "
                        + std::to_string(int(kMinHangGuardS)) + " s (agents speak every 2 s)");
    auto loaded = launch::loadLaunchJob(spec);
    if (!loaded)
        return loaded.error();
    const std::vector<PreflightCheck> checks = runtime::preflightChecks(*loaded);

    LaunchSpec run = spec;
    run.preflightS = options.checkS;
    // A rank gives up on a peer within half the guard and says so before the launcher gives
    // up on a silent agent, so a stuck host's peers report what they waited for.
    run.rankTimeoutS = options.hangGuardS / 2;
    run.agentSilenceS = options.hangGuardS;
    ResultLines lines(sink ? sink : LaunchSink([](const LaunchEvent &) {}));
    const auto start = std::chrono::steady_clock::now();
    auto outcome = job.run(run, [&](const LaunchEvent &event) { lines.add(event); });
    PreflightReport report;
    report.wallS = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const auto told = lines.take();
    if (!outcome && (!lines.running() || outcome.error().kind == ErrorKind::Cancelled))
        return outcome.error();
    if (!outcome)
        report.jobError = outcome.error().message;
    for (std::size_t i = 0; i < checks.size(); ++i) {
        PreflightRow row = rowOf(checks[i], *loaded, spec);
        judge(checks[i], told, int(i), row);
        report.rows.push_back(std::move(row));
    }
    return report;
}

} // namespace hetplan
