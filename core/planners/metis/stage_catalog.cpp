#include "core/planners/metis/stage_catalog.h"

#include "core/base/infinity.h"

#include <algorithm>
#include <cassert>
#include <cstring>

namespace hetplan::metis {

namespace {

std::string bytesOf(std::span<const int> gpus)
{
    std::string key(gpus.size() * sizeof(int), '\0');
    std::memcpy(key.data(), gpus.data(), key.size());
    return key;
}

// Keys pack small non-negative integers; the fields are bounded by the GPU count
// (kMaxGpus = 2^16), the global batch and the plan count, far below their widths here.
std::uint64_t pack(std::uint64_t a, std::uint64_t b, std::uint64_t c)
{
    return (a << 40) ^ (b << 20) ^ c;
}

} // namespace

Position positionOf(int stageIndex, int stageCount, int microBatches)
{
    return {stageIndex == 0, stageIndex + 1 == stageCount,
            std::max(1, std::min(microBatches, stageCount - stageIndex))};
}

StageCatalog::StageCatalog(const Problem &problem, const CostModel &costModel)
    : m_problem(problem)
    , m_costModel(costModel)
{}

int StageCatalog::group(const std::vector<int> &gpus)
{
    const auto [it, inserted] = m_groupIds.try_emplace(bytesOf(gpus), int(m_groups.size()));
    if (inserted)
        m_groups.push_back(gpus);
    return it->second;
}

double StageCatalog::replicaSecondsPerSequence(std::span<const int> replica, int tp)
{
    const auto [it, inserted] = m_replicaS.try_emplace(bytesOf(replica), 0.0);
    if (!inserted)
        return it->second;
    // One sequence through one middle layer on this replica alone: its speed as the cost
    // model sees it (the capacity data load balancing weighs replicas by).
    StageQuery single;
    single.gpus = replica;
    single.tp = tp;
    single.layerEnd = 1;
    single.stageIndex = 1;
    single.stageCount = 3;
    const StageEstimate estimate = m_costModel.estimateStage(m_problem, single);
    it->second = estimate.timing.computeS + estimate.timing.tpCommS;
    return it->second;
}

int StageCatalog::planFor(int group, int tp, int microBatch)
{
    const std::uint64_t key
        = pack(std::uint64_t(group), std::uint64_t(tp), std::uint64_t(microBatch));
    if (const auto it = m_planIds.find(key); it != m_planIds.end())
        return it->second;
    const std::vector<int> &members = m_groups[size_t(group)];
    const int size = int(members.size());
    const int dp = size / tp;
    // Algorithm 1's InvalidIntraPlan: tp must divide the group, every replica needs at least
    // one sequence of the micro-batch, and every TP group must be one the cost model allows.
    bool valid = size % tp == 0 && dp <= microBatch;
    for (int r = 0; valid && tp > 1 && r < dp; ++r)
        valid = m_costModel.allowsTpGroup(
            m_problem, std::span<const int>(members).subspan(size_t(r * tp), size_t(tp)));
    int id = -1;
    if (valid) {
        IntraPlan plan{group, tp, dp, microBatch, {}};
        double slowestBytesPerS = kInfinity;
        if (dp > 1) {
            std::vector<double> seconds;
            std::vector<double> memoryGiB;
            for (int r = 0; r < dp; ++r) {
                const auto replica
                    = std::span<const int>(members).subspan(size_t(r * tp), size_t(tp));
                seconds.push_back(replicaSecondsPerSequence(replica, tp));
                double smallest = kInfinity;
                for (int gpu : replica)
                    smallest = std::min(smallest, m_problem.topology.gpuType(gpu).memoryGiB);
                memoryGiB.push_back(smallest);
            }
            plan.split = balanceData(seconds, memoryGiB, microBatch);
            // The DP group of TP rank k: the k-th GPU of every replica.
            const Topology &topology = m_problem.topology;
            for (int k = 0; k < tp; ++k)
                for (int a = 0; a < dp; ++a)
                    for (int b = a + 1; b < dp; ++b)
                        slowestBytesPerS
                            = std::min(slowestBytesPerS,
                                       topology.bandwidthBytesPerS(members[size_t(a * tp + k)],
                                                                   members[size_t(b * tp + k)]));
        }
        id = int(m_plans.size());
        m_plans.push_back(std::move(plan));
        m_dpBytesPerS.push_back(slowestBytesPerS);
    }
    m_planIds.emplace(key, id);
    return id;
}

int StageCatalog::dataParallelFirst(int group, int microBatch)
{
    const int size = int(m_groups[size_t(group)].size());
    for (int tp = 1; tp <= size; ++tp)
        if (const int plan = planFor(group, tp, microBatch); plan >= 0)
            return plan;
    return -1;
}

int StageCatalog::raiseTp(int plan)
{
    const IntraPlan current = m_plans[size_t(plan)];
    const int size = int(m_groups[size_t(current.group)].size());
    for (int tp = current.tp + 1; tp <= size; ++tp)
        if (const int raised = planFor(current.group, tp, current.microBatch); raised >= 0)
            return raised;
    return -1;
}

StageQuery StageCatalog::query(const IntraPlan &plan, const Position &position, int layers) const
{
    // The cost models read the layer count, whether the stage is first or last, and the 1F1B
    // in-flight count min(m, S − j); any position with the same three gives the same answer,
    // so one canonical position stands for all of them (and the caches hit across S).
    StageQuery q;
    q.gpus = m_groups[size_t(plan.group)];
    q.tp = plan.tp;
    q.dp = plan.dp;
    q.dpSplit = plan.split;
    q.layerBegin = 0;
    q.layerEnd = layers;
    q.microBatch = plan.microBatch;
    q.microBatches = position.inFlight;
    if (position.first && position.last) {
        q.stageIndex = 0;
        q.stageCount = 1;
    } else if (position.first) {
        q.stageIndex = 0;
        q.stageCount = std::max(position.inFlight, 2);
    } else if (position.last) {
        q.stageIndex = 1;
        q.stageCount = 2;
    } else {
        q.stageIndex = 1;
        q.stageCount = 1 + std::max(position.inFlight, 2);
    }
    return q;
}

int StageCatalog::maxLayers(int plan, const Position &position)
{
    const std::uint64_t key = pack(std::uint64_t(plan),
                                   std::uint64_t(position.first) * 2 + std::uint64_t(position.last),
                                   std::uint64_t(position.inFlight));
    if (const auto it = m_maxLayers.find(key); it != m_maxLayers.end())
        return it->second;
    const IntraPlan &intra = m_plans[size_t(plan)];
    const auto fits = [&](int layers) {
        return m_costModel.estimateStage(m_problem, query(intra, position, layers)).fits;
    };
    // Memory grows with the layer count: the largest count that fits, by bisection.
    int low = 0;
    int high = layerCount();
    if (fits(high)) {
        low = high;
    } else {
        while (high - low > 1) {
            const int middle = (low + high) / 2;
            (middle >= 1 && fits(middle) ? low : high) = middle;
        }
    }
    m_maxLayers.emplace(key, low);
    return low;
}

StageLoad StageCatalog::load(int plan, const Position &position)
{
    const std::uint64_t key
        = pack(std::uint64_t(plan), std::uint64_t(position.first), std::uint64_t(position.last));
    auto it = m_loads.find(key);
    if (it == m_loads.end()) {
        // Both cost models are affine in the layer count (l · per-layer terms, plus the head
        // on the last stage): two points give the line.
        const IntraPlan &intra = m_plans[size_t(plan)];
        const StageTiming one
            = m_costModel.estimateStage(m_problem, query(intra, position, 1)).timing;
        const StageTiming two
            = m_costModel.estimateStage(m_problem, query(intra, position, 2)).timing;
        const double oneS = one.computeS + one.tpCommS;
        const double perLayerS = two.computeS + two.tpCommS - oneS;
        it = m_loads.emplace(key, StageLoad{oneS - perLayerS, perLayerS, 0}).first;
    }
    StageLoad result = it->second;
    result.maxLayers = maxLayers(plan, position);
    return result;
}

double StageCatalog::hopS(int from, int to)
{
    const std::uint64_t key = (std::uint64_t(std::uint32_t(from)) << 32) | std::uint32_t(to);
    if (const auto it = m_hops.find(key); it != m_hops.end())
        return it->second;
    const StageQuery a = query(m_plans[size_t(from)], Position{true, false, 1}, 1);
    const StageQuery b = query(m_plans[size_t(to)], Position{false, true, 1}, 1);
    const double hop = m_costModel.hopS(m_problem, a, b);
    m_hops.emplace(key, hop);
    return hop;
}

double StageCatalog::gradientSyncS(int plan, int layers, const Position &position)
{
    const IntraPlan &intra = m_plans[size_t(plan)];
    if (intra.dp <= 1)
        return 0;
    const ModelSpec &model = m_problem.model;
    const double params = layers * model.paramsPerLayer()
                          + (position.first ? model.embeddingParams() : 0.0)
                          + (position.last ? model.headParams() : 0.0);
    const double bytes = params / intra.tp * bytesPerElement(m_problem.workload.train.precision);
    const double bandwidth = m_dpBytesPerS[size_t(plan)];
    return bandwidth > 0 ? bytes / bandwidth : kInfinity;
}

} // namespace hetplan::metis
