#include "app/cli/help.h"

namespace hetplan::cli {

std::string launchHelp()
{
    return R"(usage: hetplan-cli launch --plan FILE --hosts FILE [options] [--command WORD...]

Trains the plan across the hosts of a hosts file over SSH (docs/launcher.md): every host is
checked first (connection, host key, hetplan-worker's version, GPUs for --backend cuda) and
nothing starts anywhere unless all pass; then one hetplan-worker per rank, their output
prefixed with the rank and host. Ctrl-C, the first failing rank or a host that disconnects
stops every rank on every host. At the end: the measurement beside the plan's prediction.
A serving plan's replicas serve a request stream instead, as `run` serves it: every request
accounted for, the summary, and the simulator's prediction beside it.
  --plan FILE             the plan to run
  --hosts FILE            hetplan.hosts/1: each machine of the cluster mapped to an SSH host
  --known-hosts FILE      the host keys to trust (default ~/.ssh/known_hosts)
  --accept-new-host-keys  accept (and record) keys of hosts not in the known-hosts file; a
                          changed key is refused always
  --cluster FILE|EXAMPLE  the cluster the plan names, when it is not a bundled example
  --model NAME|FILE       the model the plan names, when it is not in the catalog
  --scale K, --iterations I, --seed S, --timeout-s T, --backend gloo|cuda   as for run
  --connect-timeout-s S   give up on a host that does not answer within S seconds (10)
  --grace-s S             after TERM, ranks still alive get KILL after S seconds (3)
  --out MEASUREMENT       write the merged hetplan.measurement/1 file; serving: a directory
                          for serving-measurement.json
  --requests N, --duration S, --rate R, --trace FILE, --temperature T   a serving plan's
                          stream and sampling, as for run (the trace is uploaded)
  --command WORD...       the rest of the line: run this once per rank instead of
                          hetplan-worker, with RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR,
                          MASTER_PORT and the plan's transports in the environment
  --preflight-only        train nothing: open every communicator of the plan through the
                          same agents, time each group at the plan's message sizes and
                          print achieved against assumed bandwidth and a verdict per group;
                          exit 0 all ok, 3 some slow (below half the assumption), 4 some
                          hung or failed
  --preflight-s S         each group's timed operations take about S seconds (1)
  --hang-guard-s S        a host whose agent is silent this long is hung, and an operation
                          waits at most half of it (10; at least 4)
  --json                  the pre-flight's report as hetplan.preflight/1 JSON
  --preflight-out FILE    the cluster with each measured pair folded in as measured
)";
}

std::string probeHostsHelp()
{
    return R"(usage: hetplan-cli probe --hosts FILE --out PROBE [options]

Runs hetplan-probe (beside each host's hetplan-worker) on every host of the hosts file at once
over SSH, as the ranks of one probe: each host's GEMM throughput, memory bandwidth and GPUs,
and TCP bandwidth and latency between every pair of hosts. Rank 0's hetplan.probe/1 file
(one entry per host, named after its first machine) is saved as PROBE. Preflight, host keys,
Ctrl-C and stopping as for launch (docs/launcher.md).
  --hosts FILE            hetplan.hosts/1; a host listed for several machines is probed once
  --out PROBE             where the merged probe file goes
  --known-hosts FILE, --accept-new-host-keys, --connect-timeout-s S   as for launch
  --quick, --no-gpu, --model NAME|FILE, --micro-batch B, --seq-len S, --tp T, --scale K,
  --repeat N, --blas-threads K, --triad-mib M, --timeout-s T   passed to hetplan-probe
                          (docs/probe.md);
                          a model file is uploaded with the job
)";
}

} // namespace hetplan::cli
