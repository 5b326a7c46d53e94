// hetplan-cli probe --hosts: hetplan-probe on every host of a hosts file at once, over SSH,
// as the ranks of one probe (docs/launcher.md, "Probing every host"); rank 0's merged
// hetplan.probe/1 file is fetched and saved.
#include "app/cli/commands.h"
#include "app/cli/launch_files.h"
#include "app/cli/launch_output.h"
#include "app/cli/output.h"
#include "app/cli/setup.h"
#include "app/cli/signals.h"
#include "core/io/files.h"
#include "core/launch/probe_command.h"
#include "runtime/launcher/launch_job.h"

#include <iostream>
#include <stop_token>

namespace hetplan::cli {

int runProbeHosts(const std::vector<std::string> &words)
{
    // hetplan-probe's own options, passed on (docs/probe.md).
    const std::vector<std::string> probeOptions
        = {"model", "micro-batch", "seq-len", "tp", "scale", "repeat", "blas-threads", "triad-mib"};
    Args::Spec spec{{"hosts", "out", "known-hosts", "connect-timeout-s", "timeout-s"},
                    {"accept-new-host-keys", "quick", "no-gpu"}};
    spec.options.insert(probeOptions.begin(), probeOptions.end());
    auto args = Args::parse(words, spec);
    if (!args)
        return fail(args.error());
    if (Status none = args->noPositional(spec); !none)
        return fail(none.error());
    auto out = args->required("out");
    if (!out)
        return fail(out.error());
    // Checked now, not after the probe: a measurement is never lost to a bad --out.
    if (auto checked = outputFromArgs(*args); !checked)
        return fail(checked.error());
    auto hosts = launchHostsFromArgs(*args);
    if (!hosts)
        return fail(hosts.error());
    auto knownHosts = knownHostsFromArgs(*args);
    if (!knownHosts)
        return fail(knownHosts.error());
    auto connect = args->integer("connect-timeout-s", 1, 600);
    if (!connect)
        return fail(connect.error());

    LaunchSpec launch;
    launch.hosts = std::move(hosts).value();
    launch.knownHostsFile = std::move(knownHosts).value();
    launch.acceptNewHostKeys = args->has("accept-new-host-keys");
    launch.connectTimeoutS = connect->value_or(launch.connectTimeoutS);
    // hetplan-probe's options, read as hetplan-probe reads them: refused here, before any host.
    std::vector<std::string> passed;
    for (const std::string &name : probeOptions)
        if (const auto value = args->value(name))
            passed.insert(passed.end(), {"--" + name, *value});
    if (const auto timeout = args->value("timeout-s"))
        passed.insert(passed.end(), {"--timeout-s", *timeout});
    for (const char *name : {"quick", "no-gpu"})
        if (args->has(name))
            passed.push_back(std::string("--") + name);
    auto probeArgs = CommandOptions::parse(passed, probeOptionSpec());
    if (!probeArgs)
        return fail(probeArgs.error());
    auto measure = readProbeCommand(*probeArgs);
    if (!measure)
        return fail(measure.error());

    LaunchOutput output(std::cout, std::cerr);
    LaunchJob job;
    const StoppableScope stoppable;
    const std::stop_callback onSignal(stopToken(), [&job] { job.cancel(); });
    auto probe = job.probe(launch, *measure, std::ref(output));
    output.flush();
    if (!probe) {
        const int code = fail(probe.error());
        return receivedSignal() != 0 ? signalExitCode() : code;
    }
    if (Status written = writeFileAtomic(*out, *probe); !written)
        return fail(written.error());
    std::cout << "hetplan-cli probe: wrote " << *out << '\n';
    return 0;
}

} // namespace hetplan::cli
