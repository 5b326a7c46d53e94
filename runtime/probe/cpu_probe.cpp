#include "runtime/probe/cpu_probe.h"

#include "runtime/model/blas_gemm.h"
#include "runtime/model/compute_pace.h"
#include "runtime/model/model_shard.h"
#include "runtime/probe/probe_timing.h"

#include <algorithm>
#include <fstream>
#include <sched.h>
#include <thread>
#include <unistd.h>

namespace hetplan::runtime::probe {
namespace {

constexpr double kMiB = 1 << 20;
constexpr std::size_t kMinTriadBytes = std::size_t(64) << 20;
constexpr std::size_t kMaxTriadBytes = std::size_t(1) << 30;
// --quick runs beside other ranks on one host (the launcher's preflight): three arrays of this
// per rank, which may leave part of a very large last-level cache in play (docs/probe.md).
constexpr std::size_t kQuickTriadBytes = std::size_t(128) << 20;

// Twice the last-level cache, so the triad streams from memory, not from the cache.
std::size_t triadArrayBytes(bool quick)
{
    long cache = ::sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (cache <= 0)
        cache = ::sysconf(_SC_LEVEL2_CACHE_SIZE);
    const std::size_t wanted = cache > 0 ? 2 * std::size_t(cache) : 0;
    return std::min(std::clamp(wanted, kMinTriadBytes, kMaxTriadBytes),
                    quick ? kQuickTriadBytes : kMaxTriadBytes);
}

} // namespace

std::vector<GemmFigure> cpuGemm(const std::vector<GemmShape> &shapes, int repetitions,
                                int blasThreads, double repetitionS)
{
    setBlasThreads(blasThreads);
    std::vector<GemmFigure> figures;
    for (const GemmShape &s : shapes) {
        std::vector<float> a(std::size_t(s.m) * s.k, 0.5f);
        std::vector<float> b(std::size_t(s.k) * s.n, 0.25f);
        std::vector<float> c(std::size_t(s.m) * s.n, 0.0f);
        const std::vector<double> seconds = timedRepetitions(
            repetitions,
            [&] {
                const ComputePace pace;
                gemm(Transpose::No, Transpose::No, s.m, s.n, s.k, a.data(), s.k, b.data(), s.n,
                     0.0f, c.data(), s.n);
            },
            repetitionS);
        figures.push_back({s.label, s.m, s.n, s.k, "fp32", "openblas-sgemm",
                           rateSpread(seconds, 2.0 * s.m * s.n * s.k / 1e12)});
    }
    return figures;
}

MemoryFigure cpuMemory(int repetitions, bool quick, int arrayMiB)
{
    const std::size_t bytes = arrayMiB > 0 ? std::size_t(arrayMiB) << 20 : triadArrayBytes(quick);
    const std::size_t n = bytes / sizeof(double);
    std::vector<double> a(n, 0.0);
    std::vector<double> b(n, 1.0);
    std::vector<double> c(n, 2.0);
    const double scale = 3.0;
    const std::vector<double> seconds = timedRepetitions(repetitions, [&] {
        const ComputePace pace;
        double *pa = a.data();
        const double *pb = b.data();
        const double *pc = c.data();
        for (std::size_t i = 0; i < n; ++i)
            pa[i] = pb[i] + scale * pc[i];
    });
    // Keeps the stores: a result nobody reads could be optimised away.
    volatile double sink = a[n / 2];
    (void)sink;
    return {"cpu-triad", double(bytes) / kMiB, rateSpread(seconds, 3.0 * double(bytes) / 1e9)};
}

std::string cpuModel()
{
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line))
        if (line.starts_with("model name")) {
            const std::size_t colon = line.find(':');
            std::string name = colon == std::string::npos ? "" : line.substr(colon + 1);
            name.erase(0, name.find_first_not_of(" \t"));
            return name;
        }
    return {};
}

int cpuCores()
{
    cpu_set_t set;
    if (::sched_getaffinity(0, sizeof set, &set) == 0)
        return std::max(1, CPU_COUNT(&set));
    return std::max(1, int(std::thread::hardware_concurrency()));
}

} // namespace hetplan::runtime::probe
