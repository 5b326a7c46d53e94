#include "core/launch/worker_command.h"

#include "core/base/shell_quote.h"

#include <algorithm>
#include <limits>

namespace hetplan {

const CommandOptions::Spec &workerOptionSpec()
{
    static const CommandOptions::Spec spec{
        {"plan", "cluster", "model", "scale", "rank", "world", "rendezvous", "listen-address",
         "timeout-s", "iterations", "seed", "out", "dump-weights", "backend", "device",
         "nccl-ib-hca", "nccl-socket-ifname", "preflight-s",
         // A serving plan's (docs/runtime.md, "Serving runs").
         "requests", "duration-s", "rate", "trace", "temperature", "weights"},
        {"help", "version"},
        {}};
    return spec;
}

std::vector<std::string> workerCommandLine(const std::string &executable,
                                           const WorkerCommand &command)
{
    const WorkerCommand defaults;
    CommandLine line(executable);
    line.option("plan", command.plan);
    if (command.cluster)
        line.option("cluster", *command.cluster);
    if (command.model)
        line.option("model", *command.model);
    line.option("rank", command.rank);
    line.option("world", command.world);
    line.option("backend", std::string(backendName(command.backend, BackendSpelling::Option)));
    if (command.device)
        line.option("device", *command.device);
    if (command.scale != defaults.scale)
        line.option("scale", command.scale);
    if (command.iterations != defaults.iterations)
        line.option("iterations", command.iterations);
    if (command.seed != defaults.seed)
        line.option("seed", static_cast<long long>(command.seed));
    if (command.comm.timeoutS != defaults.comm.timeoutS)
        line.option("timeout-s", command.comm.timeoutS);
    if (command.preflightS != defaults.preflightS)
        line.option("preflight-s", command.preflightS);
    line.option("rendezvous", command.comm.rendezvous);
    line.option("listen-address", command.comm.listenAddress);
    if (!command.out.empty())
        line.option("out", command.out);
    if (!command.dumpWeights.empty())
        line.option("dump-weights", command.dumpWeights);
    if (!command.ncclIbHca.empty())
        line.option("nccl-ib-hca", command.ncclIbHca);
    if (!command.ncclSocketIfname.empty())
        line.option("nccl-socket-ifname", command.ncclSocketIfname);
    if (command.requests != defaults.requests)
        line.option("requests", command.requests);
    if (command.durationS != defaults.durationS)
        line.option("duration-s", command.durationS);
    if (command.rate)
        line.option("rate", *command.rate);
    if (!command.trace.empty())
        line.option("trace", command.trace);
    if (command.temperature != defaults.temperature)
        line.option("temperature", command.temperature);
    if (!command.weights.empty())
        line.option("weights", command.weights);
    return line.words();
}

std::string workerShellCommand(const std::string &executable, const WorkerCommand &command,
                               const std::map<std::string, std::string> &expressions,
                               const std::vector<std::string> &breakBefore)
{
    const std::vector<std::string> words = workerCommandLine(executable, command);
    std::string text = executable;
    for (std::size_t i = 1; i + 1 < words.size(); i += 2) {
        const std::string name = words[i].substr(2);
        const auto expression = expressions.find(name);
        const bool broken
            = std::find(breakBefore.begin(), breakBefore.end(), name) != breakBefore.end();
        text += broken ? " \\\n    " : " ";
        text += words[i];
        text += ' ';
        text += expression == expressions.end() ? shellQuote(words[i + 1]) : expression->second;
    }
    return text;
}

Result<WorkerCommand> readWorkerCommand(const CommandOptions &options)
{
    WorkerCommand c;
    if (Status none = options.noPositional(workerOptionSpec()); !none)
        return none.error();
    for (const char *name : {"plan", "rank", "world", "rendezvous"})
        if (!options.has(name))
            return badInput(std::string("--") + name + " is required");
    c.plan = *options.value("plan");
    c.cluster = options.value("cluster");
    c.model = options.value("model");
    c.comm.rendezvous = *options.value("rendezvous");
    c.comm.listenAddress = options.value("listen-address").value_or(c.comm.listenAddress);
    c.out = options.value("out").value_or("");
    c.dumpWeights = options.value("dump-weights").value_or("");
    c.ncclIbHca = options.value("nccl-ib-hca").value_or("");
    c.ncclSocketIfname = options.value("nccl-socket-ifname").value_or("");
    auto world = options.integer("world", 1, 1 << 16);
    auto rank = options.integer("rank", 0, (1 << 16) - 1);
    auto scale = options.integer("scale", 1, 1 << 16);
    auto iterations = options.integer("iterations", 1, 1 << 20);
    auto seed = options.integer("seed", 0, std::numeric_limits<int>::max());
    auto device = options.integer("device", 0, 1023);
    auto timeout = options.number("timeout-s", 0.001, 86400.0);
    auto requests = options.integer("requests", 1, 1 << 24);
    auto duration = options.number("duration-s", 0.001, 86400.0 * 365);
    auto rate = options.number("rate", 1e-6, 1e6);
    auto temperature = options.number("temperature", 0.0, 100.0);
    auto preflight = options.number("preflight-s", 0.001, 3600.0);
    for (const auto *read : {&world, &rank, &scale, &iterations, &seed, &device, &requests})
        if (!*read)
            return read->error();
    for (const auto *read : {&timeout, &duration, &rate, &temperature, &preflight})
        if (!*read)
            return read->error();
    c.preflightS = preflight->value_or(c.preflightS);
    c.requests = requests->value_or(0);
    c.durationS = duration->value_or(0);
    c.rate = *rate;
    c.trace = options.value("trace").value_or("");
    c.weights = options.value("weights").value_or("");
    c.temperature = temperature->value_or(0);
    c.world = **world;
    c.rank = **rank;
    c.scale = scale->value_or(c.scale);
    c.iterations = iterations->value_or(c.iterations);
    c.seed = std::uint64_t(seed->value_or(0));
    c.device = *device;
    c.comm.timeoutS = timeout->value_or(c.comm.timeoutS);
    if (auto v = options.value("backend")) {
        auto backend = backendOption(*v);
        if (!backend)
            return backend.error();
        c.backend = *backend;
    }
    if (c.backend == BackendKind::Cuda && !c.dumpWeights.empty())
        return badInput("--dump-weights needs --backend gloo: the GPU model's weights stay on "
                        "the device");
    if (c.backend == BackendKind::Gloo
        && (c.device || !c.ncclIbHca.empty() || !c.ncclSocketIfname.empty()))
        return badInput("--device, --nccl-ib-hca and --nccl-socket-ifname need --backend cuda");
    if (c.rank >= c.world)
        return badInput("--rank " + std::to_string(c.rank) + " must be below --world "
                        + std::to_string(c.world));
    return c;
}

} // namespace hetplan
