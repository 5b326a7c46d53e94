// hetplan-cli: everything HetPlan does except drawing, for scripts and CI.
#include "app/cli/commands.h"
#include "app/cli/help.h"
#include "app/cli/signals.h"
#include "app/cli/terminal_output.h"
#include "base/version.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

namespace {

int runCommand(const std::string &command, const std::vector<std::string> &words)
{
    using namespace hetplan::cli;
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
    if (command == "run")
        return runRun(words);
    if (command == "export")
        return runExport(words);
    if (command == "launch")
        return runLaunch(words);
    if (command == "probe")
        return runProbeHosts(words);
    if (command == "import")
        return runImport(words);
    if (command == "calibrate")
        return runCalibrate(words);
    return runCatalog(words);
}

// Output that never reached standard output (a full disk, /dev/full, a closed pipe) is a
// failure the caller must see, not exit 0.
int checkStandardOutput(int code)
{
    std::cout.flush();
    errno = 0;
    if (!std::cout || std::fflush(stdout) != 0) {
        const int error = errno;
        std::cerr << "hetplan-cli: error: cannot write to standard output"
                  << (error != 0 ? std::string(": ") + std::strerror(error) : std::string())
                  << '\n';
        return code == 0 ? 1 : code;
    }
    return code;
}

} // namespace

int main(int argc, char **argv)
{
    using namespace hetplan::cli;
    // Before any thread exists, so that every thread inherits the blocked signals.
    startSignalWatcher();
    // Remote output and names from files are printed without their control characters.
    const TerminalFilter terminal;
    if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0
        || std::strcmp(argv[1], "help") == 0) {
        std::cout << usage();
        return checkStandardOutput(argc < 2 ? 2 : 0);
    }
    if (std::strcmp(argv[1], "--version") == 0) {
        std::cout << "hetplan-cli " << hetplan::kVersion << '\n';
        return checkStandardOutput(0);
    }
    const std::string command = argv[1];
    const std::vector<std::string> words(argv + 2, argv + argc);
    const std::optional<std::string> help = commandHelp(command);
    if (!help) {
        std::cerr << "hetplan-cli: error: unknown command '" << command
                  << "'; valid: plan, evaluate, compare, sweep, validate, catalog, run, export, "
                     "import, calibrate, launch, probe\n\n"
                  << usage();
        return 2;
    }
    if (std::find(words.begin(), words.end(), "--help") != words.end()
        || std::find(words.begin(), words.end(), "-h") != words.end()) {
        std::cout << *help;
        return checkStandardOutput(0);
    }
    return checkStandardOutput(runCommand(command, words));
}
