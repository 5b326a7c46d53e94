#include "launch/launch_controller.h"

#include "runtime/launcher/launch_plan.h"
#include "runtime/worker/served_accounting.h"
#include "tasks/background_runner.h"

#include <QTimer>

#include <atomic>
#include <stop_token>

namespace hetplan::gui {

LaunchController::LaunchController(QObject *parent)
    : QObject(parent)
    , m_runner(new BackgroundRunner(this))
    , m_batchTimer(new QTimer(this))
{
    m_batchTimer->setSingleShot(true);
    m_batchTimer->setInterval(kBatchIntervalMs);
    connect(m_batchTimer, &QTimer::timeout, this, &LaunchController::deliver);
    connect(m_runner, &BackgroundRunner::finished, this, &LaunchController::onFinished);
}

LaunchController::~LaunchController()
{
    // Before the members go: the job's threads call push() until run() has returned.
    cancelAndWait();
}

bool LaunchController::isRunning() const
{
    return m_runner->isRunning();
}

void LaunchController::start(const LaunchSpec &spec)
{
    m_spec = spec;
    m_kind = JobKind::Run;
    launch();
}

void LaunchController::startServe(const LaunchSpec &spec)
{
    m_spec = spec;
    m_kind = JobKind::Serve;
    launch();
}

void LaunchController::startProbe(const LaunchSpec &spec, const ProbeCommand &measure)
{
    m_spec = spec;
    m_kind = JobKind::Probe;
    m_measure = measure;
    launch();
}

void LaunchController::startPreflight(const LaunchSpec &spec, const PreflightOptions &options)
{
    m_spec = spec;
    m_kind = JobKind::Preflight;
    m_preflightOptions = options;
    launch();
}

void LaunchController::launch()
{
    Q_ASSERT(!isRunning());
    m_unknownKeys.clear();
    m_measurement.reset();
    m_probeText.reset();
    m_preflightReport.reset();
    m_servedMeasurement.reset();
    m_jobId.clear();
    {
        const std::lock_guard lock(m_mutex);
        m_pending.clear();
    }
    m_job = std::make_shared<LaunchJob>();
    setPhase(JobPhase::Connecting);
    Q_EMIT started();
    m_runner->start<Result<Outcome>>(
        [this, job = m_job, spec = m_spec, kind = m_kind, measure = m_measure,
         options = m_preflightOptions](QPromise<Result<Outcome>> &promise,
                                       const std::stop_token &stop) {
            const std::stop_callback cancelJob(stop, [&job] { job->cancel(); });
            const LaunchSink sink = [this](const LaunchEvent &e) { push(e); };
            if (kind == JobKind::Probe) {
                auto text = job->probe(spec, measure, sink);
                promise.addResult(
                    text ? Result<Outcome>(Outcome{{}, std::move(text).value(), {}, {}, {}})
                         : Result<Outcome>(text.error()));
            } else if (kind == JobKind::Preflight) {
                auto report = runPreflight(*job, spec, options, sink);
                promise.addResult(
                    report ? Result<Outcome>(Outcome{{}, {}, std::move(report).value(), {}, {}})
                           : Result<Outcome>(report.error()));
            } else if (kind == JobKind::Serve) {
                promise.addResult(serve(*job, spec, sink));
            } else {
                auto measured = job->run(spec, sink);
                promise.addResult(
                    measured ? Result<Outcome>(Outcome{std::move(measured).value(), {}, {}, {}, {}})
                             : Result<Outcome>(measured.error()));
            }
        });
}

Result<LaunchController::Outcome> LaunchController::serve(LaunchJob &job, const LaunchSpec &spec,
                                                          const LaunchSink &sink)
{
    // The stream and measurement `hetplan-cli launch` makes of the same options
    // (docs/launcher.md, "Serving jobs").
    auto program = launch::loadLaunchJob(spec);
    if (!program)
        return program.error();
    runtime::RequestStreamOptions stream;
    stream.requests = spec.serving.requests;
    stream.durationS = spec.serving.durationS;
    stream.rate = spec.serving.rate;
    stream.seed = std::uint64_t(spec.seed);
    auto setup = runtime::serveSetup(*program, spec.planName, stream, spec.scale);
    if (!setup)
        return setup.error();
    std::atomic<bool> ranksStarted{false};
    const LaunchSink seen = [&](const LaunchEvent &e) {
        if (e.kind == LaunchEvent::Kind::Phase && e.phase == JobPhase::Running)
            ranksStarted = true;
        sink(e);
    };
    ReplicaRecords texts;
    const Status served = job.serve(spec, seen, texts);
    if (!served && !ranksStarted)
        return served.error();
    auto records = runtime::replicaRecords(texts);
    if (!records)
        return records.error();
    auto measured = runtime::accountServed(
        *program, spec.planName, *setup, std::move(records).value(),
        served ? std::string() : served.error().message, runtime::jobHosts(*program, spec.hosts));
    if (!measured)
        return measured.error();
    Outcome outcome;
    outcome.served = std::move(measured).value();
    if (!served)
        outcome.servedFailure = served.error();
    return outcome;
}

void LaunchController::cancel()
{
    m_runner->cancel();
}

void LaunchController::cancelAndWait()
{
    m_runner->cancelAndWait();
}

void LaunchController::push(const LaunchEvent &event)
{
    bool first = false;
    {
        const std::lock_guard lock(m_mutex);
        first = m_pending.empty();
        m_pending.push_back(event);
    }
    // One queued call per batch; the timer it starts collects the rest of the batch.
    if (first)
        QMetaObject::invokeMethod(
            this,
            [this] {
                if (!m_batchTimer->isActive())
                    m_batchTimer->start();
            },
            Qt::QueuedConnection);
}

void LaunchController::deliver()
{
    std::vector<LaunchEvent> batch;
    {
        const std::lock_guard lock(m_mutex);
        batch.swap(m_pending);
    }
    if (m_jobId.isEmpty() && m_job)
        m_jobId = QString::fromStdString(m_job->jobId());
    std::vector<LaunchEvent> shown;
    for (LaunchEvent &e : batch) {
        switch (e.kind) {
        case LaunchEvent::Kind::Phase:
            // A job stopped by an unknown key has not failed yet: the person decides.
            if (e.phase != JobPhase::Failed || m_unknownKeys.empty()) {
                setPhase(e.phase);
                shown.push_back(std::move(e));
            }
            break;
        case LaunchEvent::Kind::UnknownKey:
            m_unknownKeys.push_back({e.host, e.keyType, e.fingerprint});
            break;
        case LaunchEvent::Kind::Output:
        case LaunchEvent::Kind::Message:
            shown.push_back(std::move(e));
            break;
        }
    }
    if (!shown.empty())
        Q_EMIT eventsArrived(shown);
}

void LaunchController::setPhase(JobPhase phase)
{
    if (phase == m_phase)
        return;
    m_phase = phase;
    Q_EMIT phaseChanged(phase);
}

void LaunchController::onFinished()
{
    m_batchTimer->stop();
    deliver(); // run() has returned: every event is in the queue
    const QFuture<Result<Outcome>> future = m_runner->future<Result<Outcome>>();
    if (future.resultCount() == 0) {
        setPhase(JobPhase::Cancelled);
        Q_EMIT ended(m_phase, {});
        return;
    }
    const Result<Outcome> &result = future.resultAt(0);
    if (result && result->served)
        m_servedMeasurement = result->served;
    if (result && result->servedFailure) {
        // The replicas ran, and the run stopped early: the measurement says which requests
        // failed and why.
        const bool cancelled = result->servedFailure->kind == ErrorKind::Cancelled;
        setPhase(cancelled ? JobPhase::Cancelled : JobPhase::Failed);
        Q_EMIT ended(m_phase, cancelled ? QString()
                                        : QString::fromStdString(result->servedFailure->message));
        return;
    }
    if (result) {
        if (m_kind == JobKind::Probe)
            m_probeText = result->probeText;
        else if (m_kind == JobKind::Preflight)
            m_preflightReport = result->preflight;
        else
            m_measurement = result->measurement;
        setPhase(JobPhase::Done);
        Q_EMIT ended(m_phase, {});
        return;
    }
    const bool cancelled = result.error().kind == ErrorKind::Cancelled;
    if (!cancelled && !m_unknownKeys.empty()) {
        // Not yet an end: the person decides, and a relaunch follows or the job ends.
        Q_EMIT unknownHostKeys(m_unknownKeys);
        return;
    }
    setPhase(cancelled ? JobPhase::Cancelled : JobPhase::Failed);
    Q_EMIT ended(m_phase, cancelled ? QString() : QString::fromStdString(result.error().message));
}

void LaunchController::relaunchTrusting(const std::vector<UnknownKey> &keys)
{
    for (const UnknownKey &key : keys)
        m_spec.confirmedFingerprints[key.destination] = key.fingerprint;
    launch();
}

} // namespace hetplan::gui
