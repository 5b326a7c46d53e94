#include "core/planners/hexgen/pipeline_dp.h"

#include "core/cost/cost_helpers.h"
#include "core/cost/cost_model.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>

namespace hetplan {

namespace {

// §4.2: "limiting the degree of tensor model parallelism to a smaller candidate set, e.g.
// {1, 2, 4, 8}".
constexpr std::array kTpDegrees{1, 2, 4, 8};
// Count-vector states one group's DP may visit; a group beyond it (many machines, far more
// GPUs than one replica needs) is not laid out.
constexpr long long kMaxStates = 20000;

// The position flags a cost model reads (embedding on the first stage, head on the last),
// as a stage index and count.
std::pair<int, int> positionOf(bool first, bool last)
{
    if (first)
        return {0, last ? 1 : 2};
    return last ? std::pair{1, 2} : std::pair{1, 3};
}

std::vector<int> evenPartition(int layers, int stages)
{
    std::vector<int> partition(size_t(stages), layers / stages);
    for (int j = 0; j < layers % stages; ++j)
        ++partition[size_t(j)];
    return partition;
}

} // namespace

ReplicaLayouts::ReplicaLayouts(const Problem &problem, const CostModel &costModel,
                               std::vector<std::vector<int>> available, int maxStages)
    : m_problem(problem)
    , m_costModel(costModel)
    , m_available(std::move(available))
    , m_maxStages(std::max(maxStages, 1))
{
    const ModelSpec &model = problem.model;
    // One copy of the weights: the paper's 12H² per layer, or the real count if smaller.
    const double paperParams = 12.0 * double(model.hidden) * model.hidden * model.layers;
    m_modelBytes = std::min(paperParams, model.totalParams())
                   * bytesPerElement(problem.workload.infer.precision);
}

GpuGroup mergedGroups(const GpuGroup &a, const GpuGroup &b)
{
    GpuGroup sum = a;
    for (const GroupPart &part : b) {
        auto it = std::find_if(sum.begin(), sum.end(),
                               [&part](const GroupPart &p) { return p.machine == part.machine; });
        if (it == sum.end())
            sum.push_back(part);
        else
            it->count += part.count;
    }
    std::sort(sum.begin(), sum.end());
    return sum;
}

double ReplicaLayouts::gpuBytes(int machine) const
{
    return m_problem.topology.gpuType(m_available[size_t(machine)][0]).memoryGiB * kBytesPerGiB;
}

bool ReplicaLayouts::canHoldModel(const GpuGroup &group) const
{
    double bytes = 0;
    for (const GroupPart &part : group)
        bytes += part.count * gpuBytes(part.machine);
    return bytes >= m_modelBytes;
}

bool ReplicaLayouts::tpAllowed(int machine, int tp)
{
    const std::vector<int> &gpus = m_available[size_t(machine)];
    if (tp > int(gpus.size()))
        return false;
    const std::uint64_t key = std::uint64_t(machine) * 16 + std::uint64_t(tp);
    const auto it = m_tpAllowed.find(key);
    if (it != m_tpAllowed.end())
        return it->second;
    const bool allowed
        = tp == 1 || m_costModel.allowsTpGroup(m_problem, std::span(gpus).first(size_t(tp)));
    m_tpAllowed.emplace(key, allowed);
    return allowed;
}

const ReplicaLayouts::StageCost &ReplicaLayouts::stageCost(int machine, int tp, int layers,
                                                           bool first, bool last)
{
    const std::uint64_t key
        = ((std::uint64_t(machine) * 16 + std::uint64_t(tp)) * 65536 + std::uint64_t(layers)) * 4
          + (first ? 2u : 0u) + (last ? 1u : 0u);
    const auto it = m_stageCosts.find(key);
    if (it != m_stageCosts.end())
        return it->second;
    const auto [index, count] = positionOf(first, last);
    StageQuery query;
    query.gpus = std::span(m_available[size_t(machine)]).first(size_t(tp));
    query.tp = tp;
    query.layerBegin = first ? 0 : 1;
    query.layerEnd = query.layerBegin + layers;
    query.microBatch = m_problem.workload.infer.batch;
    query.stageIndex = index;
    query.stageCount = count;
    const StageEstimate estimate = m_costModel.estimateStage(m_problem, query);
    const StageCost cost{estimate.timing.computeS + estimate.timing.tpCommS, estimate.fits};
    return m_stageCosts.emplace(key, cost).first->second;
}

double ReplicaLayouts::hopS(int machineA, int tpA, int machineB, int tpB)
{
    const std::uint64_t key
        = ((std::uint64_t(machineA) * 16 + std::uint64_t(tpA)) * 65536 + std::uint64_t(machineB))
              * 16
          + std::uint64_t(tpB);
    const auto it = m_hops.find(key);
    if (it != m_hops.end())
        return it->second;
    const std::span<const int> gpusA = m_available[size_t(machineA)];
    const std::span<const int> gpusB = m_available[size_t(machineB)];
    StageQuery from;
    from.gpus = gpusA.first(size_t(tpA));
    from.tp = tpA;
    StageQuery to;
    // Two stages on one machine use different GPUs of it.
    const size_t offset = machineA == machineB ? size_t(tpA) : 0;
    to.gpus = gpusB.subspan(std::min(offset, gpusB.size() - size_t(tpB)), size_t(tpB));
    to.tp = tpB;
    from.microBatch = to.microBatch = m_problem.workload.infer.batch;
    const double hop = m_costModel.hopS(m_problem, from, to);
    m_hops.emplace(key, hop);
    return hop;
}

int ReplicaLayouts::maxLayers(int machine, int tp, bool first, bool last)
{
    int low = 0; // fits (0 layers: nothing to hold but the overheads)
    int high = m_problem.model.layers;
    if (stageCost(machine, tp, high, first, last).fits)
        return high;
    while (high - low > 1) {
        const int mid = (low + high) / 2;
        (stageCost(machine, tp, mid, first, last).fits ? low : high) = mid;
    }
    return low;
}

ReplicaLayouts::Layout ReplicaLayouts::bestStages(const GpuGroup &group,
                                                  std::span<const int> layers, bool checkMemory)
{
    const size_t kinds = group.size();
    std::vector<long long> stride(kinds);
    long long states = 1;
    for (size_t k = 0; k < kinds; ++k) {
        stride[k] = states;
        states *= group[k].count + 1;
        if (states > kMaxStates)
            return {};
    }
    const int stageCount = int(layers.size());
    // DP[j; τ] (eq. 3): cost of the first j stages on the GPUs counted by τ; back-pointer
    // packs (previous τ, kind, TP degree index).
    m_cost.assign(size_t(stageCount + 1) * size_t(states), kInfinity);
    m_back.assign(size_t(stageCount + 1) * size_t(states) * 3, -1);
    m_cost[0] = 0;
    for (int j = 0; j < stageCount; ++j) {
        const bool first = j == 0;
        const bool last = j + 1 == stageCount;
        const size_t row = size_t(j) * size_t(states);
        const size_t nextRow = row + size_t(states);
        for (long long tau = 0; tau < states; ++tau) {
            const double base = m_cost[row + size_t(tau)];
            if (!std::isfinite(base))
                continue;
            int lastMachine = -1;
            int lastTp = 0;
            if (j > 0) {
                const std::int32_t *back = &m_back[(row + size_t(tau)) * 3];
                lastMachine = group[size_t(back[1])].machine;
                lastTp = kTpDegrees[size_t(back[2])];
            }
            for (size_t k = 0; k < kinds; ++k) {
                const int used = int((tau / stride[k]) % (group[k].count + 1));
                const int machine = group[k].machine;
                for (size_t d = 0; d < kTpDegrees.size(); ++d) {
                    const int tp = kTpDegrees[d];
                    if (used + tp > group[k].count || !tpAllowed(machine, tp))
                        break;
                    const StageCost &stage = stageCost(machine, tp, layers[size_t(j)], first, last);
                    if (checkMemory && !stage.fits)
                        continue;
                    double cost = base + stage.timeS;
                    if (j > 0)
                        cost += hopS(lastMachine, lastTp, machine, tp);
                    const size_t target = nextRow + size_t(tau + tp * stride[k]);
                    if (cost < m_cost[target]) {
                        m_cost[target] = cost;
                        m_back[target * 3] = std::int32_t(tau);
                        m_back[target * 3 + 1] = std::int32_t(k);
                        m_back[target * 3 + 2] = std::int32_t(d);
                    }
                }
            }
        }
    }
    const size_t lastRow = size_t(stageCount) * size_t(states);
    const auto best = std::min_element(m_cost.begin() + std::ptrdiff_t(lastRow), m_cost.end());
    if (!std::isfinite(*best))
        return {};
    // Back-tracking over the memorisation buffer to the stages.
    Layout layout;
    layout.latencyS = *best;
    layout.stages.resize(size_t(stageCount));
    long long tau = best - (m_cost.begin() + std::ptrdiff_t(lastRow));
    for (int j = stageCount; j > 0; --j) {
        const std::int32_t *back = &m_back[(size_t(j) * size_t(states) + size_t(tau)) * 3];
        layout.stages[size_t(j - 1)]
            = {group[size_t(back[1])].machine, kTpDegrees[size_t(back[2])], layers[size_t(j - 1)]};
        tau = back[0];
    }
    return layout;
}

double ReplicaLayouts::latencyOf(std::span<const DraftStage> stages)
{
    double latencyS = 0;
    for (size_t j = 0; j < stages.size(); ++j) {
        const DraftStage &s = stages[j];
        const bool last = j + 1 == stages.size();
        const StageCost &cost = stageCost(s.machine, s.tp, s.layers, j == 0, last);
        if (!cost.fits || s.layers <= 0)
            return kInfinity;
        latencyS += cost.timeS;
        if (j > 0)
            latencyS += hopS(stages[j - 1].machine, stages[j - 1].tp, s.machine, s.tp);
    }
    return latencyS;
}

bool ReplicaLayouts::partitionByMemory(std::vector<DraftStage> &stages)
{
    const int layers = m_problem.model.layers;
    const size_t count = stages.size();
    std::vector<double> memory(count);
    std::vector<int> capacity(count);
    double totalMemory = 0;
    long long totalCapacity = 0;
    for (size_t j = 0; j < count; ++j) {
        const DraftStage &s = stages[j];
        memory[j] = s.tp * m_problem.topology.gpuType(m_available[size_t(s.machine)][0]).memoryGiB;
        capacity[j] = maxLayers(s.machine, s.tp, j == 0, j + 1 == count);
        totalMemory += memory[j];
        totalCapacity += capacity[j];
    }
    if (totalCapacity < layers || int(count) > layers)
        return false;
    // Proportional shares, largest remainders first, then clamped to what fits with the
    // overflow handed to the stages that still have room.
    std::vector<int> share(count);
    std::vector<std::pair<double, size_t>> remainders;
    int given = 0;
    for (size_t j = 0; j < count; ++j) {
        const double exact = layers * memory[j] / totalMemory;
        share[j] = int(std::floor(exact));
        given += share[j];
        remainders.emplace_back(-(exact - share[j]), j);
    }
    std::sort(remainders.begin(), remainders.end());
    for (size_t i = 0; given < layers; ++i, ++given)
        ++share[remainders[i % count].second];
    int overflow = 0;
    for (size_t j = 0; j < count; ++j) {
        const int keep = std::clamp(share[j], 1, std::max(capacity[j], 1));
        overflow += share[j] - keep;
        share[j] = keep;
    }
    for (size_t j = 0; j < count && overflow != 0; ++j) {
        const int change = overflow > 0 ? std::min(overflow, capacity[j] - share[j])
                                        : std::max(overflow, 1 - share[j]);
        share[j] += change;
        overflow -= change;
    }
    if (overflow != 0)
        return false;
    for (size_t j = 0; j < count; ++j)
        stages[j].layers = share[j];
    return true;
}

ReplicaDraft ReplicaLayouts::computeLayout(const GpuGroup &group)
{
    ReplicaDraft draft;
    draft.latencyS = kInfinity;
    const auto consider = [&draft](const std::vector<DraftStage> &stages, double latencyS) {
        if (!stages.empty() && latencyS < draft.latencyS) {
            draft.fits = true;
            draft.latencyS = latencyS;
            draft.stages = stages;
        }
    };
    int gpus = 0;
    for (const GroupPart &part : group)
        gpus += part.count;
    const int layers = m_problem.model.layers;
    for (int stageCount = 1; stageCount <= std::min({m_maxStages, gpus, layers}); ++stageCount) {
        // §4.3: an even partition first; the DP picks the stages' GPUs; then layers follow
        // each stage's memory and the DP runs again on that partition. Where the even
        // partition fits nowhere, the stages the DP picks without the memory limit seed it.
        const std::vector<int> even = evenPartition(layers, stageCount);
        Layout current = bestStages(group, even, true);
        consider(current.stages, current.latencyS);
        if (current.stages.empty())
            current = bestStages(group, even, false);
        for (int round = 0; round < 3 && !current.stages.empty(); ++round) {
            std::vector<DraftStage> stages = current.stages;
            if (!partitionByMemory(stages))
                break;
            consider(stages, latencyOf(stages));
            std::vector<int> partition;
            partition.reserve(stages.size());
            for (const DraftStage &s : stages)
                partition.push_back(s.layers);
            Layout next = bestStages(group, partition, true);
            consider(next.stages, next.latencyS);
            const bool settled = next.stages.size() == stages.size()
                                 && std::equal(next.stages.begin(), next.stages.end(),
                                               stages.begin(), [](const auto &a, const auto &b) {
                                                   return a.machine == b.machine && a.tp == b.tp;
                                               });
            if (settled)
                break;
            current = std::move(next);
        }
    }
    return draft;
}

const ReplicaDraft &ReplicaLayouts::layout(const GpuGroup &group)
{
    std::vector<int> key;
    key.reserve(group.size() * 2);
    for (const GroupPart &part : group) {
        key.push_back(part.machine);
        key.push_back(part.count);
    }
    const auto it = m_layouts.find(key);
    if (it != m_layouts.end())
        return it->second;
    ReplicaDraft draft = canHoldModel(group) ? computeLayout(group) : ReplicaDraft{};
    return m_layouts.emplace(std::move(key), std::move(draft)).first->second;
}

Pipeline ReplicaLayouts::materialise(const ReplicaDraft &draft,
                                     const std::vector<std::vector<int>> &gpusOf) const
{
    assert(draft.fits);
    Pipeline pipeline;
    pipeline.microBatch = m_problem.workload.infer.batch;
    std::vector<size_t> cursor(gpusOf.size(), 0);
    int layer = 0;
    for (const DraftStage &s : draft.stages) {
        Stage stage;
        const std::vector<int> &gpus = gpusOf[size_t(s.machine)];
        size_t &next = cursor[size_t(s.machine)];
        assert(next + size_t(s.tp) <= gpus.size());
        stage.gpus.assign(gpus.begin() + std::ptrdiff_t(next),
                          gpus.begin() + std::ptrdiff_t(next) + s.tp);
        next += size_t(s.tp);
        stage.tp = s.tp;
        stage.layerBegin = layer;
        layer += s.layers;
        stage.layerEnd = layer;
        pipeline.stages.push_back(std::move(stage));
    }
    return pipeline;
}

} // namespace hetplan
