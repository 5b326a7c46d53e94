#pragma once

// Each planner's settings as a typed struct, and one table per planner describing them
// (name, type, range, default, one line of documentation). The table is the only way text
// reaches the structs: the CLI's --knob, the app's planner settings and describe() all go
// through it, so a setting is validated, documented and defaulted in one place. The default
// lives in the struct's member initialiser; the table reads it from there.

#include "core/base/result.h"

#include <span>
#include <string>
#include <string_view>

namespace hetplan {

enum class PlannerKind { HexiScale, Metis, Holmes, HexGen, Megatron, Exhaustive };

std::string_view plannerName(PlannerKind kind);

// HexiScale §4.2–4.4.
struct HexiScaleParameters
{
    int iterations = 50; // where the paper's search converged (§5.3)
    double balance = 1.2;
    double secondaryBalance = 2.0;
    int tau = 2;
    int maxPipelines = 64;
    bool megatronSeed = true;
    bool holmesSeed = true;
    int polish = -1; // -1: 20000 / GPUs within [40, 1500]
};

// Metis §4.2.2 and Table 4.
struct MetisParameters
{
    // Paper defaults (§5.4, Table 4: "prunes stage-device group pairs with 0.5 var and the
    // maximum permutation length 10").
    double variance = 0.5;
    int maxPermutationLength = 10;
    // HetPlan's bound: the paper's enumeration visits millions of sequences on 64 GPUs (600 s
    // of search, §5.4); this many per stage count keeps a 64-GPU cluster near half a second
    // while every stage count is still visited. On the bundled 56- and 64-GPU cases 8 already
    // comes within 2% of what 200 find.
    int sequences = 16;
    int top = 8;
};

// Holmes §4.1.
struct HolmesParameters
{
    double alpha = 1.05; // Holmes §4.1 sets α = 1.05 for every result it reports
};

// HexGen §4.3 and Appendix F.
struct HexGenParameters
{
    int generations = 200;
    int replanGenerations = 60;
    int population = 16;
    int patience = 40;
    int maxStages = 8; // the deepest pipeline in the paper's Table 3
    int requests = 1000;
    bool preferReplicas = true;
};

struct ExhaustiveParameters
{
    // The default keeps a run under ~15 s on one core even when no bound prunes anything
    // (~1.5 us per plan); a whole number, held as a double to reach 1e18.
    double maxPlans = 1e7;
    bool heuristicSeed = true;
};

// The settings of every planner; a planner reads only its own member.
struct PlannerParameters
{
    HexiScaleParameters hexiscale;
    MetisParameters metis;
    HolmesParameters holmes;
    HexGenParameters hexgen;
    ExhaustiveParameters exhaustive;
};

enum class ParameterType { Integer, Real, Switch }; // Switch: 0 or 1

struct ParameterSpec
{
    std::string_view name; // as written after --knob
    ParameterType type = ParameterType::Real;
    double min = 0;
    double max = 0;
    double defaultValue = 0;
    std::string_view doc; // one line
};

// The parameters `kind` takes, in display order; empty for a planner without any.
std::span<const ParameterSpec> plannerParameters(PlannerKind kind);

// The current value of parameter `name` of planner `kind`; an unknown name is an error that
// lists the valid ones.
Result<double> plannerParameter(const PlannerParameters &parameters, PlannerKind kind,
                                std::string_view name);
// Sets parameter `name` after checking its type and range; errors name the planner, the
// parameter and what would be valid (or list the valid names, saying which planner takes an
// unknown one).
Status setPlannerParameter(PlannerParameters &parameters, PlannerKind kind, std::string_view name,
                           double value);
// Every parameter of `kind` within its range (a struct filled in directly is checked here).
Status checkPlannerParameters(const PlannerParameters &parameters, PlannerKind kind);
// "name=value[,name=value...]" as given to --knob; values are read as numbers first, so
// "1e12" for an integer parameter is refused with its range rather than truncated.
Status setPlannerParameters(PlannerParameters &parameters, PlannerKind kind, std::string_view text);

// " tau=2 balance=1.2 ...": every parameter of `kind` with its value, for logs.
std::string describeParameters(const PlannerParameters &parameters, PlannerKind kind);
// One line per parameter: name, type and range, default, doc; for --help.
std::string parameterHelp(PlannerKind kind, std::string_view indent);

// "[1, 100000]", "0 or 1", "[0, 1]": the valid values of a parameter, for messages.
std::string parameterRangeText(const ParameterSpec &spec);

} // namespace hetplan
