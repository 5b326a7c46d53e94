#pragma once

#include <string>
#include <vector>

namespace hetplan::cli {

// Each subcommand takes the words after its name and returns the process exit code:
// 0 success, 2 bad input (or a plan that fails validation), 3 no plan fits, 1 anything else.
int runPlan(const std::vector<std::string> &words);
int runEvaluate(const std::vector<std::string> &words);
int runCompare(const std::vector<std::string> &words);
int runSweep(const std::vector<std::string> &words);
int runValidate(const std::vector<std::string> &words);
int runCatalog(const std::vector<std::string> &words);
int runRun(const std::vector<std::string> &words);
int runExport(const std::vector<std::string> &words);
int runLaunch(const std::vector<std::string> &words);
int runProbeHosts(const std::vector<std::string> &words); // probe --hosts
int runImport(const std::vector<std::string> &words);
int runCalibrate(const std::vector<std::string> &words);
// calibrate --design: the plans of a calibration job (calibrate_design.cpp).
int runCalibrateDesign(const std::vector<std::string> &words);

} // namespace hetplan::cli
