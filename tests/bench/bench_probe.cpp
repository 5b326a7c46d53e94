// hetplan-probe across three local ranks (issue 14): the ranks meet through a FileStore in a
// temporary folder, measure every pair over Gloo TCP on loopback and their CPU GEMM and memory
// bandwidth, and rank 0 prints what it wrote. Ranks share this machine's cores, so the GEMM
// and memory figures are per rank under contention, as on a host running several workers.
#include "tests/bench/bench_util.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

namespace hetplan::bench {
namespace {

namespace fs = std::filesystem;

constexpr int kRanks = 3;

void benchProbe()
{
    std::error_code ec;
    const fs::path dir
        = fs::temp_directory_path() / ("hetplan-probe-" + std::to_string(::getpid()));
    fs::create_directories(dir, ec);
    const std::string out = (dir / "local.probe.json").string();
    std::printf("hetplan-probe, %d local ranks (llama2-7b layer GEMMs at 64 tokens, 5 "
                "repetitions, 128 MiB triad arrays):\n",
                kRanks);
    const auto start = std::chrono::steady_clock::now();
    std::vector<int> pids;
    for (int r = 0; r < kRanks; ++r)
        pids.push_back(
            startSibling("hetplan-probe",
                         {"--rank", std::to_string(r), "--world", std::to_string(kRanks),
                          "--rendezvous", dir.string(), "--model", "llama2-7b", "--seq-len", "64",
                          "--repeat", "5", "--triad-mib", "128", "--out", out},
                         r == 0));
    bool ok = true;
    for (int pid : pids)
        ok = waitSibling(pid) == 0 && ok;
    const double wallS
        = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("  %s in %.1f s\n\n", ok ? "done" : "FAILED", wallS);
    fs::remove_all(dir, ec);
}

const Register registered("probe", benchProbe);

} // namespace
} // namespace hetplan::bench
