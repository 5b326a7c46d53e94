// A local Gloo run of the bundled case study's plan (issue 13): `hetplan-cli plan` makes the
// plan HexiScale picks for the case study, `hetplan-cli run` trains it on this machine's CPUs
// (one process per GPU of the plan) with the model scaled down so it fits, and `hetplan-cli
// evaluate --measured` prints what was measured beside what the cost model predicted, per
// phase and per stage. The prediction is for the cluster's GPUs and the full model; the
// numbers show where a CPU rehearsal spends its time, not the cost model's error.
#include "tests/bench/bench_util.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

namespace hetplan::bench {
namespace {

namespace fs = std::filesystem;

constexpr int kScale = 64;
constexpr int kIterations = 4; // the first is warm-up and left out of the means

int runSibling(const std::string &program, const std::vector<std::string> &args, bool show)
{
    return waitSibling(startSibling(program, args, show));
}

void benchGlooRun()
{
    std::error_code ec;
    const fs::path dir
        = fs::temp_directory_path() / ("hetplan-bench-" + std::to_string(::getpid()));
    fs::create_directories(dir, ec);
    const std::string plan = (dir / "case-study.plan.json").string();
    const std::string measured = (dir / "case-study.measurement.json").string();
    std::printf("local Gloo run of the case-study plan (llama2-13b at --scale %d, %d "
                "iterations):\n",
                kScale, kIterations);
    const auto start = std::chrono::steady_clock::now();
    const bool ok
        = runSibling("hetplan-cli",
                     {"plan", "--cluster", "case-study", "--model", "llama2-13b", "--out", plan},
                     false)
              == 0
          && runSibling("hetplan-cli",
                        {"run", "--plan", plan, "--scale", std::to_string(kScale), "--iterations",
                         std::to_string(kIterations), "--out", measured},
                        false)
                 == 0
          && runSibling("hetplan-cli", {"evaluate", "--plan", plan, "--measured", measured}, true)
                 == 0;
    const double wallS
        = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("  %s in %.1f s\n\n", ok ? "done" : "FAILED", wallS);
    fs::remove_all(dir, ec);
}

const Register registered("gloo-run-case-study", benchGlooRun);

} // namespace
} // namespace hetplan::bench
