// The plan rules of docs/formats.md ("Plan"), checked in the order a person would fix them:
// structure of each stage, layer coverage, GPU reuse, batch sizes, then what needs the
// cluster (connectivity) and the cost model (TP groups, memory).
#include "core/cost/validator.h"

#include "core/base/text.h"
#include "core/cost/cost_model.h"
#include "core/cost/problem.h"
#include "core/plan/plan.h"
#include "core/plan/transport.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace hetplan {

namespace {

std::string str(int value)
{
    return std::to_string(value);
}

// Layers [begin, end) as a person counts them: "layer 7" or "layers 24..27".
std::string layerRange(int begin, int end)
{
    if (end - begin == 1)
        return "layer " + str(begin);
    return "layers " + str(begin) + ".." + str(end - 1);
}

// One DP replica of a stage: its position and its tp consecutive GPUs.
struct Holder
{
    int pipeline;
    int stage;
    int replica;
    std::span<const int> gpus;
    int layerBegin;
    int layerEnd;
};

class Checker
{
public:
    Checker(const Problem &problem, const Plan &plan, const CostModel *costModel)
        : m_problem(problem)
        , m_plan(plan)
        , m_costModel(costModel)
    {}

    std::vector<PlanIssue> run()
    {
        if (m_plan.pipelines.empty()) {
            add(-1, -1, -1, "the plan has no pipelines");
            return std::move(m_issues);
        }
        for (int p = 0; p < pipelineCount(); ++p)
            checkPipeline(p);
        checkGpuReuse();
        if (m_problem.workload.mode == Mode::Train)
            checkGlobalBatch();
        // What follows reads GPU indices and DP replicas: only meaningful on a sound structure.
        if (!m_issues.empty())
            return std::move(m_issues);
        m_paths.emplace(m_problem.topology, m_plan);
        for (int p = 0; p < pipelineCount(); ++p)
            checkPipelineLinks(p);
        if (m_problem.workload.mode == Mode::Train) // serving replicas share no gradients
            checkGradientSync();
        if (m_costModel) {
            checkTpGroups();
            if (m_issues.empty())
                checkMemory();
        }
        return std::move(m_issues);
    }

private:
    int pipelineCount() const { return static_cast<int>(m_plan.pipelines.size()); }
    const Pipeline &pipeline(int p) const { return m_plan.pipelines[static_cast<size_t>(p)]; }
    const Stage &stage(int p, int s) const { return pipeline(p).stages[static_cast<size_t>(s)]; }
    const std::string &gpuName(int gpu) const { return m_problem.topology.gpu(gpu).name; }

    void add(int p, int s, int gpu, std::string message)
    {
        m_issues.push_back({p, s, gpu, std::move(message)});
    }

    static std::string where(int p, int s)
    {
        return "pipeline " + str(p) + (s >= 0 ? ", stage " + str(s) : std::string()) + ": ";
    }

    std::string gpuList(std::span<const int> gpus) const
    {
        std::string text;
        for (int gpu : gpus) {
            if (!text.empty())
                text += ", ";
            text += knownGpu(gpu) ? gpuName(gpu) : "#" + str(gpu);
        }
        return "(" + text + ")";
    }

    bool knownGpu(int gpu) const { return gpu >= 0 && gpu < m_problem.topology.gpuCount(); }

    static std::string transportText(const std::optional<Transport> &transport)
    {
        return transport ? std::string(transportName(*transport)) : std::string("none");
    }

    void checkPipeline(int p)
    {
        const Pipeline &pipe = pipeline(p);
        if (pipe.stages.empty()) {
            add(p, -1, -1, where(p, -1) + "no stages");
            return;
        }
        if (pipe.microBatch < 1)
            add(p, -1, -1,
                where(p, -1) + "micro_batch is " + str(pipe.microBatch)
                    + "; it must be at least 1");
        if (m_problem.workload.mode == Mode::Train && pipe.microBatches < 1)
            add(p, -1, -1,
                where(p, -1) + "micro_batches is " + str(pipe.microBatches)
                    + "; a training pipeline needs at least 1");
        for (int s = 0; s < static_cast<int>(pipe.stages.size()); ++s)
            checkStage(p, s);
        checkCoverage(p);
        if (const Stage &last = pipe.stages.back(); last.transport.pp)
            add(p, static_cast<int>(pipe.stages.size()) - 1, -1,
                where(p, static_cast<int>(pipe.stages.size()) - 1) + "transport.pp is "
                    + transportText(last.transport.pp)
                    + " but the last stage sends to no next stage; remove it");
    }

    void checkStage(int p, int s)
    {
        const Stage &st = stage(p, s);
        const int gpuCount = static_cast<int>(st.gpus.size());
        if (st.gpus.empty())
            add(p, s, -1, where(p, s) + "no GPUs");
        for (int gpu : st.gpus)
            if (!knownGpu(gpu))
                add(p, s, gpu,
                    where(p, s) + "GPU index " + str(gpu) + " does not exist (the cluster has "
                        + str(m_problem.topology.gpuCount()) + " GPUs, 0.."
                        + str(m_problem.topology.gpuCount() - 1) + ")");
        if (st.tp < 1)
            add(p, s, -1, where(p, s) + "tp is " + str(st.tp) + "; it must be at least 1");
        if (st.dp < 1)
            add(p, s, -1, where(p, s) + "dp is " + str(st.dp) + "; it must be at least 1");
        if (st.tp >= 1 && st.dp >= 1 && gpuCount > 0 && st.tp * st.dp != gpuCount)
            add(p, s, -1,
                where(p, s) + "tp × dp = " + str(st.tp * st.dp) + " but the stage has "
                    + str(gpuCount) + " GPUs " + gpuList(st.gpus));
        checkDpSplit(p, s);

        const int layers = m_problem.model.layers;
        if (st.layerEnd <= st.layerBegin)
            add(p, s, -1,
                where(p, s) + "no layers (range " + str(st.layerBegin) + ".." + str(st.layerEnd)
                    + " is empty)");
        else if (st.layerBegin < 0 || st.layerEnd > layers)
            add(p, s, -1,
                where(p, s) + "layers " + str(st.layerBegin) + ".." + str(st.layerEnd - 1)
                    + " go beyond the model's layers 0.." + str(layers - 1));
    }

    void checkDpSplit(int p, int s)
    {
        const Stage &st = stage(p, s);
        const int microBatch = pipeline(p).microBatch;
        if (st.dp < 1 || microBatch < 1)
            return;
        if (st.dpSplit.empty()) {
            if (microBatch % st.dp != 0)
                add(p, s, -1,
                    where(p, s) + "micro_batch " + str(microBatch)
                        + " does not split evenly over dp = " + str(st.dp) + "; give dp_split");
            return;
        }
        const int entries = static_cast<int>(st.dpSplit.size());
        if (entries != st.dp) {
            add(p, s, -1,
                where(p, s) + "dp_split has " + str(entries)
                    + (entries == 1 ? " entry" : " entries") + " but dp = " + str(st.dp));
            return;
        }
        for (size_t r = 0; r < st.dpSplit.size(); ++r)
            if (st.dpSplit[r] < 1) {
                add(p, s, -1,
                    where(p, s) + "dp_split[" + std::to_string(r) + "] is " + str(st.dpSplit[r])
                        + "; every DP replica needs at least 1 sequence");
                return;
            }
        const int sum = std::accumulate(st.dpSplit.begin(), st.dpSplit.end(), 0);
        if (sum != microBatch)
            add(p, s, -1,
                where(p, s) + "dp_split sums to " + str(sum) + " but micro_batch is "
                    + str(microBatch));
    }

    // Stages must cover [0, layers) in order: report gaps and overlaps between neighbours.
    void checkCoverage(int p)
    {
        const Pipeline &pipe = pipeline(p);
        const int layers = m_problem.model.layers;
        int coveredEnd = 0; // layers [0, coveredEnd) are held by the stages so far
        for (int s = 0; s < static_cast<int>(pipe.stages.size()); ++s) {
            const Stage &st = stage(p, s);
            if (st.layerEnd <= st.layerBegin)
                continue; // reported as an empty stage
            if (st.layerBegin > coveredEnd)
                add(p, -1, -1,
                    where(p, -1) + "stages leave " + layerRange(coveredEnd, st.layerBegin)
                        + " uncovered");
            else if (st.layerBegin < coveredEnd)
                add(p, s, -1,
                    where(p, -1) + "stage " + str(s) + " overlaps stage " + str(s - 1) + " on "
                        + layerRange(st.layerBegin, std::min(coveredEnd, st.layerEnd)));
            coveredEnd = std::max(coveredEnd, st.layerEnd);
        }
        if (coveredEnd < layers)
            add(p, -1, -1,
                where(p, -1) + "stages leave " + layerRange(coveredEnd, layers) + " uncovered");
    }

    void checkGpuReuse()
    {
        std::map<int, std::pair<int, int>> firstUse; // gpu → (pipeline, stage)
        for (int p = 0; p < pipelineCount(); ++p)
            for (int s = 0; s < static_cast<int>(pipeline(p).stages.size()); ++s)
                for (int gpu : stage(p, s).gpus) {
                    if (!knownGpu(gpu))
                        continue;
                    const auto [it, inserted] = firstUse.emplace(gpu, std::pair{p, s});
                    if (inserted)
                        continue;
                    const auto [firstP, firstS] = it->second;
                    if (firstP == p && firstS == s)
                        add(p, s, gpu,
                            "GPU " + gpuName(gpu) + " appears twice in pipeline " + str(p)
                                + " stage " + str(s));
                    else
                        add(p, s, gpu,
                            "GPU " + gpuName(gpu) + " appears in pipeline " + str(firstP)
                                + " stage " + str(firstS) + " and pipeline " + str(p) + " stage "
                                + str(s));
                }
    }

    void checkGlobalBatch()
    {
        int sequences = 0;
        std::string terms;
        for (int p = 0; p < pipelineCount(); ++p) {
            const Pipeline &pipe = pipeline(p);
            sequences += pipe.microBatch * pipe.microBatches;
            terms += (terms.empty() ? "" : " + ") + str(pipe.microBatch) + " × "
                     + str(pipe.microBatches);
        }
        const int globalBatch = m_problem.workload.train.globalBatch;
        if (sequences == globalBatch)
            return;
        const std::string subject
            = pipelineCount() == 1 ? "pipeline 0: micro-batches" : "the pipelines' micro-batches";
        add(-1, -1, -1,
            subject + " sum to " + str(sequences) + " sequences (" + terms
                + ") but global_batch is " + str(globalBatch));
    }

    std::vector<Holder> replicas(int p, int s) const
    {
        const Stage &st = stage(p, s);
        std::vector<Holder> result;
        result.reserve(size_t(st.dp));
        for (int r = 0; r < st.dp; ++r)
            result.push_back({p, s, r,
                              std::span<const int>(st.gpus).subspan(static_cast<size_t>(r * st.tp),
                                                                    static_cast<size_t>(st.tp)),
                              st.layerBegin, st.layerEnd});
        return result;
    }

    // A connected pair between two GPU sets, or -1s: the first GPUs of each when none is.
    std::pair<int, int> disconnectedPair(std::span<const int> a, std::span<const int> b,
                                         PathKind path) const
    {
        for (int x : a)
            for (int y : b)
                if (m_problem.topology.connected(x, y, path))
                    return {-1, -1};
        return {a.front(), b.front()};
    }

    // TP all-reduces need every pair inside a group; activations (and gradients back) need
    // each receiving replica to reach some GPU of the neighbouring stage (HexiScale §3.2:
    // leader-to-leader send, then a broadcast inside the receiving TP group).
    void checkPipelineLinks(int p)
    {
        const int stageCount = static_cast<int>(pipeline(p).stages.size());
        for (int s = 0; s < stageCount; ++s) {
            const PathKind tpPath = m_paths->tp(stage(p, s));
            for (const Holder &h : replicas(p, s))
                for (size_t i = 0; i < h.gpus.size(); ++i)
                    for (size_t k = i + 1; k < h.gpus.size(); ++k)
                        if (!m_problem.topology.connected(h.gpus[i], h.gpus[k], tpPath))
                            add(p, s, h.gpus[i],
                                where(p, s) + "GPUs " + gpuName(h.gpus[i]) + " and "
                                    + gpuName(h.gpus[k]) + " of one TP group are not connected"
                                    + noPath(tpPath));
            if (s + 1 == stageCount)
                continue;
            const std::vector<Holder> from = replicas(p, s);
            const std::vector<Holder> to = replicas(p, s + 1);
            const PathKind hopPath = m_paths->hop(stage(p, s));
            std::set<std::pair<int, int>> reported;
            const auto check = [&](std::span<const int> a, std::span<const int> b) {
                const auto [x, y] = disconnectedPair(a, b, hopPath);
                if (x < 0 || !reported.insert({x, y}).second)
                    return;
                add(p, s, x,
                    "pipeline " + str(p) + ", stage " + str(s) + " → stage " + str(s + 1)
                        + ": GPUs " + gpuName(x) + " and " + gpuName(y) + " are not connected"
                        + noPath(hopPath));
            };
            for (const Holder &receiver : to)
                check(stage(p, s).gpus, receiver.gpus);
            for (const Holder &sender : from)
                check(sender.gpus, stage(p, s + 1).gpus);
        }
    }

    // " (no network path)", or which links it lacks when the transport restricts them.
    static std::string noPath(PathKind path)
    {
        return path == PathKind::Widest ? std::string(" (no network path)")
                                        : " (no path" + overLinks(path) + ")";
    }

    // Gradients of a layer are all-reduced among every replica holding it (docs/cost-models.md, DP
    // comm): replicas that share a layer must reach each other over one transport, which
    // every stage holding the layer must therefore record alike.
    void checkGradientSync()
    {
        std::vector<Holder> holders;
        for (int p = 0; p < pipelineCount(); ++p)
            for (int s = 0; s < static_cast<int>(pipeline(p).stages.size()); ++s)
                for (const Holder &h : replicas(p, s))
                    holders.push_back(h);
        std::set<std::pair<int, int>> reportedPipelines;
        std::set<std::pair<int, int>> reportedTransports;
        for (size_t i = 0; i < holders.size(); ++i)
            for (size_t k = i + 1; k < holders.size(); ++k) {
                const Holder &a = holders[i];
                const Holder &b = holders[k];
                const int begin = std::max(a.layerBegin, b.layerBegin);
                const int end = std::min(a.layerEnd, b.layerEnd);
                if (begin >= end)
                    continue;
                const Stage &sa = stage(a.pipeline, a.stage);
                const Stage &sb = stage(b.pipeline, b.stage);
                if (sa.transport.dp != sb.transport.dp
                    && reportedTransports.insert({a.pipeline, b.pipeline}).second)
                    add(b.pipeline, b.stage, -1,
                        "pipeline " + str(a.pipeline) + " stage " + str(a.stage) + " and pipeline "
                            + str(b.pipeline) + " stage " + str(b.stage) + " both hold "
                            + layerRange(begin, end) + " but record dp transports "
                            + transportText(sa.transport.dp) + " and "
                            + transportText(sb.transport.dp)
                            + "; one gradient all-reduce uses one transport");
                const PathKind path = PlanPaths::shared(m_paths->dp(sa), m_paths->dp(sb));
                const auto [x, y] = disconnectedPair(a.gpus, b.gpus, path);
                if (x < 0 || !reportedPipelines.insert({a.pipeline, b.pipeline}).second)
                    continue;
                const std::string owners
                    = a.pipeline == b.pipeline
                          ? where(a.pipeline, a.stage) + "DP replicas " + str(a.replica) + " and "
                                + str(b.replica)
                          : "pipelines " + str(a.pipeline) + " and " + str(b.pipeline);
                add(b.pipeline, b.stage, y,
                    owners + ": GPUs " + gpuName(x) + " and " + gpuName(y) + " both hold "
                        + layerRange(begin, end) + " but are not connected" + overLinks(path)
                        + ", so their gradients cannot be synchronised");
            }
    }

    void checkTpGroups()
    {
        for (int p = 0; p < pipelineCount(); ++p)
            for (int s = 0; s < static_cast<int>(pipeline(p).stages.size()); ++s) {
                if (stage(p, s).tp < 2)
                    continue;
                for (const Holder &h : replicas(p, s)) {
                    const std::string problem = m_costModel->tpGroupProblem(m_problem, h.gpus);
                    if (!problem.empty())
                        add(p, s, h.gpus.front(),
                            where(p, s) + "TP group " + gpuList(h.gpus) + " is not allowed by the "
                                + std::string(m_costModel->name()) + " cost model: " + problem);
                }
            }
    }

    void checkMemory()
    {
        std::map<int, std::pair<int, int>> placement; // gpu → (pipeline, stage)
        for (int p = 0; p < pipelineCount(); ++p)
            for (int s = 0; s < static_cast<int>(pipeline(p).stages.size()); ++s)
                for (int gpu : stage(p, s).gpus)
                    placement.emplace(gpu, std::pair{p, s});
        const Evaluation evaluation = m_costModel->evaluate(m_problem, m_plan);
        for (const GpuMemory &memory : evaluation.memory) {
            if (memory.fits())
                continue;
            const auto it = placement.find(memory.gpu);
            const int p = it == placement.end() ? -1 : it->second.first;
            const int s = it == placement.end() ? -1 : it->second.second;
            const std::string prefix
                = p < 0 ? std::string() : "pipeline " + str(p) + ", stage " + str(s) + ", ";
            add(p, s, memory.gpu,
                prefix + "GPU " + gpuName(memory.gpu) + ": needs " + gibText(memory.usedGiB)
                    + " GiB of " + gibText(memory.capacityGiB) + " GiB");
        }
    }

    const Problem &m_problem;
    const Plan &m_plan;
    const CostModel *m_costModel;     // not owned; may be null
    std::optional<PlanPaths> m_paths; // once the structure is sound
    std::vector<PlanIssue> m_issues;
};

} // namespace

std::vector<PlanIssue> validatePlan(const Problem &problem, const Plan &plan,
                                    const CostModel *costModel)
{
    return Checker(problem, plan, costModel).run();
}

} // namespace hetplan
