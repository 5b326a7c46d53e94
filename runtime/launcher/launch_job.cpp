// LaunchJob (launch_job.h): the phases of a job across its hosts. Every host has its own
// thread and session for each phase; a phase starts only when every host finished the one
// before, so a failed preflight anywhere leaves nothing started anywhere.
#include "runtime/launcher/launch_job.h"

#include "core/io/measurement_json.h"
#include "runtime/launcher/launch_host.h"
#include "runtime/launcher/launch_plan.h"

#include <functional>
#include <thread>

namespace hetplan {

namespace {

using launch::HostWork;
using launch::JobControl;
using Sessions = std::vector<std::unique_ptr<SshSession>>;

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

Result<Measurement> mergeResults(const std::vector<Result<std::vector<std::string>>> &fetched,
                                 const launch::JobLayout &layout)
{
    std::vector<Measurement> parts;
    for (std::size_t h = 0; h < fetched.size(); ++h)
        for (const std::string &text : *fetched[h]) {
            auto part = parseMeasurement(text, layout.hosts[h].destination + ": "
                                                   + layout.hosts[h].jobDir + "/rank-*.json");
            if (!part)
                return part.error();
            parts.push_back(std::move(part).value());
        }
    return mergeRankMeasurements(std::move(parts));
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

Result<Measurement> LaunchJob::run(const LaunchSpec &spec, const LaunchSink &givenSink)
{
    const LaunchSink sink = givenSink ? givenSink : [](const LaunchEvent &) {};
    JobControl &control = m_state->control;
    const std::string jobId = spec.jobId.empty() ? launch::newJobId() : spec.jobId;
    {
        std::lock_guard lock(m_state->mutex);
        m_state->jobId = jobId;
    }
    const auto failed = [&](Error error) -> Result<Measurement> {
        const bool cancelled = control.cancelled();
        emitPhase(sink, cancelled ? JobPhase::Cancelled : JobPhase::Failed);
        if (cancelled)
            return Error{ErrorKind::Cancelled,
                         "job " + jobId + " cancelled; every rank on every host was stopped"};
        return error;
    };

    emitPhase(sink, JobPhase::Connecting);
    auto layout = launch::layoutJob(spec, jobId);
    if (!layout)
        return failed(layout.error());
    const std::vector<HostWork> &hosts = layout->hosts;
    auto checked = onEveryHost<std::unique_ptr<SshSession>>(
        hosts.size(), [&](std::size_t i) { return launch::checkHost(hosts[i], spec, sink); });
    if (auto error = combinedError(checked, "preflight"))
        return failed(*error);
    Sessions sessions;
    for (auto &c : checked)
        sessions.push_back(std::move(c).value());
    const auto removeFolders = [&] {
        onEveryHost<Ok>(hosts.size(), [&](std::size_t i) -> Status {
            launch::removeJobFolder(*sessions[i], hosts[i], sink);
            return okStatus();
        });
    };
    if (control.stopping())
        return failed(Error{ErrorKind::Cancelled, "cancelled"});

    emitPhase(sink, JobPhase::Uploading);
    auto uploaded = onEveryHost<Ok>(hosts.size(), [&](std::size_t i) {
        return launch::uploadJobFiles(*sessions[i], hosts[i], layout->files);
    });
    if (auto error = combinedError(uploaded, "uploading the job's files")) {
        removeFolders();
        return failed(*error);
    }
    int port = 0;
    auto rendezvous = launch::startRendezvous(*sessions[0], hosts[0], layout->rendezvousAddress,
                                              control, &port);
    if (!rendezvous) {
        removeFolders();
        return failed(rendezvous.error());
    }

    emitPhase(sink, JobPhase::Running);
    std::atomic<int> runningRanks{layout->world};
    onEveryHost<Ok>(hosts.size(), [&](std::size_t i) -> Status {
        launch::runHost({*sessions[i], *layout, hosts[i], port, spec.stopGraceS,
                         i == 0 ? std::move(rendezvous).value() : nullptr},
                        control, runningRanks, sink);
        return okStatus();
    });
    if (control.stopping()) {
        removeFolders();
        return failed(Error{ErrorKind::Internal,
                            control.failure() + "; every rank on every host was stopped"});
    }
    Measurement measurement;
    if (layout->measured) {
        auto fetched = onEveryHost<std::vector<std::string>>(hosts.size(), [&](std::size_t i) {
            return launch::fetchResults(*sessions[i], hosts[i]);
        });
        std::optional<Error> error = combinedError(fetched, "fetching the ranks' measurements");
        auto merged = error ? Result<Measurement>(*error) : mergeResults(fetched, *layout);
        removeFolders();
        if (!merged)
            return failed(merged.error());
        measurement = std::move(merged).value();
    } else {
        removeFolders();
    }
    emitPhase(sink, JobPhase::Done);
    return measurement;
}

} // namespace hetplan
