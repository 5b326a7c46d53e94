// The parameter tables of every planner: the only place a setting's name, range and
// documentation are written; its default is the struct's member initialiser.
#include "core/planners/planner_params.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <variant>
#include <vector>

namespace hetplan {
namespace {

template<typename S>
struct Field
{
    std::string_view name;
    std::variant<int S::*, double S::*, bool S::*> member;
    ParameterType type;
    double min;
    double max;
    std::string_view doc;
};

template<typename S>
double read(const S &settings, const Field<S> &field)
{
    return std::visit([&](auto member) { return double(settings.*member); }, field.member);
}

template<typename S>
void write(S &settings, const Field<S> &field, double value)
{
    std::visit(
        [&](auto member) {
            using T = std::remove_reference_t<decltype(settings.*member)>;
            settings.*member = static_cast<T>(value);
        },
        field.member);
}

using I = ParameterType;

const std::array kHexiScale{
    Field<HexiScaleParameters>{"iterations", &HexiScaleParameters::iterations, I::Integer, 1,
                               100000, "outer iterations of the search (§4.4)"},
    Field<HexiScaleParameters>{"balance", &HexiScaleParameters::balance, I::Real, 1.001, 10,
                               "phase-1 balance: max group TFLOPS / average (§4.2)"},
    Field<HexiScaleParameters>{"secondary_balance", &HexiScaleParameters::secondaryBalance, I::Real,
                               1.001, 10, "the same for phase 2's parts, which follow machines"},
    Field<HexiScaleParameters>{"tau", &HexiScaleParameters::tau, I::Integer, 1, 64,
                               "top-tau of the stage-order search (§4.3 step iii)"},
    Field<HexiScaleParameters>{"max_pipelines", &HexiScaleParameters::maxPipelines, I::Integer, 1,
                               16384, "upper bound on the pipeline count K"},
    Field<HexiScaleParameters>{"megatron_seed", &HexiScaleParameters::megatronSeed, I::Switch, 0, 1,
                               "1: also start from the Megatron baseline"},
    Field<HexiScaleParameters>{"holmes_seed", &HexiScaleParameters::holmesSeed, I::Switch, 0, 1,
                               "1: also start from the Holmes planner's plan"},
    Field<HexiScaleParameters>{"polish", &HexiScaleParameters::polish, I::Integer, -1, 1000000,
                               "final local-search evaluations per layout (-1: 20000 / GPUs "
                               "within 40..1500, 0: none)"},
};

const std::array kMetis{
    Field<MetisParameters>{"variance", &MetisParameters::variance, I::Real, 0, 1,
                           "device groups smaller than GPUs / stages x (1 - var) are skipped "
                           "(§4.2.2)"},
    Field<MetisParameters>{"max_permutation_length", &MetisParameters::maxPermutationLength,
                           I::Integer, 1, 20, "blocks permuted at most (§4.2.2)"},
    Field<MetisParameters>{"sequences", &MetisParameters::sequences, I::Integer, 1, 100000000,
                           "device-group sequences examined per stage count"},
    Field<MetisParameters>{"top", &MetisParameters::top, I::Integer, 1, 10000,
                           "candidates by Metis cost judged by the cost model"},
};

const std::array kHolmes{
    Field<HolmesParameters>{"alpha", &HolmesParameters::alpha, I::Real, 0, 100,
                            "the hyper-parameter alpha of eq. 4-5 (§4.1)"},
};

const std::array kHexGen{
    Field<HexGenParameters>{"generations", &HexGenParameters::generations, I::Integer, 0, 1000000,
                            "generations from a K-means start"},
    Field<HexGenParameters>{"replan_generations", &HexGenParameters::replanGenerations, I::Integer,
                            0, 1000000, "generations from a warm start (§5.3)"},
    Field<HexGenParameters>{"population", &HexGenParameters::population, I::Integer, 2, 10000,
                            "individuals kept per generation"},
    Field<HexGenParameters>{"patience", &HexGenParameters::patience, I::Integer, 1, 1000000,
                            "stop after this many generations without improvement"},
    Field<HexGenParameters>{"max_stages", &HexGenParameters::maxStages, I::Integer, 1, 1024,
                            "pipeline stages per replica"},
    Field<HexGenParameters>{"requests", &HexGenParameters::requests, I::Integer, 10, 1000000,
                            "simulated requests per fitness evaluation"},
    Field<HexGenParameters>{"prefer_replicas", &HexGenParameters::preferReplicas, I::Switch, 0, 1,
                            "ties on attainment: 1 more replicas first, 0 higher rate first"},
};

const std::array kExhaustive{
    Field<ExhaustiveParameters>{"max_plans", &ExhaustiveParameters::maxPlans, I::Integer, 1, 1e18,
                                "refuse when the enumeration is larger than this"},
    Field<ExhaustiveParameters>{"heuristic_seed", &ExhaustiveParameters::heuristicSeed, I::Switch,
                                0, 1, "1: seed the bound with HexiScale's plan"},
};

template<typename S, std::size_t N>
std::vector<ParameterSpec> specsOf(const std::array<Field<S>, N> &fields)
{
    std::vector<ParameterSpec> specs;
    specs.reserve(N);
    static const S defaults; // its member initialisers are the defaults
    for (const Field<S> &f : fields)
        specs.push_back({f.name, f.type, f.min, f.max, read(defaults, f), f.doc});
    return specs;
}

// Calls `visit(settings, fields)` with the struct and the table of planner `kind`.
template<typename Parameters, typename Visit>
auto withTable(Parameters &parameters, PlannerKind kind, Visit visit)
{
    switch (kind) {
    case PlannerKind::HexiScale:
        return visit(parameters.hexiscale, std::span(kHexiScale));
    case PlannerKind::Metis:
        return visit(parameters.metis, std::span(kMetis));
    case PlannerKind::Holmes:
        return visit(parameters.holmes, std::span(kHolmes));
    case PlannerKind::HexGen:
        return visit(parameters.hexgen, std::span(kHexGen));
    case PlannerKind::Exhaustive:
        return visit(parameters.exhaustive, std::span(kExhaustive));
    case PlannerKind::Megatron:
        break;
    }
    return visit(parameters.holmes, std::span(kHolmes).first(0));
}

std::string number(double value)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.10g", value);
    return text;
}

std::string namesOf(PlannerKind kind)
{
    std::string names;
    for (const ParameterSpec &spec : plannerParameters(kind))
        names += (names.empty() ? "" : ", ") + std::string(spec.name);
    return names.empty() ? "none" : names;
}

constexpr std::array kAllKinds{PlannerKind::HexiScale, PlannerKind::Metis,
                               PlannerKind::Holmes,    PlannerKind::HexGen,
                               PlannerKind::Megatron,  PlannerKind::Exhaustive};

Error unknownParameter(PlannerKind kind, std::string_view name)
{
    std::string owner;
    for (PlannerKind other : kAllKinds)
        for (const ParameterSpec &spec : plannerParameters(other))
            if (other != kind && spec.name == name && owner.empty())
                owner = std::string(plannerName(other));
    std::string message = "planner '" + std::string(plannerName(kind)) + "' has no parameter '"
                          + std::string(name) + "'";
    if (!owner.empty())
        message += " (it is a parameter of " + owner + ")";
    return badInput(message + "; valid: " + namesOf(kind));
}

Status checkValue(PlannerKind kind, const ParameterSpec &spec, double value)
{
    const bool whole = spec.type != ParameterType::Real;
    if (!std::isfinite(value) || value < spec.min || value > spec.max
        || (whole && value != std::floor(value)))
        return badInput("planner '" + std::string(plannerName(kind)) + "' parameter "
                        + std::string(spec.name) + ": " + number(value)
                        + " is not valid; valid: " + parameterRangeText(spec));
    return okStatus();
}

} // namespace

std::span<const ParameterSpec> plannerParameters(PlannerKind kind)
{
    static const std::array tables{specsOf(kHexiScale), specsOf(kMetis), specsOf(kHolmes),
                                   specsOf(kHexGen), specsOf(kExhaustive)};
    switch (kind) {
    case PlannerKind::HexiScale:
        return tables[0];
    case PlannerKind::Metis:
        return tables[1];
    case PlannerKind::Holmes:
        return tables[2];
    case PlannerKind::HexGen:
        return tables[3];
    case PlannerKind::Exhaustive:
        return tables[4];
    case PlannerKind::Megatron:
        break;
    }
    return {};
}

std::string parameterRangeText(const ParameterSpec &spec)
{
    switch (spec.type) {
    case ParameterType::Switch:
        return "0 or 1";
    case ParameterType::Integer:
        return "a whole number in [" + number(spec.min) + ", " + number(spec.max) + "]";
    case ParameterType::Real:
        break;
    }
    return "a number in [" + number(spec.min) + ", " + number(spec.max) + "]";
}

Result<double> plannerParameter(const PlannerParameters &parameters, PlannerKind kind,
                                std::string_view name)
{
    return withTable(parameters, kind, [&](const auto &settings, auto fields) -> Result<double> {
        for (const auto &field : fields)
            if (field.name == name)
                return read(settings, field);
        return unknownParameter(kind, name);
    });
}

Status checkPlannerParameters(const PlannerParameters &parameters, PlannerKind kind)
{
    for (const ParameterSpec &spec : plannerParameters(kind))
        if (Status valid
            = checkValue(kind, spec, plannerParameter(parameters, kind, spec.name).value());
            !valid)
            return valid;
    return okStatus();
}

Status setPlannerParameter(PlannerParameters &parameters, PlannerKind kind, std::string_view name,
                           double value)
{
    const std::span<const ParameterSpec> specs = plannerParameters(kind);
    for (std::size_t i = 0; i < specs.size(); ++i) {
        const ParameterSpec &spec = specs[i];
        if (spec.name != name)
            continue;
        if (Status valid = checkValue(kind, spec, value); !valid)
            return valid;
        return withTable(parameters, kind, [&](auto &settings, auto fields) -> Status {
            write(settings, fields[i], value);
            return okStatus();
        });
    }
    return unknownParameter(kind, name);
}

Status setPlannerParameters(PlannerParameters &parameters, PlannerKind kind, std::string_view text)
{
    bool any = false;
    while (!text.empty()) {
        const std::size_t comma = text.find(',');
        const std::string_view item = text.substr(0, comma);
        text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
        const std::size_t equals = item.find('=');
        double value = 0;
        const char *end = item.data() + item.size();
        const auto parsed = equals == std::string_view::npos
                                ? std::from_chars_result{end, std::errc::invalid_argument}
                                : std::from_chars(item.data() + equals + 1, end, value);
        if (equals == 0 || equals == std::string_view::npos || parsed.ec != std::errc()
            || parsed.ptr != end)
            return badInput("--knob: expected name=number pairs separated by commas, e.g. "
                            "alpha=1.05; got '"
                            + std::string(item) + "'; " + std::string(plannerName(kind))
                            + " takes: " + namesOf(kind));
        if (Status set = setPlannerParameter(parameters, kind, item.substr(0, equals), value); !set)
            return set;
        any = true;
    }
    if (!any)
        return badInput("--knob: expected name=number; " + std::string(plannerName(kind))
                        + " takes: " + namesOf(kind));
    return okStatus();
}

std::string describeParameters(const PlannerParameters &parameters, PlannerKind kind)
{
    std::string text;
    for (const ParameterSpec &spec : plannerParameters(kind))
        text += " " + std::string(spec.name) + "="
                + number(plannerParameter(parameters, kind, spec.name).value());
    return text;
}

std::string parameterHelp(PlannerKind kind, std::string_view indent)
{
    std::string text;
    for (const ParameterSpec &spec : plannerParameters(kind)) {
        std::string line
            = std::string(indent) + std::string(spec.name) + "=" + number(spec.defaultValue);
        line.resize(std::max(line.size() + 1, indent.size() + 28), ' ');
        text += line + std::string(spec.doc) + " (" + parameterRangeText(spec) + ")\n";
    }
    return text;
}

} // namespace hetplan
