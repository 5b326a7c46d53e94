#pragma once

#include "core/serving/serving_measurement.h"
#include "runtime/launcher/launch_job.h"
#include "runtime/launcher/preflight_job.h"

#include <QObject>
#include <QString>

#include <memory>
#include <mutex>
#include <optional>
#include <vector>

class QTimer;

namespace hetplan::gui {

class BackgroundRunner;

// One launch at a time, in the background (docs/launcher.md, "Jobs"): the LaunchJob runs
// through the app's BackgroundRunner, Cancel and quitting reach it as LaunchJob::cancel(), and
// its events cross to the GUI thread in batches. The job's threads only append to a locked
// queue; the first event of a batch posts one queued call that starts a short timer, and the
// timer hands everything that arrived meanwhile to the GUI at once, so a chatty rank costs the
// GUI thread one update per interval instead of one per line.
class LaunchController : public QObject
{
    Q_OBJECT

public:
    static constexpr int kBatchIntervalMs = 40;

    explicit LaunchController(QObject *parent = nullptr);
    ~LaunchController() override;

    // Nothing may be running.
    void start(const LaunchSpec &spec);
    // A serving plan's replicas (LaunchJob::serve) serving the stream of spec.serving; when
    // they ran, servedMeasurement() holds every request accounted for, also when the job
    // failed or was cancelled (the requests then say why they failed).
    void startServe(const LaunchSpec &spec);
    // `hetplan-probe` on every host of spec.hosts instead of the plan's ranks
    // (LaunchJob::probe); probeText() holds the probe file when it ends Done.
    void startProbe(const LaunchSpec &spec, const ProbeCommand &measure);
    // The plan's pre-flight (runPreflight) instead of its training run; preflightReport()
    // holds the report when it ends Done.
    void startPreflight(const LaunchSpec &spec, const PreflightOptions &options);
    bool isRunning() const;
    void cancel();
    // Shutdown: cancel and block until every rank has been stopped and run() returned.
    void cancelAndWait();

    const LaunchSpec &spec() const { return m_spec; }
    JobPhase phase() const { return m_phase; }
    QString jobId() const { return m_jobId; }
    // The last job's measurement, when it ended Done.
    const std::optional<Measurement> &measurement() const { return m_measurement; }
    // The last serving job's measurement, once its replicas ran.
    const std::optional<ServingMeasurement> &servedMeasurement() const
    {
        return m_servedMeasurement;
    }
    // The last probe's hetplan.probe/1 text, when it ended Done.
    const std::optional<std::string> &probeText() const { return m_probeText; }
    // The last pre-flight's report, when it ended Done.
    const std::optional<PreflightReport> &preflightReport() const { return m_preflightReport; }
    bool isProbe() const { return m_kind == JobKind::Probe; }
    bool isPreflight() const { return m_kind == JobKind::Preflight; }
    bool isServe() const { return m_kind == JobKind::Serve; }

    // A host offered a key the known-hosts file lacks; the job has ended without starting
    // anything. `confirmHostKey()` then relaunches with the fingerprint confirmed.
    struct UnknownKey
    {
        std::string destination; // "user@host:port"
        std::string keyType;
        std::string fingerprint;
    };
    // Relaunches the last spec with these keys confirmed (the person accepted them).
    void relaunchTrusting(const std::vector<UnknownKey> &keys);

Q_SIGNALS:
    void started();
    void phaseChanged(hetplan::JobPhase phase);
    // Phase, Output and Message events, in the order they arrived.
    void eventsArrived(const std::vector<hetplan::LaunchEvent> &events);
    // The job stopped at preflight on host keys nobody confirmed yet.
    void unknownHostKeys(const std::vector<hetplan::gui::LaunchController::UnknownKey> &keys);
    // The job ended: Done (measurement() set), Failed (`error` says why) or Cancelled.
    void ended(hetplan::JobPhase phase, const QString &error);

private:
    // Called on the job's threads.
    void push(const LaunchEvent &event);
    void deliver();
    void onFinished();
    void setPhase(JobPhase phase);
    void launch();

    enum class JobKind { Run, Serve, Probe, Preflight };

    // What a job returns: a run's measurement, a probe's file or a pre-flight's report; a
    // serving job's measurement, with why it stopped early (empty: it did not).
    struct Outcome
    {
        Measurement measurement;
        std::string probeText;
        PreflightReport preflight;
        std::optional<ServingMeasurement> served;
        std::optional<Error> servedFailure;
    };
    // A serving job, on the runner's thread.
    static Result<Outcome> serve(LaunchJob &job, const LaunchSpec &spec, const LaunchSink &sink);

    BackgroundRunner *m_runner;
    QTimer *m_batchTimer;
    std::mutex m_mutex;
    std::vector<LaunchEvent> m_pending; // guarded by m_mutex
    std::shared_ptr<LaunchJob> m_job;
    LaunchSpec m_spec;
    JobPhase m_phase = JobPhase::Done;
    QString m_jobId;
    std::vector<UnknownKey> m_unknownKeys;
    std::optional<Measurement> m_measurement;
    std::optional<std::string> m_probeText;
    std::optional<PreflightReport> m_preflightReport;
    std::optional<ServingMeasurement> m_servedMeasurement;
    JobKind m_kind = JobKind::Run;
    ProbeCommand m_measure;
    PreflightOptions m_preflightOptions;
};

} // namespace hetplan::gui
