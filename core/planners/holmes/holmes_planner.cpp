// Holmes (docs/architecture.md, planners; Holmes §3): NIC-aware grouping over the fabrics of a
// cluster.
#include "core/planners/holmes/holmes_planner.h"

#include "core/base/infinity.h"
#include "core/cost/cost_model.h"
#include "core/cost/problem.h"
#include "core/cost/validator.h"
#include "core/planners/closest_fit.h"
#include "core/planners/holmes/fabrics.h"
#include "core/planners/holmes/layer_partition.h"
#include "core/planners/search_reporter.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace hetplan {

namespace {

using namespace holmes;

// Beyond this many fabrics only all of them, or one alone, take part: 2^k subsets would not.
constexpr int kMaxSubsetFabrics = 6;

using Group = std::vector<int>; // a TP group: t GPUs of one machine, in rank order (eq. 1)

// One point of the search.
struct Layout
{
    std::vector<int> fabrics; // indices into the fabric list, in pipeline order
    int tp = 1;
    int dp = 1;
    int microBatch = 1;
    int stages = 0;

    std::string describe() const
    {
        return "d=" + std::to_string(dp) + ", t=" + std::to_string(tp)
               + ", p=" + std::to_string(stages) + " over " + std::to_string(fabrics.size())
               + (fabrics.size() == 1 ? " fabric" : " fabrics") + ", micro-batch "
               + std::to_string(microBatch);
    }
};

// A stage position of every pipeline: its fabric and the TP group each pipeline puts there
// (eq. 2–3: stage blocks of t·d consecutive ranks, the j-th TP group of a block in pipeline j).
struct Slot
{
    int fabric = 0;
    std::vector<const Group *> groups; // one per pipeline
    double speed = 0;                  // its slowest group's achieved FLOP/s
};

class Search
{
public:
    Search(const Problem &problem, const CostModel &costModel, const PlannerOptions &options,
           std::stop_token stop, ProgressSink &progress)
        : m_problem(problem)
        , m_costModel(costModel)
        , m_options(options)
        , m_reporter(std::move(stop), progress)
        , m_fabrics(findFabrics(problem.topology))
        , m_alpha(options.parameters.holmes.alpha)
    {}

    Result<PlanSearch> run()
    {
        const TrainWorkload &train = m_problem.workload.train;
        std::vector<int> microBatches;
        for (int b : train.microBatchSizes)
            if (b >= 1 && train.globalBatch % b == 0
                && std::find(microBatches.begin(), microBatches.end(), b) == microBatches.end())
                microBatches.push_back(b);
        std::sort(microBatches.begin(), microBatches.end());
        considerWarmStart();

        int widestMachine = 0;
        for (const Machine &m : m_problem.topology.cluster().machines)
            widestMachine = std::max(widestMachine, m.count);
        for (int t = 1; t <= widestMachine && !shouldStop(); ++t) {
            const std::vector<std::vector<Group>> groups = tpGroups(t);
            size_t mostGroups = 0;
            for (const std::vector<Group> &g : groups)
                mostGroups = std::max(mostGroups, g.size());
            for (int d = 1; d <= int(mostGroups) && !shouldStop(); ++d)
                for (int b : microBatches)
                    if (train.globalBatch % (b * d) == 0)
                        tryDegrees(groups, t, d, b);
        }

        PlanSearch search;
        search.trace = m_reporter.takeTrace();
        if (m_best) {
            search.plan = std::move(*m_best);
            return search;
        }
        if (m_reporter.stopRequested())
            return Error{ErrorKind::Cancelled,
                         "planning was cancelled before a Holmes plan that fits was found"};
        return Error{ErrorKind::NoPlanFits, noPlanMessage(microBatches),
                     m_closest.attachment(m_problem)};
    }

private:
    bool shouldStop() const
    {
        return m_reporter.shouldStop()
               || (m_options.maxIterations > 0 && m_evaluated >= m_options.maxIterations);
    }

    // Never return worse than a usable warm start.
    void considerWarmStart()
    {
        if (!m_options.warmStart
            || !validatePlan(m_problem, *m_options.warmStart, &m_costModel).empty())
            return;
        const double costS = m_costModel.objectiveS(m_problem, *m_options.warmStart);
        if (std::isfinite(costS)) {
            m_best = *m_options.warmStart;
            m_bestS = costS;
        }
    }

    // Per fabric, its TP groups of t GPUs inside one machine, in rank order (eq. 1), keeping
    // those the cost model allows.
    std::vector<std::vector<Group>> tpGroups(int t)
    {
        const Topology &topology = m_problem.topology;
        std::vector<std::vector<Group>> groups(m_fabrics.size());
        for (size_t f = 0; f < m_fabrics.size(); ++f)
            for (int machine : m_fabrics[f].machines) {
                const int first = topology.firstGpuOf(machine);
                const int count = topology.cluster().machines[size_t(machine)].count;
                for (int g = 0; g + t <= count; g += t) {
                    Group group;
                    for (int i = 0; i < t; ++i)
                        group.push_back(first + g + i);
                    const std::string problem = m_costModel.tpGroupProblem(m_problem, group);
                    if (problem.empty())
                        groups[f].push_back(std::move(group));
                    else if (m_tpRejection.empty())
                        m_tpRejection = "t=" + std::to_string(t) + ": " + problem;
                }
            }
        return groups;
    }

    // Every choice of fabrics (each holding at least one stage block of t·d GPUs) and order.
    void tryDegrees(const std::vector<std::vector<Group>> &groups, int t, int d, int b)
    {
        std::vector<int> usable;
        for (size_t f = 0; f < groups.size(); ++f)
            if (int(groups[f].size()) >= d)
                usable.push_back(int(f));
        if (usable.empty())
            return;
        std::vector<std::vector<int>> subsets;
        if (usable.size() <= size_t(kMaxSubsetFabrics)) {
            for (unsigned mask = (1u << usable.size()) - 1; mask > 0; --mask) {
                std::vector<int> subset;
                for (size_t i = 0; i < usable.size(); ++i)
                    if ((mask >> i) & 1u)
                        subset.push_back(usable[i]);
                subsets.push_back(std::move(subset));
            }
        } else {
            subsets.push_back(usable);
            for (int f : usable)
                subsets.push_back({f});
        }
        for (std::vector<int> &subset : subsets) {
            Layout layout{std::move(subset), t, d, b, 0};
            for (int f : layout.fabrics)
                layout.stages += int(groups[size_t(f)].size()) / d;
            if (layout.stages > m_problem.model.layers)
                continue;
            // §3.2 numbers InfiniBand clusters first; the reverse order puts the output head
            // on the other side, which matters when memory is short.
            tryLayout(groups, layout);
            if (layout.fabrics.size() > 1 && !shouldStop()) {
                std::reverse(layout.fabrics.begin(), layout.fabrics.end());
                tryLayout(groups, layout);
            }
            if (shouldStop())
                return;
        }
    }

    std::vector<Slot> slotsOf(const std::vector<std::vector<Group>> &groups,
                              const Layout &layout) const
    {
        std::vector<Slot> slots;
        for (int f : layout.fabrics) {
            const std::vector<Group> &fabricGroups = groups[size_t(f)];
            const size_t blocks = fabricGroups.size() / size_t(layout.dp);
            for (size_t block = 0; block < blocks; ++block) {
                Slot slot;
                slot.fabric = f;
                slot.speed = kInfinity;
                for (size_t j = 0; j < size_t(layout.dp); ++j) {
                    const Group &group = fabricGroups[block * size_t(layout.dp) + j];
                    slot.groups.push_back(&group);
                    double slowest = kInfinity;
                    for (int gpu : group) {
                        const GpuType &type = m_problem.topology.gpuType(gpu);
                        slowest = std::min(slowest, type.tflops * type.achievedFraction);
                    }
                    slot.speed = std::min(slot.speed, slowest * double(group.size()));
                }
                slots.push_back(std::move(slot));
            }
        }
        return slots;
    }

    // Eq. 5 over the fabrics, then each fabric's layers over its stages by their speeds.
    std::vector<int> partition(const Layout &layout, const std::vector<Slot> &slots) const
    {
        std::vector<double> fabricSpeeds;
        std::vector<int> fabricStages;
        for (int f : layout.fabrics) {
            double speed = 0;
            int stages = 0;
            for (const Slot &slot : slots)
                if (slot.fabric == f) {
                    speed += slot.speed;
                    ++stages;
                }
            fabricSpeeds.push_back(speed);
            fabricStages.push_back(stages);
        }
        const std::vector<int> perFabric
            = fabricLayers(fabricSpeeds, fabricStages, m_problem.model.layers, m_alpha);
        std::vector<int> counts;
        size_t first = 0;
        for (size_t i = 0; i < layout.fabrics.size(); ++i) {
            std::vector<double> speeds;
            for (size_t k = first; k < first + size_t(fabricStages[i]); ++k)
                speeds.push_back(slots[k].speed);
            for (int n : spreadLayers(perFabric[i], speeds))
                counts.push_back(n);
            first += size_t(fabricStages[i]);
        }
        return counts;
    }

    Plan planOf(const Layout &layout, const std::vector<Slot> &slots,
                const std::vector<int> &counts) const
    {
        const int globalBatch = m_problem.workload.train.globalBatch;
        Plan plan;
        for (int j = 0; j < layout.dp; ++j) {
            Pipeline pipeline;
            pipeline.microBatch = layout.microBatch;
            pipeline.microBatches = globalBatch / (layout.microBatch * layout.dp);
            int layer = 0;
            for (size_t k = 0; k < slots.size(); ++k) {
                Stage stage;
                stage.gpus = *slots[k].groups[size_t(j)];
                stage.tp = layout.tp;
                stage.layerBegin = layer;
                layer += counts[k];
                stage.layerEnd = layer;
                const Transport own = m_fabrics[size_t(slots[k].fabric)].transport();
                // §3.2: DP groups over their fabric's NIC; PP groups over Ethernet between
                // fabrics. TP stays in the node, where no NIC is involved.
                stage.transport.dp = own;
                if (k + 1 < slots.size())
                    stage.transport.pp
                        = slots[k + 1].fabric == slots[k].fabric ? own : Transport::Socket;
                pipeline.stages.push_back(std::move(stage));
            }
            plan.pipelines.push_back(std::move(pipeline));
        }
        return plan;
    }

    static void applyCounts(Plan &plan, const std::vector<int> &counts)
    {
        for (Pipeline &pipeline : plan.pipelines) {
            int layer = 0;
            for (size_t k = 0; k < pipeline.stages.size(); ++k) {
                pipeline.stages[k].layerBegin = layer;
                layer += counts[k];
                pipeline.stages[k].layerEnd = layer;
            }
        }
    }

    // Eq. 5's condition Mem(N_ci) ≤ DMem(c_i), met the way §3.3 does, by adjusting α_ci: layers
    // move from the stage most over its memory to the one with the most room. Returns the
    // evaluation of the final partition.
    Evaluation fitMemory(Plan &plan, std::vector<int> &counts, const std::vector<Slot> &slots)
    {
        m_slotOfGpu.assign(size_t(m_problem.topology.gpuCount()), -1);
        for (size_t k = 0; k < slots.size(); ++k)
            for (const Group *group : slots[k].groups)
                for (int gpu : *group)
                    m_slotOfGpu[size_t(gpu)] = int(k);
        const int attempts = 2 * int(slots.size()) + 8;
        Evaluation evaluation = m_costModel.evaluate(m_problem, plan);
        for (int attempt = 0; attempt < attempts && !evaluation.fitsInMemory(); ++attempt) {
            std::vector<double> ratio(slots.size(), 0.0);
            for (const GpuMemory &m : evaluation.memory) {
                const int k = m_slotOfGpu[size_t(m.gpu)];
                if (k >= 0 && m.capacityGiB > 0)
                    ratio[size_t(k)] = std::max(ratio[size_t(k)], m.usedGiB / m.capacityGiB);
            }
            const size_t from
                = size_t(std::max_element(ratio.begin(), ratio.end()) - ratio.begin());
            size_t to = slots.size();
            for (size_t k = 0; k < slots.size(); ++k)
                if (k != from && (to == slots.size() || ratio[k] < ratio[to]))
                    to = k;
            if (to == slots.size() || counts[from] <= 1 || ratio[to] >= 1)
                break;
            // Memory grows about linearly with layers: move the overflowing fraction, at least one.
            const int excess = int(std::ceil(counts[from] * (ratio[from] - 1) / ratio[from]));
            const int moved = std::clamp(excess, 1, counts[from] - 1);
            counts[from] -= moved;
            counts[to] += moved;
            applyCounts(plan, counts);
            evaluation = m_costModel.evaluate(m_problem, plan);
        }
        return evaluation;
    }

    void tryLayout(const std::vector<std::vector<Group>> &groups, const Layout &layout)
    {
        const std::vector<Slot> slots = slotsOf(groups, layout);
        std::vector<int> counts = partition(layout, slots);
        Plan plan = planOf(layout, slots, counts);
        const Evaluation evaluation = fitMemory(plan, counts, slots);
        ++m_evaluated;
        const double costS = evaluation.objectiveS();
        if (m_closest.closer(evaluation))
            m_closest.record(evaluation, layout.describe());
        else if (!std::isfinite(costS) && m_unusable.empty())
            m_unusable = "(" + layout.describe() + "): "
                         + (evaluation.errors.empty() ? std::string("the cost model rejects it")
                                                      : evaluation.errors.front());
        if (costS < m_bestS) {
            // The judge is the validator: e.g. two fabrics with no Ethernet path between them.
            const std::vector<PlanIssue> issues = validatePlan(m_problem, plan, &m_costModel);
            if (issues.empty()) {
                m_best = std::move(plan);
                m_bestS = costS;
            } else if (m_unusable.empty()) {
                m_unusable = "(" + layout.describe() + "): " + issues.front().message;
            }
        }
        m_reporter.report(m_evaluated, m_bestS, m_best ? &*m_best : nullptr);
    }

    std::string fabricList() const
    {
        std::string text;
        for (const Fabric &fabric : m_fabrics)
            text += (text.empty() ? "" : "; ") + fabric.describe(m_problem.topology);
        return text;
    }

    std::string noPlanMessage(const std::vector<int> &microBatches) const
    {
        std::string message;
        if (!m_closest.empty()) {
            message = "no Holmes plan fits in memory, even with layers moved off full stages: "
                      + m_closest.describe(m_problem);
            if (!m_unusable.empty())
                message += "; the layouts that fit cannot run, e.g. " + m_unusable;
        } else if (!m_unusable.empty()) {
            message = "no Holmes plan can run: every layout that fits in memory fails, e.g. "
                      + m_unusable;
        } else if (m_evaluated == 0 && !m_tpRejection.empty()) {
            message = "no Holmes plan exists: the " + std::string(m_costModel.name())
                      + " cost model refuses the TP groups, e.g. " + m_tpRejection;
        } else {
            std::string sizes;
            for (int b : microBatches)
                sizes += (sizes.empty() ? "" : ", ") + std::to_string(b);
            message = "no Holmes plan exists: it needs d data-parallel TP groups per stage inside "
                      "one fabric, at most one stage per layer ("
                      + std::to_string(m_problem.model.layers) + "), and global_batch "
                      + std::to_string(m_problem.workload.train.globalBatch)
                      + " a multiple of micro-batch × d (micro-batch candidates that divide it: "
                      + (sizes.empty() ? std::string("none") : sizes) + ")";
        }
        return message + " [" + fabricList() + "]";
    }

    const Problem &m_problem;
    const CostModel &m_costModel;
    const PlannerOptions &m_options;
    SearchReporter m_reporter;
    std::vector<Fabric> m_fabrics;
    double m_alpha;

    std::optional<Plan> m_best;
    double m_bestS = kInfinity;
    int m_evaluated = 0;
    std::vector<int> m_slotOfGpu;
    std::string m_tpRejection; // the first TP group the cost model refused
    std::string m_unusable;    // the first layout that fits in memory but cannot run
    ClosestFit m_closest;      // the layout that came closest to fitting
};

} // namespace

Result<PlanSearch> HolmesPlanner::planImpl(const Problem &problem, const CostModel &costModel,
                                           const PlannerOptions &options, std::stop_token stop,
                                           ProgressSink &progress) const
{
    if (problem.workload.mode != Mode::Train)
        return Error{ErrorKind::Unsupported, "planner 'holmes' plans training only"};
    return Search(problem, costModel, options, std::move(stop), progress).run();
}

} // namespace hetplan
