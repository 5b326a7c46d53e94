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
  --out MEASUREMENT       write the merged hetplan.measurement/1 file
  --command WORD...       the rest of the line: run this once per rank instead of
                          hetplan-worker, with RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR,
                          MASTER_PORT and the plan's transports in the environment
)";
}

} // namespace hetplan::cli
