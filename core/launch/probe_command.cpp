#include "core/launch/probe_command.h"

namespace hetplan {
namespace {

constexpr int kQuickRepetitions = 3;

int defaultRepetitions(bool quick)
{
    return quick ? kQuickRepetitions : ProbeCommand{}.repetitions;
}

} // namespace

const CommandOptions::Spec &probeOptionSpec()
{
    static const CommandOptions::Spec spec{
        {"rank", "world", "rendezvous", "listen-address", "timeout-s", "host-name", "model",
         "micro-batch", "seq-len", "tp", "scale", "repeat", "blas-threads", "triad-mib", "out"},
        {"help", "quick", "no-gpu"},
        {}};
    return spec;
}

std::vector<std::string> probeCommandLine(const std::string &executable,
                                          const ProbeCommand &command)
{
    const ProbeCommand d;
    CommandLine line(executable);
    const auto number = [&line](const char *name, auto value, auto byDefault) {
        if (value != byDefault)
            line.option(name, value);
    };
    const auto text
        = [&line](const char *name, const std::string &value, const std::string &byDefault) {
              if (value != byDefault)
                  line.option(name, value);
          };
    number("rank", command.rank, d.rank);
    number("world", command.world, d.world);
    text("listen-address", command.comm.listenAddress, d.comm.listenAddress);
    text("host-name", command.hostName, d.hostName);
    text("model", command.model, d.model);
    number("micro-batch", command.microBatch, d.microBatch);
    number("seq-len", command.seqLen, d.seqLen);
    number("tp", command.tp, d.tp);
    number("scale", command.scale, d.scale);
    number("repeat", command.repetitions, defaultRepetitions(command.quick));
    number("blas-threads", command.blasThreads, d.blasThreads);
    number("triad-mib", command.triadMiB, d.triadMiB);
    number("timeout-s", command.comm.timeoutS, d.comm.timeoutS);
    if (command.quick)
        line.flag("quick");
    if (command.cpuOnly)
        line.flag("no-gpu");
    text("out", command.out, d.out);
    text("rendezvous", command.comm.rendezvous, d.comm.rendezvous);
    return line.words();
}

Result<ProbeCommand> readProbeCommand(const CommandOptions &options)
{
    ProbeCommand c;
    if (Status none = options.noPositional(probeOptionSpec()); !none)
        return none.error();
    c.quick = options.has("quick");
    c.cpuOnly = options.has("no-gpu");
    c.repetitions = defaultRepetitions(c.quick);
    const struct
    {
        const char *name;
        int min;
        int max;
        int *out;
    } integers[] = {{"rank", 0, (1 << 16) - 1, &c.rank},
                    {"world", 1, 1 << 16, &c.world},
                    {"micro-batch", 1, 1 << 16, &c.microBatch},
                    {"seq-len", 1, 1 << 20, &c.seqLen},
                    {"tp", 1, 1024, &c.tp},
                    {"scale", 1, 1 << 16, &c.scale},
                    {"repeat", 1, 1 << 16, &c.repetitions},
                    {"blas-threads", 1, 1024, &c.blasThreads},
                    {"triad-mib", 1, 1 << 20, &c.triadMiB}};
    for (const auto &i : integers) {
        auto value = options.integer(i.name, i.min, i.max);
        if (!value)
            return value.error();
        *i.out = value->value_or(*i.out);
    }
    auto timeout = options.number("timeout-s", 0.001, 86400.0);
    if (!timeout)
        return timeout.error();
    c.comm.timeoutS = timeout->value_or(c.comm.timeoutS);
    c.comm.rendezvous = options.value("rendezvous").value_or("");
    c.comm.listenAddress = options.value("listen-address").value_or(c.comm.listenAddress);
    c.hostName = options.value("host-name").value_or("");
    c.model = options.value("model").value_or(c.model);
    c.out = options.value("out").value_or("");
    if (c.rank >= c.world)
        return badInput("--rank " + std::to_string(c.rank) + " must be below --world "
                        + std::to_string(c.world));
    if (c.world > 1 && c.comm.rendezvous.empty())
        return badInput("--world " + std::to_string(c.world)
                        + " needs --rendezvous DIR|redis://HOST:PORT, where the ranks meet");
    return c;
}

} // namespace hetplan
