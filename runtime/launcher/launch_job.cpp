// LaunchJob (launch_job.h): the phases of a job across its hosts. Every host has its own
// thread and session for each phase; a phase starts only when every host finished the one
// before, so a failed preflight anywhere leaves nothing started anywhere.
#include "runtime/launcher/launch_job.h"

#include "core/io/measurement_json.h"
#include "core/io/probe_file.h"
#include "runtime/launcher/launch_host.h"
#include "runtime/launcher/launch_plan.h"

#include <functional>
#include <thread>

namespace hetplan {

namespace {

using launch::HostWork;
using launch::JobControl;
using Sessions = std::vector<std::unique_ptr<SshSession>>;
using Fetched = std::vector<std::vector<std::string>>;

// Runs `step(i)` for every host at once, one thread each, and waits for all.
template<typename T>
std::vector<Result<T>> onEveryHost(std::size_t hosts,
                                   const std::function<Result<T>(std::size_t)> &step)
{
    std::vector<std::optional<Result<T>>> slots(hosts);
    std::vector<std::thread> threads;
    threads.reserve(hosts);
    for (std::size_t i = 0; i < hosts; ++i)
        threads.emplace_back([&slots, &step, i] { slots[i].emplace(step(i)); });
    for (std::thread &t : threads)
        t.join();
    std::vector<Result<T>> results;
    results.reserve(hosts);
    for (auto &slot : slots)
        results.push_back(std::move(*slot));
    return results;
}

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

Result<Measurement> mergeResults(const Fetched &fetched, const launch::JobLayout &layout)
{
    std::vector<Measurement> parts;
    for (std::size_t h = 0; h < fetched.size(); ++h)
        for (const std::string &text : fetched[h]) {
            auto part = parseMeasurement(text, layout.hosts[h].destination + ": "
                                                   + layout.hosts[h].jobDir + "/rank-*.json");
            if (!part)
                return part.error();
            parts.push_back(std::move(part).value());
        }
    return mergeRankMeasurements(std::move(parts));
}

// Every phase of a job laid out as `layout`, from preflight to the ranks' result files
// fetched (per host, in the order of its ranks); every job folder is removed at the end.
Result<Fetched> runLayout(const launch::JobLayout &layout, const LaunchSpec &spec,
                          const LaunchSink &sink, JobControl &control)
{
    const std::vector<HostWork> &hosts = layout.hosts;
    auto checked = onEveryHost<std::unique_ptr<SshSession>>(
        hosts.size(), [&](std::size_t i) { return launch::checkHost(hosts[i], spec, sink); });
    if (auto error = combinedError(checked, "preflight"))
        return *error;
    Sessions sessions;
    for (auto &c : checked)
        sessions.push_back(std::move(c).value());
    // Whatever happens from here on, no job folder stays behind.
    struct FolderRemoval
    {
        std::function<void()> remove;
        ~FolderRemoval() { remove(); }
    } removal{[&] {
        onEveryHost<Ok>(hosts.size(), [&](std::size_t i) -> Status {
            launch::removeJobFolder(*sessions[i], hosts[i], sink);
            return okStatus();
        });
    }};
    if (control.stopping())
        return Error{ErrorKind::Cancelled, "cancelled"};

    emitPhase(sink, JobPhase::Uploading);
    auto uploaded = onEveryHost<Ok>(hosts.size(), [&](std::size_t i) {
        return launch::uploadJobFiles(*sessions[i], hosts[i], layout.files);
    });
    if (auto error = combinedError(uploaded, "uploading the job's files"))
        return *error;
    int port = launch::randomPort();
    Result<std::unique_ptr<RemoteCommand>> rendezvous = std::unique_ptr<RemoteCommand>();
    if (layout.redis)
        rendezvous = launch::startRendezvous(*sessions[0], hosts[0], layout.rendezvousAddress,
                                             control, &port);
    if (!rendezvous)
        return rendezvous.error();

    emitPhase(sink, JobPhase::Running);
    std::atomic<int> runningRanks{layout.world};
    onEveryHost<Ok>(hosts.size(), [&](std::size_t i) -> Status {
        launch::runHost({*sessions[i], layout, hosts[i], port, spec.stopGraceS,
                         i == 0 ? std::move(rendezvous).value() : nullptr},
                        control, runningRanks, sink);
        return okStatus();
    });
    if (control.stopping())
        return Error{ErrorKind::Internal, control.failure() + control.stopSummary()};
    auto fetched = onEveryHost<std::vector<std::string>>(
        hosts.size(), [&](std::size_t i) { return launch::fetchResults(*sessions[i], hosts[i]); });
    if (auto error = combinedError(fetched, "fetching the ranks' results"))
        return *error;
    Fetched texts;
    for (auto &f : fetched)
        texts.push_back(std::move(f).value());
    return texts;
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
                                  auto fetched = runLayout(*layout, spec, s, control);
                                  if (!fetched)
                                      return fetched.error();
                                  return layout->measured ? mergeResults(*fetched, *layout)
                                                          : Measurement{};
                              });
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
            auto fetched = runLayout(*layout, spec, s, control);
            if (!fetched)
                return fetched.error();
            const std::string &text = fetched->front().front(); // rank 0 writes the file
            auto probe = parseProbe(text, layout->hosts.front().destination + ": probe.json");
            if (!probe)
                return probe.error();
            return text;
        });
}

} // namespace hetplan
