#pragma once

#include "core/cost/problem.h"
#include "core/planners/planner.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

namespace hetplan::bench {

struct Benchmark
{
    std::string name;
    std::function<void()> run;
};

std::vector<Benchmark> &registry();

struct Register
{
    Register(std::string name, std::function<void()> run)
    {
        registry().push_back({std::move(name), std::move(run)});
    }
};

// The value, or the error on stderr and exit 1: a bench case has nothing to recover.
template<typename T>
T orExit(Result<T> result)
{
    if (!result) {
        std::fprintf(stderr, "hetplan-bench: %s\n", result.error().message.c_str());
        std::exit(1);
    }
    return std::move(result).value();
}

inline void orExit(const Status &status)
{
    if (!status) {
        std::fprintf(stderr, "hetplan-bench: %s\n", status.error().message.c_str());
        std::exit(1);
    }
}

// Median seconds per call of `body`, over `rounds` rounds that each last at least ~0.2 s.
double medianSecondsPerCall(const std::function<void()> &body, int rounds = 5);

// Options for the default planner: HETPLAN_BENCH_KNOBS, when set, holds its knobs as --knob
// takes them ("polish=40,holmes_seed=0"), to compare settings on the same cases.
PlannerOptions defaultPlannerOptions();

// A bundled example with its bundled workload (if any) and the named catalog model.
Problem exampleProblem(const std::string &cluster, const std::string &model);

// A cluster built in code with a workload and the named catalog model.
Problem problemOf(const Cluster &cluster, const std::string &model, const Workload &workload);

// A synthetic cluster of `machines` × 8 GPUs (A800 / RTX 4090 / RTX 3090 in turn) on one
// Ethernet switch, for scaling runs.
Problem syntheticProblem(int machines, const std::string &model);

// A program beside hetplan-bench (hetplan-cli, hetplan-probe) started with `args`, its standard
// output shown or not: its process id (-1 when it could not start), then its exit code (-1
// when it did not exit normally).
int startSibling(const std::string &program, const std::vector<std::string> &args, bool show);
int waitSibling(int pid);

} // namespace hetplan::bench
