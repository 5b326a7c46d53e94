#include "tests/bench/bench_util.h"

#include "core/io/catalog_json.h"
#include "core/io/formats.h"
#include "core/io/loaders.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sys/wait.h>
#include <unistd.h>

namespace hetplan::bench {
namespace {

template<typename T>
T orDie(Result<T> result, const std::string &what)
{
    if (!result) {
        std::fprintf(stderr, "bench setup failed (%s): %s\n", what.c_str(),
                     result.error().message.c_str());
        std::exit(1);
    }
    return std::move(result).value();
}

} // namespace

std::vector<Benchmark> &registry()
{
    static std::vector<Benchmark> benchmarks;
    return benchmarks;
}

double medianSecondsPerCall(const std::function<void()> &body, int rounds)
{
    using Clock = std::chrono::steady_clock;
    long calls = 1;
    for (;;) { // calibrate: one round lasts at least 0.2 s
        const auto start = Clock::now();
        for (long i = 0; i < calls; ++i)
            body();
        if (std::chrono::duration<double>(Clock::now() - start).count() >= 0.2
            || calls > (1L << 30))
            break;
        calls *= 4;
    }
    std::vector<double> perCall;
    for (int r = 0; r < rounds; ++r) {
        const auto start = Clock::now();
        for (long i = 0; i < calls; ++i)
            body();
        perCall.push_back(std::chrono::duration<double>(Clock::now() - start).count()
                          / double(calls));
    }
    std::sort(perCall.begin(), perCall.end());
    return perCall[perCall.size() / 2];
}

PlannerOptions defaultPlannerOptions()
{
    PlannerOptions options;
    if (const char *knobs = std::getenv("HETPLAN_BENCH_KNOBS")) {
        const Status set
            = setPlannerParameters(options.parameters, defaultPlanner(Mode::Train), knobs);
        if (!set) {
            std::fprintf(stderr, "HETPLAN_BENCH_KNOBS: %s\n", set.error().message.c_str());
            std::exit(1);
        }
    }
    return options;
}

Problem exampleProblem(const std::string &cluster, const std::string &model)
{
    Cluster c = orDie(loadCluster(cluster), cluster);
    Topology topology = orDie(Topology::build(c, builtinGpuCatalog()), cluster);
    Workload workload;
    if (const auto example = findExample(cluster, ExampleKind::Workload))
        workload = orDie(parseWorkload(example->text, example->path), example->path);
    return Problem{std::move(topology), orDie(loadModel(model), model), workload};
}

Problem syntheticProblem(int machines, const std::string &model)
{
    static const char *const kTypes[] = {"A800-80G", "RTX4090-24G", "RTX3090-24G"};
    Cluster c;
    c.name = "synthetic-" + std::to_string(machines * 8);
    c.switches.push_back({"tor", {}});
    for (int m = 0; m < machines; ++m) {
        const GpuType *type = builtinGpuCatalog().find(kTypes[m % 3]);
        Machine machine;
        machine.name = "m" + std::to_string(m);
        machine.gpu = kTypes[m % 3];
        machine.count = 8;
        machine.intra = type ? type->typicalIntra : IntraLink{};
        c.machines.push_back(machine);
        c.links.push_back({machine.name, "tor", LinkKind::Ethernet, 1.0 + (m % 4), 50});
    }
    Workload workload;
    workload.train.globalBatch = 512;
    workload.train.seqLen = 2048;
    return problemOf(c, model, workload);
}

Problem problemOf(const Cluster &cluster, const std::string &model, const Workload &workload)
{
    Topology topology = orDie(Topology::build(cluster, builtinGpuCatalog()), cluster.name);
    return Problem{std::move(topology), orDie(loadModel(model), model), workload};
}

int startSibling(const std::string &program, const std::vector<std::string> &args, bool show)
{
    const std::string path
        = (std::filesystem::read_symlink("/proc/self/exe").parent_path() / program).string();
    std::vector<char *> argv{const_cast<char *>(path.c_str())};
    for (const std::string &a : args)
        argv.push_back(const_cast<char *>(a.c_str()));
    argv.push_back(nullptr);
    std::fflush(nullptr);
    const pid_t pid = ::fork();
    if (pid == 0) {
        if (!show)
            std::freopen("/dev/null", "w", stdout);
        ::execv(argv[0], argv.data());
        ::_exit(127);
    }
    return pid < 0 ? -1 : int(pid);
}

int waitSibling(int pid)
{
    int status = 0;
    if (pid < 0 || ::waitpid(pid_t(pid), &status, 0) != pid)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

} // namespace hetplan::bench
