#include "runtime/probe/probe_args.h"

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
    return args;
}

} // namespace hetplan::runtime::probe
