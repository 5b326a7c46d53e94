// Plan → per-rank programs (docs/runtime-program.md). Refusals come first, so nothing is built
// for a plan that cannot run; then ranks, TP groups, hops, the 1F1B schedules and the gradient
// groups, in the order every rank creates the groups.
#include "runtime/program/compile.h"

#include "core/cost/problem.h"
#include "core/cost/validator.h"
#include "core/model/model_spec.h"
#include "core/model/topology.h"
#include "runtime/program/layout.h"

#include <algorithm>
#include <string>

namespace hetplan::runtime {

namespace {

std::string str(int value)
{
    return std::to_string(value);
}

std::string where(int p, int s)
{
    return "pipeline " + str(p) + ", stage " + str(s) + ": ";
}

// Sequences per iteration the runtime indexes; far beyond any real global batch.
constexpr long long kMaxGlobalBatch = 1LL << 30;

// The model sizes a TP degree must divide, after --scale.
struct ModelCuts
{
    int heads = 1;
    int kvHeads = 1;
    int ffnHidden = 1;
};

Result<ModelCuts> modelCuts(const ModelSpec &model, int scale)
{
    if (scale < 1)
        return badInput("scale is " + str(scale) + "; it must be 1 or more");
    if (model.heads < 1 || model.kvHeads < 1 || model.ffnHidden < 1)
        return badInput("model '" + model.name
                        + "': heads, kv_heads and ffn_hidden must be 1 or "
                          "more to cut it by tensor parallelism");
    if (model.ffnHidden % scale != 0)
        return badInput("model '" + model.name + "': scale " + str(scale)
                        + " does not divide ffn_hidden " + str(model.ffnHidden));
    return ModelCuts{model.heads, model.kvHeads, model.ffnHidden / scale};
}

// Why a TP degree cannot cut the model, or empty.
std::string tpCutProblem(const ModelCuts &cuts, int tp)
{
    if (cuts.heads % tp != 0)
        return "TP " + str(tp) + " does not divide the model's " + str(cuts.heads) + " heads";
    if (cuts.kvHeads % tp != 0)
        return "TP " + str(tp) + " does not divide the model's " + str(cuts.kvHeads) + " kv_heads";
    if (cuts.ffnHidden % tp != 0)
        return "TP " + str(tp) + " does not divide the FFN width " + str(cuts.ffnHidden);
    return {};
}

Status refuse(const Plan &plan, const ModelSpec &model, const Topology &topology,
              const ModelCuts &cuts)
{
    // Sample indices are ints: the pipelines' rows must add up within that range.
    long long rows = 0;
    for (size_t p = 0; p < plan.pipelines.size(); ++p) {
        rows += static_cast<long long>(plan.pipelines[p].microBatch)
                * plan.pipelines[p].microBatches;
        if (rows > kMaxGlobalBatch)
            return badInput("pipeline " + str(int(p))
                            + ": micro_batch × micro_batches brings "
                              "the global batch past "
                            + std::to_string(kMaxGlobalBatch) + " sequences");
    }
    const Problem problem{topology, model, plan.workload};
    const std::vector<PlanIssue> issues = validatePlan(problem, plan);
    if (!issues.empty()) {
        std::string message = issues.front().message;
        if (issues.size() > 1)
            message += " (and " + str(static_cast<int>(issues.size()) - 1) + " more)";
        return badInput(message);
    }
    for (size_t p = 0; p < plan.pipelines.size(); ++p)
        for (size_t s = 0; s < plan.pipelines[p].stages.size(); ++s) {
            const std::string why = tpCutProblem(cuts, plan.pipelines[p].stages[s].tp);
            if (!why.empty())
                return badInput(where(int(p), int(s)) + why + "; the runtime cannot shard it");
        }
    return okStatus();
}

// Rows of each micro-batch per DP replica of a stage: dp_split, or an even split.
std::vector<int> replicaRows(const Stage &stage, int microBatch)
{
    if (!stage.dpSplit.empty())
        return stage.dpSplit;
    return std::vector<int>(static_cast<size_t>(stage.dp), microBatch / stage.dp);
}

void addRanks(const Plan &plan, const Topology &topology, Layout &layout, JobProgram &program)
{
    int sampleBegin = 0;
    for (int p = 0; p < static_cast<int>(plan.pipelines.size()); ++p) {
        const Pipeline &pipe = plan.pipelines[static_cast<size_t>(p)];
        const int stageCount = static_cast<int>(pipe.stages.size());
        const int rows = pipe.microBatch * pipe.microBatches;
        program.pipelines.push_back(
            {{sampleBegin, sampleBegin + rows}, pipe.microBatch, pipe.microBatches, stageCount});
        sampleBegin += rows;
        layout.firstReplica.emplace_back();
        layout.replicaCount.emplace_back();
        for (int s = 0; s < stageCount; ++s) {
            const Stage &stage = pipe.stages[static_cast<size_t>(s)];
            layout.firstReplica.back().push_back(static_cast<int>(layout.replicas.size()));
            layout.replicaCount.back().push_back(stage.dp);
            const std::vector<int> shares = replicaRows(stage, pipe.microBatch);
            int rowOffset = 0;
            for (int r = 0; r < stage.dp; ++r) {
                StageReplica replica{p,
                                     s,
                                     r,
                                     static_cast<int>(program.ranks.size()),
                                     stage.tp,
                                     stage.layerBegin,
                                     stage.layerEnd,
                                     rowOffset,
                                     shares[static_cast<size_t>(r)]};
                rowOffset += replica.rowCount;
                for (int t = 0; t < stage.tp; ++t) {
                    const int gpu = stage.gpus[static_cast<size_t>(r * stage.tp + t)];
                    const GpuInfo &info = topology.gpu(gpu);
                    const Machine &machine
                        = topology.cluster().machines[static_cast<size_t>(info.machine)];
                    Rank rank;
                    rank.rank = static_cast<int>(program.ranks.size());
                    rank.gpu = gpu;
                    rank.gpuName = info.name;
                    rank.machine = machine.name;
                    rank.host = machine.host;
                    rank.pipeline = p;
                    rank.stage = s;
                    rank.replica = r;
                    rank.tpIndex = t;
                    rank.tpDegree = stage.tp;
                    rank.layerBegin = stage.layerBegin;
                    rank.layerEnd = stage.layerEnd;
                    rank.embedding = s == 0;
                    rank.head = s == stageCount - 1;
                    rank.rowOffset = replica.rowOffset;
                    rank.rowCount = replica.rowCount;
                    program.ranks.push_back(std::move(rank));
                }
                layout.replicas.push_back(replica);
            }
        }
    }
}

void addTpGroups(const Plan &plan, Layout &layout, JobProgram &program)
{
    for (StageReplica &replica : layout.replicas) {
        if (replica.tpDegree < 2)
            continue;
        replica.tpGroup = static_cast<int>(program.groups.size());
        Group group;
        group.key = "tp/p" + str(replica.pipeline) + "/s" + str(replica.stage) + "/r"
                    + str(replica.replica);
        group.kind = GroupKind::TensorParallel;
        for (int t = 0; t < replica.tpDegree; ++t) {
            group.members.push_back(replica.firstRank + t);
            program.ranks[static_cast<size_t>(replica.firstRank + t)].tpGroup = replica.tpGroup;
        }
        group.transport = plan.pipelines[static_cast<size_t>(replica.pipeline)]
                              .stages[static_cast<size_t>(replica.stage)]
                              .transport.tp;
        program.groups.push_back(std::move(group));
    }
}

// HexiScale §3.2: leader to leader. Into or out of a dp > 1 stage, each pair of replicas whose
// rows of a micro-batch overlap gets its own hop, which carries exactly the overlap.
void addHops(const Plan &plan, Layout &layout, JobProgram &program)
{
    for (int p = 0; p < static_cast<int>(plan.pipelines.size()); ++p) {
        const Pipeline &pipe = plan.pipelines[static_cast<size_t>(p)];
        for (int s = 0; s + 1 < static_cast<int>(pipe.stages.size()); ++s) {
            const int upCount = layout.replicaCount[size_t(p)][size_t(s)];
            const int downCount = layout.replicaCount[size_t(p)][size_t(s + 1)];
            for (int i = 0; i < upCount; ++i)
                for (int j = 0; j < downCount; ++j) {
                    const StageReplica &up = layout.replica(p, s, i);
                    const StageReplica &down = layout.replica(p, s + 1, j);
                    const int begin = std::max(up.rowOffset, down.rowOffset);
                    const int end
                        = std::min(up.rowOffset + up.rowCount, down.rowOffset + down.rowCount);
                    if (end <= begin)
                        continue;
                    const int group = static_cast<int>(program.groups.size());
                    layout.hops.push_back({group, layout.firstReplica[size_t(p)][size_t(s)] + i,
                                           layout.firstReplica[size_t(p)][size_t(s + 1)] + j, begin,
                                           end - begin});
                    program.groups.push_back({"hop/p" + str(p) + "/s" + str(s) + "-s" + str(s + 1)
                                                  + "/r" + str(i) + "-r" + str(j),
                                              GroupKind::Hop,
                                              {up.leader(), down.leader()},
                                              pipe.stages[static_cast<size_t>(s)].transport.pp});
                }
        }
    }
}

// A whole job's programs must fit in memory; one rank's always does.
Status fitsInMemory(const Layout &layout, const std::vector<std::vector<Op>> &syncs,
                    const ProgramOptions &options, const JobProgram &program)
{
    const int ranks = static_cast<int>(program.ranks.size());
    if (options.rank) {
        if (*options.rank < 0 || *options.rank >= ranks)
            return badInput("rank " + str(*options.rank) + " is not in the plan; its ranks are 0.."
                            + str(ranks - 1));
        return okStatus();
    }
    long long ops = 0;
    for (const StageReplica &replica : layout.replicas)
        for (int t = 0; t < replica.tpDegree; ++t)
            ops += scheduleOpBound(program, replica)
                   + static_cast<long long>(syncs[size_t(replica.firstRank + t)].size()) + 1;
    if (ops > kMaxProgramOps)
        return Error{ErrorKind::Unsupported,
                     "the plan's " + str(ranks) + " ranks would run up to " + std::to_string(ops)
                         + " ops per iteration, more than the " + std::to_string(kMaxProgramOps)
                         + " a whole job's programs may hold; compile one rank at a time"};
    return okStatus();
}

} // namespace

Result<JobProgram> compileProgram(const Plan &plan, const ModelSpec &model,
                                  const Topology &topology, const ProgramOptions &options)
{
    const Result<ModelCuts> cuts = modelCuts(model, options.scale);
    if (!cuts)
        return cuts.error();
    if (Status refused = refuse(plan, model, topology, *cuts); !refused)
        return refused.error();

    JobProgram program;
    program.globalBatch = plan.workload.train.globalBatch;
    program.seqLen = plan.workload.train.seqLen;
    program.layers = model.layers;
    Layout layout;
    addRanks(plan, topology, layout, program);
    addTpGroups(plan, layout, program);
    addHops(plan, layout, program);
    std::vector<std::vector<Op>> syncs(program.ranks.size());
    addGradientSync(layout, plan, program, syncs);
    if (Status fits = fitsInMemory(layout, syncs, options, program); !fits)
        return fits.error();
    program.programs.resize(program.ranks.size());
    emitPrograms(layout, std::move(syncs), options.rank, program);
    return program;
}

} // namespace hetplan::runtime
