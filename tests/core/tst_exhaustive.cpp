// The exhaustive oracle: refuses what it cannot enumerate, and on clusters small enough to
// enumerate by hand it finds the same optimum as an independent brute force.
#include "core/catalog/catalog.h"
#include "core/cost/cost_model.h"
#include "core/cost/problem.h"
#include "core/io/loaders.h"
#include "core/plan/validator.h"
#include "core/planners/exhaustive.h"
#include "core/planners/megatron.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <limits>

using namespace hetplan;

namespace {

Problem problemOf(Cluster cluster, int globalBatch, Mode mode = Mode::Train)
{
    auto topology = Topology::build(cluster, GpuCatalog::builtin());
    if (!topology)
        qFatal("fixture: %s", topology.error().message.c_str());
    Workload workload;
    workload.mode = mode;
    workload.train.globalBatch = globalBatch;
    workload.train.microBatchSizes = {1};
    workload.train.seqLen = 2048;
    return {std::move(topology).value(),
            {"tiny-4", 4, 2048, 5504, 16, 16, 32000, 2048, MlpKind::SwiGlu}, workload};
}

// Machine A: two RTX 4090 over PCIe; machine B: one RTX 3090; 2 GB/s between them.
Cluster smallCluster()
{
    Cluster cluster;
    cluster.name = "oracle-fixture";
    cluster.machines = {{"A", "RTX4090-24G", 2, "", {LinkKind::Pcie, 32, 8}, NicKind::Ethernet, {}},
                        {"B", "RTX3090-24G", 1, "", {LinkKind::Pcie, 16, 8}, NicKind::Ethernet, {}}};
    cluster.switches = {{"sw", {}}};
    cluster.links = {{"A", "sw", LinkKind::Ethernet, 2, 25}, {"B", "sw", LinkKind::Ethernet, 2, 25}};
    return cluster;
}

Result<PlanSearch> runExhaustive(const Problem &problem, const CostModel &costModel,
                                 bool heuristicSeed = true)
{
    NullProgress progress;
    PlannerOptions options;
    options.knobs["heuristic_seed"] = heuristicSeed ? 1 : 0;
    return ExhaustivePlanner().plan(problem, costModel, options, {}, progress);
}

// Independent brute force over the same space for three GPUs, written without the oracle's
// reductions: every ordered sequence of disjoint stages for each pipeline, every set of up to
// three pipelines, every layer composition, every micro-batch distribution.
class BruteForce
{
public:
    BruteForce(const Problem &problem, const CostModel &costModel)
        : m_problem(problem)
        , m_costModel(costModel)
    {}

    double bestS()
    {
        std::vector<std::vector<int>> groups; // every allowed stage GPU set
        const Topology &topology = m_problem.topology;
        const int n = topology.gpuCount();
        for (int mask = 1; mask < (1 << n); ++mask) {
            std::vector<int> gpus;
            for (int g = 0; g < n; ++g)
                if (mask & (1 << g))
                    gpus.push_back(g);
            if (m_costModel.allowsTpGroup(m_problem, gpus))
                groups.push_back(gpus);
        }
        std::vector<std::vector<std::vector<int>>> sequences; // ordered disjoint stage lists
        const auto grow = [&](auto &&self, std::vector<std::vector<int>> &sequence, int used) -> void {
            if (!sequence.empty())
                sequences.push_back(sequence);
            for (const auto &group : groups) {
                int mask = 0;
                for (int g : group)
                    mask |= 1 << g;
                if ((mask & used) || int(sequence.size()) == m_problem.model.layers)
                    continue;
                sequence.push_back(group);
                self(self, sequence, used | mask);
                sequence.pop_back();
            }
        };
        std::vector<std::vector<int>> start;
        grow(grow, start, 0);
        double best = std::numeric_limits<double>::infinity();
        const auto usedMask = [](const std::vector<std::vector<int>> &sequence) {
            int mask = 0;
            for (const auto &group : sequence)
                for (int g : group)
                    mask |= 1 << g;
            return mask;
        };
        // Sets of pipelines (ordered; duplicates only cost time).
        const auto choose = [&](auto &&self, std::vector<const std::vector<std::vector<int>> *> &chosen,
                                int used) -> void {
            if (!chosen.empty())
                best = std::min(best, bestLayout(chosen));
            for (const auto &sequence : sequences) {
                const int mask = usedMask(sequence);
                if (mask & used)
                    continue;
                chosen.push_back(&sequence);
                self(self, chosen, used | mask);
                chosen.pop_back();
            }
        };
        std::vector<const std::vector<std::vector<int>> *> chosen;
        choose(choose, chosen, 0);
        return best;
    }

private:
    double bestLayout(const std::vector<const std::vector<std::vector<int>> *> &pipelines)
    {
        Plan plan;
        plan.workload = m_problem.workload;
        for (const auto *sequence : pipelines) {
            Pipeline pipeline;
            for (const auto &group : *sequence) {
                Stage stage;
                stage.gpus = group;
                stage.tp = int(group.size());
                pipeline.stages.push_back(stage);
            }
            plan.pipelines.push_back(pipeline);
        }
        double best = std::numeric_limits<double>::infinity();
        const auto layers = [&](auto &&self, size_t p, size_t s, int begin) -> void {
            if (p == plan.pipelines.size()) {
                best = std::min(best, bestBatches(plan, 0, m_problem.workload.train.globalBatch));
                return;
            }
            auto &stages = plan.pipelines[p].stages;
            const int total = m_problem.model.layers;
            const int left = int(stages.size() - s) - 1;
            for (int end = begin + 1; end <= total - left; ++end) {
                if (s + 1 == stages.size() && end != total)
                    continue;
                stages[s].layerBegin = begin;
                stages[s].layerEnd = end;
                if (s + 1 == stages.size())
                    self(self, p + 1, 0, 0);
                else
                    self(self, p, s + 1, end);
            }
        };
        layers(layers, 0, 0, 0);
        return best;
    }

    double bestBatches(Plan &plan, size_t p, int left)
    {
        if (p + 1 == plan.pipelines.size()) {
            plan.pipelines[p].microBatches = left;
            return left >= 1 ? m_costModel.objectiveS(m_problem, plan)
                             : std::numeric_limits<double>::infinity();
        }
        double best = std::numeric_limits<double>::infinity();
        for (int m = 1; m < left; ++m) {
            plan.pipelines[p].microBatches = m;
            best = std::min(best, bestBatches(plan, p + 1, left - m));
        }
        return best;
    }

    const Problem &m_problem;
    const CostModel &m_costModel;
};

} // namespace

class TestExhaustive : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void refusesLargeClusters()
    {
        const auto big = loadCluster("hetero-setting-3");
        QVERIFY(big.ok());
        const Problem problem = problemOf(big.value(), 64);
        const auto model = makeCostModel(CostModelKind::HexiScalePaper);
        const auto result = runExhaustive(problem, *model);
        QVERIFY(!result.ok());
        QCOMPARE(result.error().kind, ErrorKind::Unsupported);
        QVERIFY(result.error().message.find("at most 8 GPUs") != std::string::npos);
    }

    void refusesInference()
    {
        const Problem problem = problemOf(smallCluster(), 8, Mode::Infer);
        const auto model = makeCostModel(CostModelKind::HetPlan);
        const auto result = runExhaustive(problem, *model);
        QVERIFY(!result.ok());
        QCOMPARE(result.error().kind, ErrorKind::Unsupported);
    }

    void matchesBruteForce_data()
    {
        QTest::addColumn<int>("costModel");
        QTest::addColumn<bool>("heuristicSeed");
        QTest::newRow("hexiscale-paper") << int(CostModelKind::HexiScalePaper) << true;
        QTest::newRow("hetplan") << int(CostModelKind::HetPlan) << true;
        QTest::newRow("hexiscale-paper, no seed") << int(CostModelKind::HexiScalePaper) << false;
        QTest::newRow("hetplan, no seed") << int(CostModelKind::HetPlan) << false;
    }

    void matchesBruteForce()
    {
        QFETCH(int, costModel);
        QFETCH(bool, heuristicSeed);
        const Problem problem = problemOf(smallCluster(), 6);
        const auto model = makeCostModel(CostModelKind(costModel));
        const auto oracle = runExhaustive(problem, *model, heuristicSeed);
        QVERIFY2(oracle.ok(), oracle.ok() ? "" : oracle.error().message.c_str());
        QVERIFY(validatePlan(problem, oracle->plan, model.get()).empty());
        const double bruteS = BruteForce(problem, *model).bestS();
        qInfo("%s: oracle %.5f s, brute force %.5f s", std::string(model->name()).c_str(),
              oracle->evaluation.iterationS, bruteS);
        QVERIFY(std::abs(oracle->evaluation.iterationS - bruteS) <= 1e-9 * bruteS);
    }

    void neverWorseThanMegatron()
    {
        const auto caseStudy = loadCluster("case-study");
        QVERIFY(caseStudy.ok());
        const Problem problem = problemOf(caseStudy.value(), 8);
        const auto model = makeCostModel(CostModelKind::HexiScalePaper);
        const auto oracle = runExhaustive(problem, *model);
        QVERIFY(oracle.ok());
        NullProgress progress;
        const auto megatron = MegatronPlanner().plan(problem, *model, PlannerOptions{}, {}, progress);
        QVERIFY(megatron.ok());
        QVERIFY(oracle->evaluation.iterationS <= megatron->evaluation.iterationS);
    }
};

QTEST_APPLESS_MAIN(TestExhaustive)
#include "tst_exhaustive.moc"
