#pragma once

#include "core/base/result.h"
#include "core/cost/measurement.h"
#include "core/io/hosts_json.h"
#include "core/launch/probe_command.h"

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace hetplan {

namespace launch {
class JobControl;
}

// One training or serving job across the hosts of a hosts file (docs/launcher.md, "Jobs"):
// preflight on every host, one agent per host starting a worker (or the person's own command)
// per rank, every rank's output streamed back, every rank stopped on cancel or the first
// failure, the measurements (or a serving run's request records) returned by the agents.

// A serving plan's request stream and sampling, as `hetplan-cli run` takes them
// (docs/runtime.md, "Serving runs"); every rank makes the same stream from them, the plan and
// the seed.
struct LaunchServing
{
    int requests = 0;           // this many; 0: every arrival in durationS
    double durationS = 0;       // with requests 0
    std::optional<double> rate; // requests per second; absent: the workload's request_rate
    std::string traceText;      // a trace file's text (uploaded with the job); empty: Poisson
    double temperature = 0;     // 0: greedy
};

// Replica → the text of its scheduler's request records (runtime/serve/served_records.h).
using ReplicaRecords = std::map<int, std::string>;

// What to run and where. The plan and the files it needs travel as text: the launcher uploads
// them to each host's workdir under the job's id.
struct LaunchSpec
{
    std::string planText;
    std::string planName = "plan.json"; // where it came from, for messages (hosts: plan.json)
    // The cluster the plan runs on (maps each rank's machine to a hosts-file entry): its file's
    // text, or empty for the cluster the plan names (a bundled name or a path on this machine).
    std::string clusterText;
    std::string modelText; // likewise for the model; empty: the plan's own
    HostsFile hosts;

    // Host-key trust, as OpenSSH does it (docs/launcher.md, "Host keys").
    std::string knownHostsFile; // empty: ~/.ssh/known_hosts
    bool acceptNewHostKeys = false;
    // "user@host:port" → the "SHA256:…" fingerprint a person was shown and confirmed.
    std::map<std::string, std::string> confirmedFingerprints;

    // As `hetplan-cli run` takes them.
    int scale = 1;
    int iterations = 3;
    int seed = 0;
    BackendKind backend = BackendKind::Gloo; // hetplan-worker --backend
    double rankTimeoutS = 60; // hetplan-worker --timeout-s: rendezvous and every transfer
    LaunchServing serving;    // a serving plan's; ignored for a training plan

    // Bring your own trainer: when set, run once per rank instead of hetplan-worker, word for
    // word, without a shell. The environment carries RANK, WORLD_SIZE, LOCAL_RANK,
    // MASTER_ADDR, MASTER_PORT (free for the command's own rendezvous),
    // HETPLAN_JOB_ID, HETPLAN_PLAN (the uploaded plan), HETPLAN_PIPELINE, HETPLAN_STAGE,
    // HETPLAN_TP_DEGREE and the rank's stage's transports HETPLAN_{TP,PP,DP}_TRANSPORT
    // (docs/launcher.md, "Bring your own trainer"). Such a job has no measurement: run()
    // returns an empty one on success.
    std::vector<std::string> command;

    // Above 0: a pre-flight instead of training, each check for about this many seconds
    // (runPreflight, runtime/launcher/preflight_job.h); the ranks write no measurement.
    double preflightS = 0;
    // An agent not heard for this long is lost: the job stops, naming its host.
    double agentSilenceS = 30;

    double stopGraceS = 3;    // after TERM, the ranks' process groups get KILL
    int connectTimeoutS = 10; // bounds connecting to a host and every wait for it
    std::string jobId;        // empty: generated ("hp-<time>-<random>")
};

enum class JobPhase { Connecting, Uploading, Running, Done, Failed, Cancelled };

// What a job tells while it runs. Exactly one kind per event; the fields it uses are set.
struct LaunchEvent
{
    enum class Kind {
        Phase,      // `phase` changed
        Output,     // a piece of a rank's stdout or stderr (a line may arrive in pieces)
        UnknownKey, // a host offered a key the known-hosts file lacks (see LaunchJob::run)
        Message,    // something a person should read: "host B (10.0.0.6:22) disconnected"
    };
    Kind kind = Kind::Message;
    JobPhase phase = JobPhase::Connecting;
    int rank = -1;           // Output
    std::string host;        // Output, UnknownKey, Message: "user@host:port" where known
    bool isStderr = false;   // Output
    std::string text;        // Output: the piece; Message: the message
    std::string keyType;     // UnknownKey: "ssh-ed25519"
    std::string fingerprint; // UnknownKey: "SHA256:…"
};

// Called from any of the job's threads, possibly at once from several: the callee
// synchronizes (the app queues the event to its GUI thread).
using LaunchSink = std::function<void(const LaunchEvent &)>;

class LaunchJob
{
public:
    LaunchJob();
    ~LaunchJob();
    LaunchJob(const LaunchJob &) = delete;
    LaunchJob &operator=(const LaunchJob &) = delete;

    // Runs the job to its end, blocking; call it on a worker thread, once per LaunchJob.
    // Preflight touches every host at once and starts nothing anywhere unless all pass; an
    // unknown host key ends preflight with an Error naming the destination and its fingerprint
    // (and an UnknownKey event), so the caller can ask the person, add the fingerprint to
    // spec.confirmedFingerprints and run a new LaunchJob. A rank that fails, a host that
    // disconnects or cancel() stops every rank on every host (TERM, then KILL after the grace
    // period) before run() returns: the Error names the rank or host; after cancel() it is
    // ErrorKind::Cancelled.
    // A serving plan is refused here: serve() runs it.
    Result<Measurement> run(const LaunchSpec &spec, const LaunchSink &sink);

    // A serving plan (docs/launcher.md, "Serving jobs"): every rank a hetplan-worker serving
    // spec.serving's stream, each replica's scheduler (its first stage's TP leader) writing its
    // request records, which its agent sends back as a result file. Phases, preflight, stop
    // and cancel as for run(); `records` holds what the agents sent back also when the job
    // failed or was cancelled: a scheduler stopped with the job records what it had not
    // finished as failed. A training plan or a --command spec is refused.
    Status serve(const LaunchSpec &spec, const LaunchSink &sink, ReplicaRecords &records);

    // `hetplan-cli probe --hosts`: hetplan-probe (beside each host's worker) once on every
    // host of spec.hosts, as the ranks of one probe, so every pair of hosts is measured too;
    // each measures as `measure` says (its rank, world, addresses and output are the job's;
    // a model that names a local file is uploaded). Only the hosts, trust and timeouts of `spec`
    // are used. Returns the hetplan.probe/1 text rank 0 wrote (docs/probe.md), checked. Phases,
    // preflight, stop and cancel as for run().
    Result<std::string> probe(const LaunchSpec &spec, const ProbeCommand &measure,
                              const LaunchSink &sink);

    // Asks run() to stop every rank and return; thread-safe, returns at once, harmless before
    // run() (the job then stops as soon as it starts) or after it.
    void cancel();

    // The id every rank of this job shares (set once run() has started).
    std::string jobId() const;

private:
    template<typename T>
    Result<T> track(const LaunchSpec &spec, const LaunchSink &sink,
                    const std::function<Result<T>(const std::string &, const LaunchSink &,
                                                  launch::JobControl &)> &job);

    struct State;
    std::unique_ptr<State> m_state;
};

} // namespace hetplan
