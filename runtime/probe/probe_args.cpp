#include "runtime/probe/probe_args.h"

#include "runtime/comm/listen_address.h"

namespace hetplan::runtime::probe {

Result<ProbeArgs> parseProbeArgs(const std::vector<std::string> &words)
{
    auto options = CommandOptions::parse(words, probeOptionSpec());
    if (!options)
        return options.error();
    ProbeArgs args;
    args.help = options->has("help");
    if (args.help)
        return args;
    auto command = readProbeCommand(*options);
    if (!command)
        return command.error();
    static_cast<ProbeCommand &>(args) = std::move(command).value();
    // Ranks of a probe across hosts listen there; a single probe does not.
    if (args.world > 1)
        if (Status listen = checkListenAddress(args.comm.listenAddress); !listen)
            return listen.error();
    return args;
}

} // namespace hetplan::runtime::probe
