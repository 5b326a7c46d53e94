// Prediction intervals: per phase from the source of its figures, combined into the iteration's
// (docs/cost-models.md, "Prediction intervals").
#include "core/cost/prediction_interval.h"

#include "core/cost/layer_table.h"
#include "core/plan/transport.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string_view>
#include <tuple>
#include <vector>

namespace hetplan {

namespace {

// A calibrated figure still misses a plan it never saw by more than its own residuals: about
// 10 % at 90 % (docs/cost-models.md, "Prediction intervals").
const double kHeldOutSigma = std::log(1.10) / kInterval90Z;

std::string_view linkName(LinkKind kind)
{
    return nameOf<LinkKind>(kLinkKindNames, kind);
}

FigureSource sourceOf(MeasuredBy by)
{
    switch (by) {
    case MeasuredBy::Probe:
        return FigureSource::Probe;
    case MeasuredBy::NcclTests:
        return FigureSource::NcclTests;
    case MeasuredBy::Calibration:
        return FigureSource::Calibrated;
    case MeasuredBy::Unspecified:
        break;
    }
    return FigureSource::Imported;
}

// A stage's first GPU and one of its gradient group's other members: the next replica inside the
// stage, else the first GPU of another pipeline's stage holding its first layer.
std::optional<std::pair<int, int>> dpPair(const Plan &plan, int pipeline, int stage)
{
    const Stage &s = plan.pipelines[size_t(pipeline)].stages[size_t(stage)];
    if (s.dp > 1 && s.gpus.size() > size_t(s.tp))
        return std::pair{s.gpus.front(), s.gpus[size_t(s.tp)]};
    for (size_t p = 0; p < plan.pipelines.size(); ++p) {
        if (int(p) == pipeline)
            continue;
        for (const Stage &other : plan.pipelines[p].stages)
            if (other.layerBegin <= s.layerBegin && s.layerBegin < other.layerEnd
                && !other.gpus.empty())
                return std::pair{s.gpus.front(), other.gpus.front()};
    }
    return std::nullopt;
}

// The GPU pair a stage's `phase` travels between, with the path its transport allows.
std::optional<std::tuple<int, int, PathKind>> commPair(const PlanPaths &paths, const Plan &plan,
                                                       int pipeline, int stage, Phase phase)
{
    const Pipeline &line = plan.pipelines[size_t(pipeline)];
    const Stage &s = line.stages[size_t(stage)];
    if (s.gpus.empty())
        return std::nullopt;
    switch (phase) {
    case Phase::TpComm:
        if (s.tp > 1 && s.gpus.size() > 1)
            return std::tuple{s.gpus[0], s.gpus[1], paths.tp(s)};
        break;
    case Phase::PpComm:
        if (size_t(stage) + 1 < line.stages.size() && !line.stages[size_t(stage) + 1].gpus.empty())
            return std::tuple{s.gpus[0], line.stages[size_t(stage) + 1].gpus[0], paths.hop(s)};
        if (stage > 0 && !line.stages[size_t(stage) - 1].gpus.empty()) {
            const Stage &previous = line.stages[size_t(stage) - 1];
            return std::tuple{previous.gpus[0], s.gpus[0], paths.hop(previous)};
        }
        break;
    case Phase::DpComm:
        if (const auto pair = dpPair(plan, pipeline, stage))
            return std::tuple{pair->first, pair->second, paths.dp(s)};
        break;
    default:
        break;
    }
    return std::nullopt;
}

PhaseScope scopeOf(const Topology &topology, const PlanPaths &paths, const Plan &plan, int pipeline,
                   int stage, Phase phase)
{
    const Stage &s = plan.pipelines[size_t(pipeline)].stages[size_t(stage)];
    if (phase == Phase::Compute && !s.gpus.empty())
        return {topology.gpuType(s.gpus.front()).name, std::nullopt};
    if (const auto pair = commPair(paths, plan, pipeline, stage, phase))
        return {{}, topology.pairKind(std::get<0>(*pair), std::get<1>(*pair), std::get<2>(*pair))};
    return {};
}

// Where the figures of a cluster come from, looked up by what a phase runs on.
class Sources
{
public:
    explicit Sources(const Topology &topology)
        : m_topology(topology)
    {}

    FigureSource gpuType(const std::string &name)
    {
        const auto [it, added] = m_types.try_emplace(name, FigureSource::Catalog);
        if (added)
            it->second = best("/gpu_types/" + name + "/", [](std::string_view) { return true; });
        return it->second;
    }

    FigureSource pair(int a, int b, LinkKind kind)
    {
        const auto [it, added] = m_pairs.try_emplace({a, b, kind}, FigureSource::Catalog);
        if (added)
            it->second = lookUpPair(a, b, kind);
        return it->second;
    }

private:
    // A pair's link figures: its machine's intra link, or a pair override, or a link touching
    // either machine; a calibrated transport of its kind wins.
    FigureSource lookUpPair(int a, int b, LinkKind kind) const
    {
        const FigureSource transport = best("/transports/" + std::string(linkName(kind)) + "/",
                                            [](std::string_view) { return true; });
        if (transport == FigureSource::Calibrated)
            return transport;
        const GpuInfo &ga = m_topology.gpu(a);
        const GpuInfo &gb = m_topology.gpu(b);
        const std::string &ma = m_topology.cluster().machines[size_t(ga.machine)].name;
        const std::string &mb = m_topology.cluster().machines[size_t(gb.machine)].name;
        FigureSource source = transport;
        if (ga.machine == gb.machine)
            return std::max(
                source, best("/machines/" + ma + "/intra/", [](std::string_view) { return true; }));
        const auto names = [](std::string_view rest, const std::string &x, const std::string &y) {
            return rest.starts_with(x + "/" + y + "/") || rest.starts_with(y + "/" + x + "/");
        };
        source = std::max(source, best("/pair_overrides/", [&](std::string_view rest) {
                              return names(rest, ga.name, gb.name);
                          }));
        source = std::max(source, best("/links/", [&](std::string_view rest) {
                              return rest.starts_with(ma + "/") || rest.starts_with(mb + "/")
                                     || rest.find("/" + ma + "/") != std::string_view::npos
                                     || rest.find("/" + mb + "/") != std::string_view::npos;
                          }));
        return source;
    }

    template<typename Match>
    FigureSource best(const std::string &prefix, Match match) const
    {
        FigureSource source = FigureSource::Catalog;
        for (const MeasuredFigure &f : m_topology.cluster().origin.figures)
            if (f.field.starts_with(prefix)
                && match(std::string_view(f.field).substr(prefix.size())))
                source = std::max(source, sourceOf(f.by));
        return source;
    }

    const Topology &m_topology;
    // Looked up once per evaluation: a plan's stages share few types and pairs.
    std::map<std::string, FigureSource> m_types;
    std::map<std::tuple<int, int, LinkKind>, FigureSource> m_pairs;
};

// One phase's share of a time: its seconds and half-width, and which figure it rests on; parts
// on the same figure err together.
struct Part
{
    Phase phase = Phase::Compute;
    double timeS = 0;
    double halfWidth = 0;
    std::string figure; // "gpu RTX4090", "link ethernet"
};

// Parts on one figure add up (fully correlated), figures add in quadrature (independent).
TimeInterval combine(double centreS, const std::vector<const Part *> &parts)
{
    std::map<std::string, std::pair<double, double>> byFigure; // up, down seconds
    for (const Part *p : parts) {
        auto &[up, down] = byFigure[p->figure];
        up += p->timeS * p->halfWidth;
        down += p->timeS * p->halfWidth / (1 + p->halfWidth);
    }
    double up2 = 0;
    double down2 = 0;
    for (const auto &[figure, deviation] : byFigure) {
        up2 += deviation.first * deviation.first;
        down2 += deviation.second * deviation.second;
    }
    return {std::max(centreS - std::sqrt(down2), 0.0), centreS + std::sqrt(up2)};
}

class IntervalBuilder
{
public:
    IntervalBuilder(const Problem &problem, const Plan &plan)
        : m_problem(problem)
        , m_topology(problem.topology)
        , m_plan(plan)
        , m_paths(problem.topology, plan)
        , m_sources(problem.topology)
    {}

    // The part of `timeS` seconds of stage (p, j)'s `phase`; the bubble rests on the stage's
    // compute figure (it is the other stages' work).
    Part part(int p, int j, Phase phase, double timeS)
    {
        const Stage &stage = m_plan.pipelines[size_t(p)].stages[size_t(j)];
        Part out{phase, timeS, 0, {}};
        const PhaseScope scope = scopeOf(m_topology, m_paths, m_plan, p, j, phase);
        FigureSource source = FigureSource::Catalog;
        if (phase == Phase::Compute || phase == Phase::Bubble) {
            const GpuType &type = m_topology.gpuType(stage.gpus.front());
            source = m_sources.gpuType(type.name);
            // A compute resting on a measured layer table is the probe's figure.
            if (matchingLayerTable(type, m_problem.model, m_problem.workload.train.seqLen,
                                   std::max(stage.tp, 1)))
                source = std::max(source, FigureSource::Probe);
            out.figure = "gpu " + type.name;
        } else if (scope.linkKind) {
            const auto pair = commPair(m_paths, m_plan, p, j, phase);
            source = m_sources.pair(std::get<0>(*pair), std::get<1>(*pair), *scope.linkKind);
            out.figure = "link " + std::string(linkName(*scope.linkKind));
        }
        out.halfWidth = halfWidth(source, phase, scope);
        return out;
    }

    // Every GPU type and link class the plan uses that only catalog figures describe.
    void noteExtrapolation(PredictionInterval &out)
    {
        std::set<std::string> types;
        std::set<std::string> links;
        for (size_t p = 0; p < m_plan.pipelines.size(); ++p)
            for (size_t j = 0; j < m_plan.pipelines[p].stages.size(); ++j) {
                const Stage &stage = m_plan.pipelines[p].stages[j];
                if (stage.gpus.empty())
                    continue;
                const std::string type = m_topology.gpuType(stage.gpus.front()).name;
                if (m_sources.gpuType(type) == FigureSource::Catalog)
                    types.insert(type);
                for (Phase phase : {Phase::TpComm, Phase::PpComm, Phase::DpComm}) {
                    const auto pair = commPair(m_paths, m_plan, int(p), int(j), phase);
                    if (!pair)
                        continue;
                    const auto [a, b, path] = *pair;
                    const LinkKind kind = m_topology.pairKind(a, b, path);
                    if (m_sources.pair(a, b, kind) == FigureSource::Catalog)
                        links.insert(std::string(linkName(kind)));
                }
            }
        out.extrapolatedGpuTypes.assign(types.begin(), types.end());
        out.extrapolatedLinks.assign(links.begin(), links.end());
    }

private:
    double halfWidth(FigureSource source, Phase phase, const PhaseScope &scope) const
    {
        if (source == FigureSource::Calibrated) {
            const std::string_view name = phaseName(phase);
            for (const CalibrationResidual &r : m_topology.cluster().origin.residuals)
                if (r.phase == name && r.linkKind == scope.linkKind
                    && (phase != Phase::Compute || r.gpuType == scope.gpuType))
                    return residualHalfWidth(r);
        }
        return defaultHalfWidth(source, phase, scope.linkKind);
    }

    const Problem &m_problem;
    const Topology &m_topology;
    const Plan &m_plan;
    PlanPaths m_paths;
    Sources m_sources;
};

TimeInterval PredictionInterval::*phaseMember(Phase phase)
{
    switch (phase) {
    case Phase::Compute:
        return &PredictionInterval::computeS;
    case Phase::TpComm:
        return &PredictionInterval::tpCommS;
    case Phase::PpComm:
    case Phase::HopInPrev: // a rank's hops are parts of its pp_comm (core/cost/rank_phases.h)
    case Phase::HopOutPrev:
    case Phase::HopInNext:
    case Phase::HopOutNext:
        return &PredictionInterval::ppCommS;
    case Phase::DpComm:
        return &PredictionInterval::dpCommS;
    case Phase::Bubble:
    case Phase::Iteration:
        break;
    }
    return &PredictionInterval::bubbleS;
}

// Each phase's interval from its parts, and the whole from all of them.
void fillPhases(PredictionInterval &out, const Breakdown &breakdown, double totalS,
                const std::vector<Part> &parts)
{
    std::vector<const Part *> all;
    all.reserve(parts.size());
    for (const Part &p : parts)
        all.push_back(&p);
    out.iteration = combine(totalS, all);
    for (Phase phase : kBreakdownPhases) {
        std::vector<const Part *> mine;
        for (const Part &p : parts)
            if (p.phase == phase)
                mine.push_back(&p);
        out.*phaseMember(phase) = combine(breakdown.*phaseField(phase), mine);
    }
}

// Index of the first largest value, as the cost model picks its critical pipeline and stage.
template<typename T, typename Time>
size_t slowest(const std::vector<T> &items, Time time)
{
    size_t index = 0;
    for (size_t i = 1; i < items.size(); ++i)
        if (time(items[i]) > time(items[index]))
            index = i;
    return index;
}

} // namespace

PhaseScope phaseScope(const Topology &topology, const Plan &plan, int pipeline, int stage,
                      Phase phase)
{
    return scopeOf(topology, PlanPaths(topology, plan), plan, pipeline, stage, phase);
}

double defaultHalfWidth(FigureSource source, Phase phase, std::optional<LinkKind> link)
{
    // docs/cost-models.md, "Prediction intervals": the table and the reason for each figure.
    if (phase == Phase::Bubble) {
        switch (source) {
        case FigureSource::Catalog:
            return 1.0;
        case FigureSource::Calibrated:
            return 0.3;
        default:
            return 0.6;
        }
    }
    if (phase == Phase::Compute) {
        switch (source) {
        case FigureSource::Catalog:
            return 1.0;
        case FigureSource::Probe:
            return 0.5;
        case FigureSource::Calibrated:
            return 0.15;
        default:
            return 0.4;
        }
    }
    double h = 0.4;
    switch (source) {
    case FigureSource::Catalog:
        switch (link.value_or(LinkKind::Ethernet)) {
        case LinkKind::NvLink:
            h = 0.3;
            break;
        case LinkKind::Pcie:
        case LinkKind::InfiniBand:
            h = 0.5;
            break;
        case LinkKind::Ethernet:
            h = 1.0;
            break;
        case LinkKind::Roce:
            h = 1.5;
            break;
        }
        break;
    case FigureSource::Probe:
        h = 0.35;
        break;
    case FigureSource::NcclTests:
        return 0.2;
    case FigureSource::Calibrated:
        return 0.15;
    case FigureSource::Imported:
        break;
    }
    // A gradient all-reduce across machines adds the ring-scale loss that point-to-point
    // figures do not see.
    return phase == Phase::DpComm ? h * 1.5 : h;
}

double residualHalfWidth(const CalibrationResidual &residual)
{
    const double sigma = std::hypot(residual.rmsLogError, kHeldOutSigma);
    return std::exp(kInterval90Z * sigma) - 1;
}

std::optional<PredictionInterval> predictionInterval(const Problem &problem, const Plan &plan,
                                                     const Evaluation &evaluation)
{
    if (!evaluation.valid || !std::isfinite(evaluation.iterationS) || plan.pipelines.empty()
        || evaluation.pipelines.size() != plan.pipelines.size())
        return std::nullopt;
    for (size_t p = 0; p < plan.pipelines.size(); ++p)
        if (evaluation.pipelines[p].stages.size() != plan.pipelines[p].stages.size())
            return std::nullopt;
    IntervalBuilder builder(problem, plan);
    PredictionInterval out;
    builder.noteExtrapolation(out);
    const auto timeOf = [](const PipelineTiming &t) { return t.timeS; };

    if (problem.workload.mode == Mode::Train) {
        const int p = int(slowest(evaluation.pipelines, timeOf));
        const PipelineTiming &critical = evaluation.pipelines[size_t(p)];
        const int j
            = int(slowest(critical.stages, [](const StageTiming &s) { return s.totalS(); }));
        const StageTiming &bottleneck = critical.stages[size_t(j)];
        const double m = std::max(plan.pipelines[size_t(p)].microBatches, 1);
        std::vector<Part> parts{builder.part(p, j, Phase::Compute, m * bottleneck.computeS),
                                builder.part(p, j, Phase::TpComm, m * bottleneck.tpCommS),
                                builder.part(p, j, Phase::PpComm, m * bottleneck.hopS),
                                builder.part(p, j, Phase::Bubble, evaluation.breakdown.bubbleS)};
        // The gradient synchronisation rests on the figure of its slowest stage's group.
        int dpPipeline = 0;
        int dpStage = 0;
        double dpMaxS = -1;
        for (size_t q = 0; q < evaluation.pipelines.size(); ++q)
            for (size_t k = 0; k < evaluation.pipelines[q].stages.size(); ++k)
                if (evaluation.pipelines[q].stages[k].dpCommS > dpMaxS) {
                    dpMaxS = evaluation.pipelines[q].stages[k].dpCommS;
                    dpPipeline = int(q);
                    dpStage = int(k);
                }
        parts.push_back(
            builder.part(dpPipeline, dpStage, Phase::DpComm, evaluation.breakdown.dpCommS));
        fillPhases(out, evaluation.breakdown, evaluation.iterationS, parts);
        return out;
    }

    // Inference: a replica's latency is the sum over its stages (HexGen §4.2).
    const size_t critical = slowest(evaluation.pipelines, timeOf);
    for (size_t p = 0; p < evaluation.pipelines.size(); ++p) {
        std::vector<Part> parts;
        const PipelineTiming &timing = evaluation.pipelines[p];
        for (size_t j = 0; j < timing.stages.size(); ++j) {
            const StageTiming &s = timing.stages[j];
            parts.push_back(builder.part(int(p), int(j), Phase::Compute, s.computeS));
            parts.push_back(builder.part(int(p), int(j), Phase::TpComm, s.tpCommS));
            parts.push_back(builder.part(int(p), int(j), Phase::PpComm, s.hopS));
        }
        PredictionInterval replica;
        fillPhases(replica, timing.breakdown, timing.timeS, parts);
        out.replicaLatency.push_back(replica.iteration);
        if (p == critical) {
            out.iteration = replica.iteration;
            for (Phase phase : kBreakdownPhases)
                out.*phaseMember(phase) = replica.*phaseMember(phase);
        }
    }
    return out;
}

const TimeInterval &phaseInterval(const PredictionInterval &interval, Phase phase)
{
    return interval.*phaseMember(phase);
}

double rankingS(const Evaluation &evaluation, RankBy rankBy)
{
    const double objectiveS = evaluation.objectiveS();
    if (rankBy == RankBy::Mean || !evaluation.interval || !std::isfinite(objectiveS))
        return objectiveS;
    const double upS = evaluation.interval->iteration.hiS - evaluation.iterationS;
    return objectiveS + upS * kPercentile90Z / kInterval90Z;
}

} // namespace hetplan
