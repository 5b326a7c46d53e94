// LaunchJob (launch_job.h): the phases of a job across its hosts. Preflight and uploads run on
// a bounded pool of threads, a host per thread at a time; a phase starts only when every host
// finished the one before, so a failed preflight anywhere leaves nothing started anywhere. The
// running phase is one loop on the caller's thread over every host's agent (launch_agents.h).
#include "runtime/launcher/launch_job.h"

#include "core/io/measurement_json.h"
#include "core/io/probe_file.h"
#include "runtime/launcher/host_pool.h"
#include "runtime/launcher/launch_agents.h"
#include "runtime/launcher/launch_host.h"
#include "runtime/launcher/launch_plan.h"

#include <functional>

namespace hetplan {

namespace {

using launch::HostWork;
using launch::JobControl;
using launch::onEveryHost;
using launch::RankResults;
using Sessions = std::vector<std::unique_ptr<SshSession>>;

// The hosts' errors as one, or nothing when every host succeeded.
template<typename T>
std::optional<Error> combinedError(const std::vector<Result<T>> &results, const std::string &what)
{
    std::vector<const Error *> errors;
    for (const Result<T> &r : results)
        if (!r)
            errors.push_back(&r.error());
    if (errors.empty())
        return std::nullopt;
    std::string message = what + " failed on " + std::to_string(errors.size()) + " of "
                          + std::to_string(results.size()) + " host(s); nothing was started";
    for (const Error *e : errors)
        message += "\n  " + e->message;
    return Error{errors.front()->kind, std::move(message)};
}

void emitPhase(const LaunchSink &sink, JobPhase phase)
{
    LaunchEvent event;
    event.kind = LaunchEvent::Kind::Phase;
    event.phase = phase;
    sink(event);
}

Result<Measurement> mergeResults(const RankResults &results, const launch::JobLayout &layout)
{
    std::vector<Measurement> parts;
    for (const HostWork &host : layout.hosts)
        for (const launch::RankStart &rank : host.ranks) {
            const auto text = results.find(rank.rank);
            if (text == results.end())
                continue;
            auto part = parseMeasurement(text->second, host.destination + ": " + host.jobDir + "/"
                                                           + rank.resultFile);
            if (!part)
                return part.error();
            parts.push_back(std::move(part).value());
        }
    return mergeRankMeasurements(std::move(parts));
}

// Every phase of a job laid out as `layout`, from preflight to the ranks' result files
// returned by their agents; no job folder stays behind.
Result<RankResults> runLayout(const launch::JobLayout &layout, const LaunchSpec &spec,
                              const LaunchSink &sink, JobControl &control,
                              RankResults *stopped = nullptr)
{
    const std::vector<HostWork> &hosts = layout.hosts;
    auto checked = onEveryHost<std::unique_ptr<SshSession>>(
        hosts.size(), [&](std::size_t i) { return launch::checkHost(hosts[i], spec, sink); });
    if (auto error = combinedError(checked, "preflight"))
        return *error;
    Sessions sessions;
    for (auto &c : checked)
        sessions.push_back(std::move(c).value());
    if (control.stopping())
        return Error{ErrorKind::Cancelled, "cancelled"};

    emitPhase(sink, JobPhase::Uploading);
    auto uploaded = onEveryHost<std::string>(hosts.size(), [&](std::size_t i) {
        return launch::uploadJobFiles(*sessions[i], hosts[i], layout.files);
    });
    std::vector<launch::AgentHost> agents;
    for (std::size_t i = 0; i < hosts.size(); ++i)
        agents.push_back(
            {sessions[i].get(), &hosts[i], uploaded[i] ? *uploaded[i] : hosts[i].jobDir});
    // An agent that finished removed its folder; any other folder made is removed here.
    std::vector<bool> finished(hosts.size(), false);
    struct FolderRemoval
    {
        std::function<void()> remove;
        ~FolderRemoval() { remove(); }
    } removal{[&] {
        const auto remove = [&](std::size_t i) {
            if (uploaded[i] && !finished[i])
                launch::removeJobFolder(*sessions[i], hosts[i], agents[i].jobDir, sink);
        };
        // Without threads, one host after the other.
        if (!launch::forEachHost(hosts.size(), remove))
            for (std::size_t i = 0; i < hosts.size(); ++i)
                remove(i);
    }};
    if (auto error = combinedError(uploaded, "uploading the job's files"))
        return *error;
    if (control.stopping())
        return Error{ErrorKind::Cancelled, "cancelled"};

    emitPhase(sink, JobPhase::Running);
    return launch::runAgents(agents, layout, spec, control, sink, &finished, stopped);
}

// Each replica's records, from the result file of its scheduler.
ReplicaRecords replicaRecords(RankResults results, const launch::JobLayout &layout)
{
    ReplicaRecords records;
    for (const HostWork &host : layout.hosts)
        for (const launch::RankStart &rank : host.ranks)
            if (const auto text = results.find(rank.rank);
                rank.schedulerOf >= 0 && text != results.end())
                records[rank.schedulerOf] = std::move(text->second);
    return records;
}

} // namespace

struct LaunchJob::State
{
    JobControl control;
    mutable std::mutex mutex;
    std::string jobId;
};

LaunchJob::LaunchJob()
    : m_state(std::make_unique<State>())
{}

LaunchJob::~LaunchJob() = default;

void LaunchJob::cancel()
{
    m_state->control.cancel();
}

std::string LaunchJob::jobId() const
{
    std::lock_guard lock(m_state->mutex);
    return m_state->jobId;
}

// The job's id set, phases told, the outcome turned into Cancelled after cancel().
template<typename T>
Result<T> LaunchJob::track(const LaunchSpec &spec, const LaunchSink &givenSink,
                           const std::function<Result<T>(const std::string &, const LaunchSink &,
                                                         launch::JobControl &)> &job)
{
    const LaunchSink sink = givenSink ? givenSink : [](const LaunchEvent &) {};
    launch::JobControl &control = m_state->control;
    const std::string jobId = spec.jobId.empty() ? launch::newJobId() : spec.jobId;
    {
        std::lock_guard lock(m_state->mutex);
        m_state->jobId = jobId;
    }
    emitPhase(sink, JobPhase::Connecting);
    Result<T> result = job(jobId, sink, control);
    if (result) {
        emitPhase(sink, JobPhase::Done);
        return result;
    }
    const bool cancelled = control.cancelled();
    emitPhase(sink, cancelled ? JobPhase::Cancelled : JobPhase::Failed);
    if (cancelled)
        return Error{ErrorKind::Cancelled,
                     "job " + jobId + " cancelled; every rank on every host was stopped"};
    return result;
}

Result<Measurement> LaunchJob::run(const LaunchSpec &spec, const LaunchSink &sink)
{
    return track<Measurement>(spec, sink,
                              [&spec](const std::string &jobId, const LaunchSink &s,
                                      JobControl &control) -> Result<Measurement> {
                                  auto layout = launch::layoutJob(spec, jobId);
                                  if (!layout)
                                      return layout.error();
                                  if (layout->serving)
                                      return badInput(spec.planName
                                                      + ": a serving plan; it is served, not "
                                                        "trained (hetplan-cli launch serves it)");
                                  auto results = runLayout(*layout, spec, s, control);
                                  if (!results)
                                      return results.error();
                                  return layout->measured ? mergeResults(*results, *layout)
                                                          : Measurement{};
                              });
}

Status LaunchJob::serve(const LaunchSpec &spec, const LaunchSink &sink, ReplicaRecords &records)
{
    auto served = track<bool>(
        spec, sink,
        [&](const std::string &jobId, const LaunchSink &s, JobControl &control) -> Result<bool> {
            auto layout = launch::layoutJob(spec, jobId);
            if (!layout)
                return layout.error();
            if (!layout->serving)
                return badInput(spec.planName
                                + ": a training plan; it is trained, "
                                  "not served");
            RankResults stopped;
            auto results = runLayout(*layout, spec, s, control, &stopped);
            if (!results) {
                records = replicaRecords(std::move(stopped), *layout);
                return results.error();
            }
            records = replicaRecords(std::move(results).value(), *layout);
            return true;
        });
    if (!served)
        return served.error();
    return okStatus();
}

Result<std::string> LaunchJob::probe(const LaunchSpec &spec, const ProbeCommand &measure,
                                     const LaunchSink &sink)
{
    return track<std::string>(
        spec, sink,
        [&](const std::string &jobId, const LaunchSink &s,
            JobControl &control) -> Result<std::string> {
            auto layout = launch::layoutProbe(spec, measure, jobId);
            if (!layout)
                return layout.error();
            auto results = runLayout(*layout, spec, s, control);
            if (!results)
                return results.error();
            const std::string &text = results->at(0); // rank 0 writes the file
            auto probe = parseProbe(text, layout->hosts.front().destination + ": probe.json");
            if (!probe)
                return probe.error();
            return text;
        });
}

} // namespace hetplan
