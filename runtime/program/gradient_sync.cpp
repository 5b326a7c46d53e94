// Asymmetric data-parallel gradient sync (HexiScale §3.2): pipelines may cut the layers at
// different places and shard them with different TP degrees. For every run of consecutive
// layers held by the same stage replicas ("holders"), one group per gradient slice of the
// TP-split weights and one group for the replicated weights (the same one when no holder uses
// TP). Every holder is padded to the
// least common multiple T of the holders' TP degrees: slice k of T is held by the rank of TP
// index k·t/T of a holder of degree t. T divides the heads, kv_heads and FFN width because every
// holder's degree does (compileProgram refuses a degree that does not), so slices always align.
#include "runtime/program/layout.h"

#include <cassert>
#include <numeric>
#include <string>

namespace hetplan::runtime {

namespace {

struct Run
{
    int layerBegin = 0;
    int layerEnd = 0;
    std::vector<int> holders; // indices into Layout::replicas, in rank order
};

// The runs: cut at every stage boundary of every pipeline.
std::vector<Run> layerRuns(const Layout &layout, const Plan &plan, int layers)
{
    std::vector<char> cut(static_cast<size_t>(layers) + 1, 0);
    for (const Pipeline &pipe : plan.pipelines)
        for (const Stage &stage : pipe.stages)
            cut[static_cast<size_t>(stage.layerBegin)] = 1;
    cut[static_cast<size_t>(layers)] = 1;
    std::vector<Run> runs;
    for (int begin = 0; begin < layers;) {
        int end = begin + 1;
        while (!cut[static_cast<size_t>(end)])
            ++end;
        runs.push_back({begin, end, {}});
        begin = end;
    }
    for (int i = 0; i < static_cast<int>(layout.replicas.size()); ++i)
        for (Run &run : runs) {
            const StageReplica &replica = layout.replicas[static_cast<size_t>(i)];
            if (replica.layerBegin <= run.layerBegin && run.layerEnd <= replica.layerEnd)
                run.holders.push_back(i);
        }
    return runs;
}

class GradientGroups
{
public:
    GradientGroups(const Layout &layout, const Plan &plan, JobProgram &program,
                   std::vector<std::vector<Op>> &syncs)
        : m_layout(layout)
        , m_plan(plan)
        , m_program(program)
        , m_syncs(syncs)
    {}

    void add(const Run &run)
    {
        // One holder has the whole batch's gradient already: nothing to sync.
        if (run.holders.size() < 2)
            return;
        int slices = 1;
        for (int h : run.holders)
            slices = std::lcm(slices, holder(h).tpDegree);
        const std::string layers
            = "dp/l" + std::to_string(run.layerBegin) + "-" + std::to_string(run.layerEnd - 1);
        GradSync replicated{};
        replicated.params = ParamSet::Replicated;
        replicated.embedding = run.layerBegin == 0;
        replicated.head = run.layerEnd == m_program.layers;
        std::vector<std::pair<int, GradSync>> members;
        for (int k = 0; k < slices; ++k) {
            GradSync sync{};
            sync.params = ParamSet::TpSlice;
            sync.slice = k;
            sync.sliceCount = slices;
            for (int h : run.holders) {
                const StageReplica &r = holder(h);
                members.emplace_back(r.firstRank + k * r.tpDegree / slices, sync);
                // Without TP the replicated weights have the same holders: one communicator.
                if (slices == 1)
                    members.emplace_back(r.firstRank, replicated);
            }
            if (slices == 1)
                return addGroup(run, layers + "/all", std::move(members));
            addGroup(run, layers + "/slice" + std::to_string(k) + "of" + std::to_string(slices),
                     std::move(members));
            members.clear();
        }
        for (int h : run.holders)
            for (int t = 0; t < holder(h).tpDegree; ++t) {
                replicated.tpCopies = holder(h).tpDegree;
                members.emplace_back(holder(h).firstRank + t, replicated);
            }
        addGroup(run, layers + "/replicated", std::move(members));
    }

private:
    const StageReplica &holder(int index) const
    {
        return m_layout.replicas[static_cast<size_t>(index)];
    }

    // The holder's rows per iteration over the global batch.
    double batchShare(const StageReplica &replica) const
    {
        const Pipeline &pipe = m_plan.pipelines[static_cast<size_t>(replica.pipeline)];
        return double(pipe.microBatches) * replica.rowCount / m_program.globalBatch;
    }

    // `members` by value: the callers move theirs in, and each entry is completed in place.
    void addGroup(const Run &run, std::string key,
                  std::vector<std::pair<int, GradSync>>
                      members) // NOLINT(performance-unnecessary-value-param)
    {
        const int group = static_cast<int>(m_program.groups.size());
        const StageReplica &first = holder(run.holders.front());
        Group g{std::move(key),
                GroupKind::Gradient,
                {},
                m_plan.pipelines[static_cast<size_t>(first.pipeline)]
                    .stages[static_cast<size_t>(first.stage)]
                    .transport.dp};
        for (auto &[rank, sync] : members) {
            const Rank &info = m_program.ranks[static_cast<size_t>(rank)];
            const StageReplica &replica = m_layout.replica(info.pipeline, info.stage, info.replica);
            assert(g.members.empty() || g.members.back() <= rank);
            if (g.members.empty() || g.members.back() != rank) // a rank may sync two sets
                g.members.push_back(rank);
            sync.group = group;
            sync.layerBegin = run.layerBegin;
            sync.layerEnd = run.layerEnd;
            sync.batchShare = batchShare(replica);
            sync.weight = sync.batchShare / sync.tpCopies;
            m_syncs[static_cast<size_t>(rank)].emplace_back(sync);
        }
        m_program.groups.push_back(std::move(g));
    }

    const Layout &m_layout;
    const Plan &m_plan;
    JobProgram &m_program;
    std::vector<std::vector<Op>> &m_syncs;
};

} // namespace

void addGradientSync(const Layout &layout, const Plan &plan, JobProgram &program,
                     std::vector<std::vector<Op>> &syncs)
{
    GradientGroups groups(layout, plan, program, syncs);
    for (const Run &run : layerRuns(layout, plan, program.layers))
        groups.add(run);
}

} // namespace hetplan::runtime
