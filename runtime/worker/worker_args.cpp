#include "runtime/worker/worker_args.h"

#include <charconv>
#include <map>

namespace hetplan::runtime {
namespace {

template<typename T>
Status readNumber(const std::string &name, const std::string &text, T min, T max, T &out)
{
    T value{};
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || value < min || value > max)
        return badInput("--" + name + " " + text + ": expected a number in " + std::to_string(min)
                        + ".." + std::to_string(max));
    out = value;
    return okStatus();
}

} // namespace

Result<WorkerArgs> parseWorkerArgs(const std::vector<std::string> &words)
{
    WorkerArgs a;
    std::map<std::string, std::string> values;
    for (std::size_t i = 0; i < words.size(); ++i) {
        const std::string &w = words[i];
        if (w == "--help" || w == "-h") {
            a.help = true;
            return a;
        }
        if (w == "--version") {
            a.version = true;
            return a;
        }
        if (!w.starts_with("--") || i + 1 >= words.size())
            return badInput("unexpected argument '" + w + "'; every option takes a value");
        values[w.substr(2)] = words[++i];
    }
    const auto take = [&](const char *name) -> std::optional<std::string> {
        auto it = values.find(name);
        if (it == values.end())
            return std::nullopt;
        std::string v = it->second;
        values.erase(it);
        return v;
    };
    std::vector<Status> checks;
    for (const char *name : {"plan", "rank", "world", "rendezvous"})
        if (!values.contains(name))
            return badInput(std::string("--") + name + " is required");
    a.job.planPath = *take("plan");
    a.comm.rendezvous = *take("rendezvous");
    a.job.cluster = take("cluster");
    a.job.model = take("model");
    checks.push_back(readNumber("world", *take("world"), 1, 1 << 16, a.world));
    checks.push_back(readNumber("rank", *take("rank"), 0, (1 << 16) - 1, a.rank));
    if (auto v = take("scale"))
        checks.push_back(readNumber("scale", *v, 1, 1 << 16, a.job.scale));
    if (auto v = take("iterations"))
        checks.push_back(readNumber("iterations", *v, 1, 1 << 20, a.iterations));
    if (auto v = take("seed")) {
        int seed = 0;
        checks.push_back(readNumber("seed", *v, 0, std::numeric_limits<int>::max(), seed));
        a.seed = std::uint64_t(seed);
    }
    if (auto v = take("timeout-s"))
        checks.push_back(readNumber("timeout-s", *v, 0.001, 86400.0, a.comm.timeoutS));
    if (auto v = take("listen-address"))
        a.comm.listenAddress = *v;
    if (auto v = take("backend")) {
        auto backend = backendOption(*v);
        if (!backend)
            return backend.error();
        a.backend = *backend;
    }
    if (auto v = take("device")) {
        int device = 0;
        checks.push_back(readNumber("device", *v, 0, 1023, device));
        a.device = device;
    }
    a.ncclIbHca = take("nccl-ib-hca").value_or("");
    a.ncclSocketIfname = take("nccl-socket-ifname").value_or("");
    a.out = take("out").value_or("");
    a.dumpWeights = take("dump-weights").value_or("");
    for (const Status &s : checks)
        if (!s)
            return s.error();
    if (!values.empty())
        return badInput("unknown option --" + values.begin()->first);
    if (a.backend == BackendKind::Cuda && !a.dumpWeights.empty())
        return badInput("--dump-weights needs --backend gloo: the GPU model's weights stay on "
                        "the device");
    if (a.backend == BackendKind::Gloo
        && (a.device || !a.ncclIbHca.empty() || !a.ncclSocketIfname.empty()))
        return badInput("--device, --nccl-ib-hca and --nccl-socket-ifname need --backend cuda");
    if (a.rank >= a.world)
        return badInput("--rank " + std::to_string(a.rank) + " must be below --world "
                        + std::to_string(a.world));
    return a;
}

std::vector<std::string> workerCommandLine(const std::string &executable, const WorkerArgs &args)
{
    const std::string backend(backendName(args.backend, BackendSpelling::Option));
    std::vector<std::string> argv = {executable,
                                     "--plan",
                                     args.job.planPath,
                                     "--rank",
                                     std::to_string(args.rank),
                                     "--world",
                                     std::to_string(args.world),
                                     "--rendezvous",
                                     args.comm.rendezvous,
                                     "--scale",
                                     std::to_string(args.job.scale),
                                     "--iterations",
                                     std::to_string(args.iterations),
                                     "--seed",
                                     std::to_string(args.seed),
                                     "--timeout-s",
                                     std::to_string(args.comm.timeoutS),
                                     "--listen-address",
                                     args.comm.listenAddress,
                                     "--backend",
                                     backend};
    const auto optional = [&argv](const char *flag, const std::string &value) {
        if (!value.empty()) {
            argv.insert(argv.end(), {flag, value});
        }
    };
    optional("--cluster", args.job.cluster.value_or(""));
    optional("--model", args.job.model.value_or(""));
    optional("--out", args.out);
    optional("--dump-weights", args.dumpWeights);
    optional("--device", args.device ? std::to_string(*args.device) : std::string());
    optional("--nccl-ib-hca", args.ncclIbHca);
    optional("--nccl-socket-ifname", args.ncclSocketIfname);
    return argv;
}

StageRun stageRun(const Job &job, const WorkerArgs &args)
{
    return {job.plan.workload.train.seqLen, args.job.scale, args.seed, job.program.globalBatch,
            job.plan.workload.train.optimizer};
}

} // namespace hetplan::runtime
