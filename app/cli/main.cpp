// hetplan-cli: everything HetPlan does except drawing, for scripts and CI.
#include "app/cli/commands.h"
#include "base/version.h"

#include <cstring>
#include <iostream>
#include <string>
#include <vector>

namespace {

constexpr const char *kUsage = R"(usage: hetplan-cli COMMAND [options]

Commands:
  plan      --cluster FILE|EXAMPLE --model NAME|FILE [--planner NAME] [--cost-model NAME]
            [--workload FILE] [--mode train|infer] [--global-batch N] [--micro-batch N]
            [--seq-len N] [--prompt-len N] [--output-len N] [--request-rate R] [--slo S]
            [--seed N] [--knob NAME=V,...] [--out FILE] [--json]
            [--warm-start FILE] [--remove-gpus A:0,A:1]   (hexgen re-planning, §5.3)
            see 'hetplan-cli plan --help' for every option
  evaluate  --plan FILE [--cluster FILE|EXAMPLE] [--model NAME|FILE] [--cost-model NAME] [--json]
            [--measured MEASUREMENT]   (predicted beside what `run` measured)
  compare   --cluster ... --model ... [--planners a,b,...] [--json]
  sweep     --cluster ... --model ... (--link A-B | --inter | --intra) --bandwidth 0.5,1,2,5 [--json]
  validate  FILE...
  catalog   gpus|models|examples [--json]
  run       --plan FILE [--cluster FILE|EXAMPLE] [--model NAME|FILE] [--scale K]
            [--iterations I] [--seed S] [--timeout-s T] [--out MEASUREMENT] [--dump-weights DIR]
  --version print the version

Cost models: hetplan (default), hexiscale-paper, hexgen-paper.
Exit codes: 0 ok, 1 internal error, 2 bad input or invalid plan, 3 no plan fits.
)";

} // namespace

int main(int argc, char **argv)
{
    using namespace hetplan::cli;
    if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0
        || std::strcmp(argv[1], "help") == 0) {
        std::cout << kUsage;
        return argc < 2 ? 2 : 0;
    }
    if (std::strcmp(argv[1], "--version") == 0) {
        std::cout << "hetplan-cli " << hetplan::kVersion << '\n';
        return 0;
    }
    const std::string command = argv[1];
    const std::vector<std::string> words(argv + 2, argv + argc);
    if (command == "plan")
        return runPlan(words);
    if (command == "evaluate")
        return runEvaluate(words);
    if (command == "compare")
        return runCompare(words);
    if (command == "sweep")
        return runSweep(words);
    if (command == "validate")
        return runValidate(words);
    if (command == "catalog")
        return runCatalog(words);
    if (command == "run")
        return runRun(words);
    std::cerr << "hetplan-cli: error: unknown command '" << command << "'\n\n" << kUsage;
    return 2;
}
