#include "core/planners/metis/metis_planner.h"

#include "core/base/infinity.h"
#include "core/base/text.h"
#include "core/cost/cost_model.h"
#include "core/cost/validator.h"
#include "core/planners/metis/device_groups.h"
#include "core/planners/metis/intra_stage.h"
#include "core/planners/metis/stage_catalog.h"
#include "core/planners/search_reporter.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <random>
#include <unordered_set>

namespace hetplan {

namespace {

using namespace metis;

// Stage-size sets enumerated per stage count before the sequences are shared out over them.
constexpr size_t kMaxSizeSets = 256;
constexpr size_t kMaxBlockOrders = 1 << 16;
// Complete plans one DFS may produce; it branches twice at every out-of-memory stage.
constexpr int kMaxPlansPerSequence = 16;
// Micro-batch sizes explored (§4.1 "Number of micro-batches", O(√gbs) in Table 1).
constexpr size_t kMaxMicroBatchSizes = 8;

bool isPowerOfTwo(int value)
{
    return value > 0 && (value & (value - 1)) == 0;
}

// Sequences per micro-batch the search tries: divisors of the global batch (the global
// batch stays fixed, §4.1), up to four times the workload's largest micro-batch per GPU over
// all GPUs, which leaves a data-parallel group room for uneven shares (§4.1); when there are
// many, the powers of two, the workload's own sizes and the largest.
std::vector<int> microBatchSizes(const Problem &problem)
{
    const TrainWorkload &train = problem.workload.train;
    int perGpu = 1;
    for (int b : train.microBatchSizes)
        perGpu = std::max(perGpu, b);
    const long long limit
        = std::min<long long>(train.globalBatch, 4LL * perGpu * problem.topology.gpuCount());
    std::vector<int> sizes;
    for (int b = 1; b <= limit; ++b)
        if (train.globalBatch % b == 0)
            sizes.push_back(b);
    if (sizes.size() > kMaxMicroBatchSizes) {
        const int largest = sizes.back();
        std::erase_if(sizes, [&](int b) {
            return !isPowerOfTwo(b) && b != largest
                   && std::find(train.microBatchSizes.begin(), train.microBatchSizes.end(), b)
                          == train.microBatchSizes.end();
        });
    }
    return sizes;
}

// The first two machines with GPUs and no network path between them, or empty.
std::string disconnectedMachines(const Topology &topology)
{
    const std::vector<Machine> &machines = topology.cluster().machines;
    for (size_t a = 0; a < machines.size(); ++a)
        for (size_t b = a + 1; b < machines.size(); ++b)
            if (machines[a].count > 0 && machines[b].count > 0
                && !topology.connected(topology.firstGpuOf(int(a)), topology.firstGpuOf(int(b))))
                return "machines '" + machines[a].name + "' and '" + machines[b].name + "'";
    return {};
}

class Search
{
public:
    Search(const Problem &problem, const CostModel &costModel, const PlannerOptions &options,
           std::stop_token stop, ProgressSink &progress)
        : m_problem(problem)
        , m_costModel(costModel)
        , m_options(options)
        , m_reporter(std::move(stop), progress)
        , m_catalog(problem, costModel)
        , m_random(options.seed)
    {
        // max_permutation_length stops at 20 blocks: 20! still fits the order count.
        const MetisParameters &settings = options.parameters.metis;
        m_variance = settings.variance;
        m_maxPermutationLength = settings.maxPermutationLength;
        m_sequences = settings.sequences;
        m_top = size_t(settings.top);
    }

    Result<PlanSearch> run()
    {
        if (m_problem.workload.mode != Mode::Train)
            return Error{ErrorKind::Unsupported, "planner 'metis' plans training only"};
        considerWarmStart();
        const Topology &topology = m_problem.topology;
        if (const std::string split = disconnectedMachines(topology); !split.empty() && !m_best)
            return Error{ErrorKind::NoPlanFits,
                         "no Metis plan for cluster '" + topology.cluster().name
                             + "': Metis runs every GPU in one pipeline (§4.2.1), but " + split
                             + " have no network path between them; connect them or leave one "
                               "out of the cluster"};
        const int gpus = topology.gpuCount();
        const std::vector<int> sizes = groupSizes(topology);
        const std::vector<std::vector<int>> orders = machineOrders(topology);
        const std::vector<int> classes = machineClasses(topology);
        const std::vector<int> microBatches = microBatchSizes(m_problem);
        const int mostStages = std::min(gpus, m_problem.model.layers);

        int iteration = 0;
        for (int stages = 1; stages <= mostStages && !shouldStop(); ++stages) {
            if (m_options.maxIterations > 0 && iteration >= m_options.maxIterations)
                break;
            const std::vector<std::vector<int>> sets
                = stageSizeSets(stages, gpus, sizes, m_variance, kMaxSizeSets);
            const std::vector<std::vector<int>> visited = spread(sets, orders.size());
            // Block orders per size set; bounded so that a huge "sequences" cannot make the
            // enumeration itself run out of memory.
            const size_t perSet = std::clamp<size_t>(
                size_t(m_sequences) / std::max<size_t>(1, visited.size() * orders.size()), 1,
                kMaxBlockOrders);
            std::unordered_set<std::string> seen;
            for (const std::vector<int> &set : visited) {
                if (int(seen.size()) >= m_sequences || shouldStop())
                    break;
                const auto blocks = pairSmallest(set, m_maxPermutationLength);
                for (const std::vector<int> &sizeOrder : blockOrders(blocks, perSet, m_random))
                    for (const std::vector<int> &order : orders) {
                        if (int(seen.size()) >= m_sequences || shouldStop())
                            break;
                        const auto groups = cutGroups(topology, order, sizeOrder);
                        if (seen.insert(sequenceKey(topology, classes, groups)).second)
                            trySequence(groups, microBatches);
                    }
            }
            ++iteration;
            report(iteration);
        }

        if (!m_best)
            return failure(mostStages);
        PlanSearch search;
        search.plan = std::move(*m_best);
        search.trace = m_reporter.takeTrace();
        return search;
    }

private:
    bool shouldStop() const { return m_reporter.shouldStop(); }

    // The size sets the sequence bound leaves room for, evenly spaced over all of them.
    std::vector<std::vector<int>> spread(const std::vector<std::vector<int>> &sets,
                                         size_t machineOrders) const
    {
        const size_t room
            = std::max<size_t>(1, size_t(m_sequences) / std::max<size_t>(1, machineOrders));
        if (sets.size() <= room)
            return sets;
        std::vector<std::vector<int>> picked;
        for (size_t i = 0; i < room; ++i)
            picked.push_back(sets[i * sets.size() / room]);
        return picked;
    }

    void report(int iteration)
    {
        m_reporter.report(iteration, m_bestS, m_best ? &*m_best : nullptr);
    }

    void considerWarmStart()
    {
        if (!m_options.warmStart)
            return;
        // A warm start from another cluster or model does not apply; it is ignored.
        if (!validatePlan(m_problem, *m_options.warmStart, &m_costModel).empty())
            return;
        const double costS = m_costModel.objectiveS(m_problem, *m_options.warmStart);
        if (std::isfinite(costS)) {
            m_best = *m_options.warmStart;
            m_bestS = costS;
        }
    }

    void trySequence(const std::vector<std::vector<int>> &groups,
                     const std::vector<int> &microBatches)
    {
        std::vector<int> ids;
        ids.reserve(groups.size());
        for (const std::vector<int> &group : groups)
            ids.push_back(m_catalog.group(group));
        const int globalBatch = m_problem.workload.train.globalBatch;
        const std::function<void(const Candidate &)> accept
            = [this](const Candidate &candidate) { offer(candidate); };
        for (int b : microBatches) {
            const SequenceOutcome outcome
                = searchSequence(m_catalog, ids, b, globalBatch / b, kMaxPlansPerSequence, accept);
            m_outOfMemory = m_outOfMemory || outcome.outOfMemory;
        }
    }

    // The top candidates by Metis cost; each one that enters is judged by the chosen cost
    // model at once, and the best of those by that model is what the planner returns (so the
    // answer is the chosen model's best among every plan that was ever in the Metis top).
    void offer(const Candidate &candidate)
    {
        if (!std::isfinite(candidate.metisCostS)) {
            m_unconnected = true;
            return;
        }
        if (m_kept.size() >= m_top && candidate.metisCostS >= m_kept.back())
            return;
        const auto at = std::lower_bound(m_kept.begin(), m_kept.end(), candidate.metisCostS);
        if (at != m_kept.end() && *at == candidate.metisCostS)
            return; // the same cost: in practice the same plan on interchangeable GPUs
        m_kept.insert(at, candidate.metisCostS);
        if (m_kept.size() > m_top)
            m_kept.pop_back();

        Plan plan = toPlan(candidate);
        const double costS = m_costModel.objectiveS(m_problem, plan);
        if (!(costS < m_bestS))
            return;
        // The validator is the judge (connectivity, TP groups, memory under this model).
        if (!validatePlan(m_problem, plan, &m_costModel).empty()) {
            m_unconnected = true;
            return;
        }
        m_best = std::move(plan);
        m_bestS = costS;
    }

    Plan toPlan(const Candidate &candidate)
    {
        Plan plan;
        plan.planner = "metis";
        plan.costModel = std::string(m_costModel.name());
        plan.cluster = m_problem.topology.cluster().name;
        plan.model = m_problem.model.name;
        plan.workload = m_problem.workload;
        Pipeline pipeline;
        pipeline.microBatch = candidate.microBatch;
        pipeline.microBatches = candidate.microBatches;
        int begin = 0;
        for (size_t j = 0; j < candidate.plans.size(); ++j) {
            const IntraPlan &intra = m_catalog.intraPlan(candidate.plans[j]);
            Stage stage;
            stage.gpus = m_catalog.gpus(intra.group);
            stage.tp = intra.tp;
            stage.dp = intra.dp;
            stage.dpSplit = intra.split;
            stage.layerBegin = begin;
            begin += candidate.layers[j];
            stage.layerEnd = begin;
            pipeline.stages.push_back(std::move(stage));
        }
        plan.pipelines.push_back(std::move(pipeline));
        return plan;
    }

    Error failure(int mostStages) const
    {
        if (shouldStop())
            return Error{ErrorKind::Cancelled, "stopped before any Metis plan that fits was found"};
        const Topology &topology = m_problem.topology;
        double totalGiB = 0;
        for (int g = 0; g < topology.gpuCount(); ++g)
            totalGiB += topology.gpuType(g).memoryGiB;
        const std::string where = "model '" + m_problem.model.name + "' on cluster '"
                                  + topology.cluster().name + "' ("
                                  + std::to_string(topology.gpuCount()) + " GPUs, "
                                  + gibText(totalGiB, 0) + " GiB in all)";
        if (m_unconnected && !m_outOfMemory)
            return Error{ErrorKind::NoPlanFits,
                         "no Metis plan for " + where
                             + " can run: every plan that fits in memory needs GPUs that have "
                               "no network path between them; connect the machines"};
        return Error{ErrorKind::NoPlanFits,
                     "no Metis plan for " + where + " fits in memory: with 1 to "
                         + std::to_string(mostStages)
                         + " stages, every device-group sequence ran out of memory even at the "
                           "highest TP degree with layers moved to other stages; add GPUs, "
                           "train a smaller model, lower the micro-batch or the sequence "
                           "length, or shard the optimizer state (shard_optimizer)"};
    }

    const Problem &m_problem;
    const CostModel &m_costModel;
    const PlannerOptions &m_options;
    SearchReporter m_reporter;
    StageCatalog m_catalog;
    std::mt19937_64 m_random;

    double m_variance = 0;
    int m_maxPermutationLength = 0;
    int m_sequences = 0;
    size_t m_top = 0;

    std::vector<double> m_kept; // Metis costs of the current top, ascending
    std::optional<Plan> m_best;
    double m_bestS = kInfinity;
    bool m_outOfMemory = false;
    bool m_unconnected = false;
};

} // namespace

Result<PlanSearch> MetisPlanner::planImpl(const Problem &problem, const CostModel &costModel,
                                          const PlannerOptions &options, std::stop_token stop,
                                          ProgressSink &progress) const
{
    return Search(problem, costModel, options, std::move(stop), progress).run();
}

} // namespace hetplan
