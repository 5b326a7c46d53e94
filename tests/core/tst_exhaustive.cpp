// The exhaustive oracle: refuses what it cannot enumerate, and on clusters small enough to
// enumerate by hand it finds the same optimum as an independent brute force.
#include "core/cost/cost_model.h"
#include "core/cost/problem.h"
#include "core/cost/validator.h"
#include "core/io/catalog_json.h"
#include "core/io/loaders.h"
#include "core/planners/exhaustive.h"
#include "core/planners/megatron.h"
#include "tests/test_registry.h"

#include <QtTest>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>

using namespace hetplan;

namespace {

Problem problemOf(Cluster cluster, int globalBatch, Mode mode = Mode::Train, int layers = 4)
{
    auto topology = Topology::build(cluster, builtinGpuCatalog());
    if (!topology)
        qFatal("fixture: %s", topology.error().message.c_str());
    Workload workload;
    workload.mode = mode;
    workload.train.globalBatch = globalBatch;
    workload.train.microBatchSizes = {1};
    workload.train.seqLen = 2048;
    return {std::move(topology).value(),
            {"tiny-" + std::to_string(layers), layers, 2048, 5504, 16, 16, 32000, 2048,
             MlpKind::SwiGlu},
            workload};
}

// HexiScale §3.1's case study as the paper runs it: Llama-2 13B (40 layers), global batch 24.
Problem caseStudyProblem()
{
    const auto cluster = loadCluster("case-study");
    const auto model = loadModel("llama2-13b");
    if (!cluster || !model)
        qFatal("fixture: bundled case study or llama2-13b missing");
    Problem problem = problemOf(cluster.value(), 24);
    problem.model = model.value();
    problem.workload.train.seqLen = 4096;
    return problem;
}

// Peak resident memory of this process so far (Linux), 0 where unknown.
long peakResidentKiB()
{
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("VmHWM:", 0) == 0)
            return std::stol(line.substr(6));
    return 0;
}

// The number of plans the refusal message states ("would have to enumerate N plans").
std::uint64_t statedPlanCount(const std::string &message)
{
    const std::string marker = "enumerate ";
    const size_t at = message.find(marker);
    if (at == std::string::npos)
        return 0;
    return std::stoull(message.substr(at + marker.size()));
}

// Machine A: two RTX 4090 over PCIe; machine B: one RTX 3090; 2 GB/s between them.
Cluster smallCluster()
{
    Cluster cluster;
    cluster.name = "oracle-fixture";
    cluster.machines
        = {{"A", "RTX4090-24G", 2, "", {LinkKind::Pcie, 32, 8}, NicKind::Ethernet, {}},
           {"B", "RTX3090-24G", 1, "", {LinkKind::Pcie, 16, 8}, NicKind::Ethernet, {}}};
    cluster.switches = {{"sw", {}}};
    cluster.links
        = {{"A", "sw", LinkKind::Ethernet, 2, 25}, {"B", "sw", LinkKind::Ethernet, 2, 25}};
    return cluster;
}

Result<PlanSearch> runExhaustive(const Problem &problem, const CostModel &costModel,
                                 bool heuristicSeed = true, std::optional<double> maxPlans = {},
                                 std::stop_token stop = {})
{
    NullProgress progress;
    PlannerOptions options;
    options.parameters.exhaustive.heuristicSeed = heuristicSeed;
    if (maxPlans)
        options.parameters.exhaustive.maxPlans = double(*maxPlans);
    return ExhaustivePlanner().plan(problem, costModel, options, std::move(stop), progress);
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
        const auto grow
            = [&](auto &&self, std::vector<std::vector<int>> &sequence, int used) -> void {
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
        const auto choose
            = [&](auto &&self, std::vector<const std::vector<std::vector<int>> *> &chosen,
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

    // The 40-layer case study has ~1.2e11 layer splits on 8 GPUs: it must be refused up front,
    // quickly and without materialising the space (it once ate > 20 GB).
    void refusesHugeLayerSpaces()
    {
        const Problem problem = caseStudyProblem();
        const auto model = makeCostModel(CostModelKind::HexiScalePaper);
        const auto started = std::chrono::steady_clock::now();
        const auto result = runExhaustive(problem, *model);
        const double elapsedS
            = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        QVERIFY(!result.ok());
        QCOMPARE(result.error().kind, ErrorKind::Unsupported);
        const std::string &message = result.error().message;
        qInfo("%s (%.3f s, peak %ld KiB)", message.c_str(), elapsedS, peakResidentKiB());
        QVERIFY(statedPlanCount(message) > std::uint64_t(ExhaustivePlanner::kDefaultMaxPlans));
        QVERIFY(message.find("max_plans = " + std::to_string(ExhaustivePlanner::kDefaultMaxPlans))
                != std::string::npos);
        QVERIFY(message.find("fewer layers or a smaller cluster") != std::string::npos);
        QVERIFY(message.find("raise the knob max_plans") != std::string::npos);
        QVERIFY(elapsedS < 5);
        QVERIFY(peakResidentKiB() < 512 * 1024);
    }

    // The stated size is the budget boundary: exactly that many plans runs, one fewer refuses.
    void budgetIsTheStatedSize()
    {
        const Problem problem = problemOf(smallCluster(), 6);
        const auto model = makeCostModel(CostModelKind::HexiScalePaper);
        const auto refused = runExhaustive(problem, *model, true, 1);
        QVERIFY(!refused.ok());
        QCOMPARE(refused.error().kind, ErrorKind::Unsupported);
        const std::uint64_t plans = statedPlanCount(refused.error().message);
        QVERIFY(plans > 1);
        QVERIFY(runExhaustive(problem, *model, true, double(plans)).ok());
        const auto justUnder = runExhaustive(problem, *model, true, double(plans - 1));
        QVERIFY(!justUnder.ok());
        QCOMPARE(statedPlanCount(justUnder.error().message), plans);
    }

    void rejectsNonsenseBudget_data()
    {
        QTest::addColumn<double>("maxPlans");
        QTest::newRow("zero") << 0.0;
        QTest::newRow("negative") << -5.0;
        QTest::newRow("not a number") << std::numeric_limits<double>::quiet_NaN();
    }

    void rejectsNonsenseBudget()
    {
        QFETCH(double, maxPlans);
        const Problem problem = problemOf(smallCluster(), 6);
        const auto model = makeCostModel(CostModelKind::HexiScalePaper);
        const auto result = runExhaustive(problem, *model, true, maxPlans);
        QVERIFY(!result.ok());
        QCOMPARE(result.error().kind, ErrorKind::BadInput);
        QVERIFY(result.error().message.find("max_plans") != std::string::npos);
    }

    // A space allowed by a raised budget but far too long to finish: a stop ends it promptly.
    void honoursStop()
    {
        Problem problem = caseStudyProblem();
        problem.model.layers = 16; // ~5e8 plans, tens of seconds
        const auto model = makeCostModel(CostModelKind::HexiScalePaper);
        std::stop_source stop;
        std::jthread stopper([&stop] {
            std::this_thread::sleep_for(std::chrono::milliseconds(300));
            stop.request_stop();
        });
        const auto started = std::chrono::steady_clock::now();
        const auto result = runExhaustive(problem, *model, false, 1e12, stop.get_token());
        const double elapsedS
            = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        QVERIFY2(elapsedS < 3, qPrintable(QString::number(elapsedS)));
        if (result.ok())
            QVERIFY(result->stoppedEarly);
        else
            QCOMPARE(result.error().kind, ErrorKind::Cancelled);
    }

    void matchesBruteForce_data()
    {
        QTest::addColumn<int>("costModel");
        QTest::addColumn<bool>("heuristicSeed");
        QTest::addColumn<int>("layers");
        QTest::newRow("hexiscale-paper") << int(CostModelKind::HexiScalePaper) << true << 4;
        QTest::newRow("hetplan") << int(CostModelKind::HetPlan) << true << 4;
        QTest::newRow("hexiscale-paper, no seed")
            << int(CostModelKind::HexiScalePaper) << false << 4;
        QTest::newRow("hetplan, no seed") << int(CostModelKind::HetPlan) << false << 4;
        QTest::newRow("hetplan, 7 layers, no seed") << int(CostModelKind::HetPlan) << false << 7;
    }

    void matchesBruteForce()
    {
        QFETCH(int, costModel);
        QFETCH(bool, heuristicSeed);
        QFETCH(int, layers);
        const Problem problem = problemOf(smallCluster(), 6, Mode::Train, layers);
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
        const auto megatron
            = MegatronPlanner().plan(problem, *model, PlannerOptions{}, {}, progress);
        QVERIFY(megatron.ok());
        QVERIFY(oracle->evaluation.iterationS <= megatron->evaluation.iterationS);
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestExhaustive)
#include "tst_exhaustive.moc"
