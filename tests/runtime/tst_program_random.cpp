// Hundreds of seeded random valid plans (random clusters, stage cuts, TP in {1, 2, 4}, dp > 1
// with random dp_split, pipelines of their own micro-batch sizes and counts) compile into
// programs the checker proves; with a model whose heads TP 4 cannot divide, the same plans are
// refused naming the first stage that shards by 4.
#include "core/cost/problem.h"
#include "core/cost/validator.h"
#include "core/io/catalog_json.h"
#include "runtime/program/program_text.h"
#include "tests/runtime/program_test_support.h"
#include "tests/test_registry.h"

#include <QtTest>

#include <algorithm>
#include <random>

using namespace hetplan;
using namespace hetplan::test;

namespace {

constexpr int kPlans = 600; // attempts; some run out of GPUs before their first stage

int uniform(std::mt19937_64 &random, int low, int high) // inclusive
{
    return std::uniform_int_distribution<int>(low, high)(random);
}

Topology randomTopology(std::mt19937_64 &random)
{
    static const char *const kTypes[] = {"A800-80G", "RTX4090-24G", "RTX3090-24G"};
    Cluster cluster;
    cluster.name = "random";
    cluster.switches = {{"sw", {}}};
    const int machines = uniform(random, 1, 5);
    for (int m = 0; m < machines; ++m) {
        Machine machine;
        machine.name = "m" + std::to_string(m);
        machine.gpu = kTypes[uniform(random, 0, 2)];
        machine.count = uniform(random, 1, 8);
        machine.intra = {LinkKind::Pcie, 16, 10};
        cluster.machines.push_back(machine);
        cluster.links.push_back({machine.name, "sw", LinkKind::Ethernet, 1, 50});
    }
    return orFail(Topology::build(cluster, builtinGpuCatalog()), "random cluster");
}

// `total` split into `parts` positive sizes.
std::vector<int> randomComposition(std::mt19937_64 &random, int total, int parts)
{
    std::vector<int> cuts;
    for (int i = 1; i < total; ++i)
        cuts.push_back(i);
    std::shuffle(cuts.begin(), cuts.end(), random);
    cuts.resize(size_t(parts - 1));
    cuts.push_back(0);
    cuts.push_back(total);
    std::sort(cuts.begin(), cuts.end());
    std::vector<int> sizes;
    for (size_t i = 1; i < cuts.size(); ++i)
        sizes.push_back(cuts[i] - cuts[i - 1]);
    return sizes;
}

// A valid training plan over some of the topology's GPUs, or an empty one when the GPUs ran
// out before the first stage.
Plan randomPlan(std::mt19937_64 &random, const Topology &topology, int layers)
{
    std::vector<int> pool(size_t(topology.gpuCount()));
    std::iota(pool.begin(), pool.end(), 0);
    std::shuffle(pool.begin(), pool.end(), random);
    std::vector<Pipeline> pipelines;
    const int pipelineCount = uniform(random, 1, 3);
    for (int p = 0; p < pipelineCount; ++p) {
        const int stageCount = std::min(uniform(random, 1, 4), layers);
        std::vector<int> layerSizes = randomComposition(random, layers, stageCount);
        Pipeline pipe;
        pipe.microBatches = uniform(random, 1, 6);
        int layer = 0;
        std::vector<Stage> stages;
        for (int s = 0; s < stageCount; ++s) {
            const int tp = std::array{1, 1, 2, 4}[size_t(uniform(random, 0, 3))];
            const int dp = uniform(random, 0, 2) == 0 ? uniform(random, 2, 3) : 1;
            if (static_cast<int>(pool.size()) < tp * dp)
                break;
            Stage stage;
            stage.tp = tp;
            stage.dp = dp;
            stage.gpus.assign(pool.end() - tp * dp, pool.end());
            pool.resize(pool.size() - size_t(tp * dp));
            stage.layerBegin = layer;
            layer += layerSizes[size_t(s)];
            stage.layerEnd = layer;
            stages.push_back(stage);
        }
        if (static_cast<int>(stages.size()) < stageCount) { // ran out of GPUs: return them
            for (const Stage &st : stages)
                pool.insert(pool.end(), st.gpus.begin(), st.gpus.end());
            break;
        }
        int maxDp = 1;
        for (const Stage &st : stages)
            maxDp = std::max(maxDp, st.dp);
        pipe.microBatch = uniform(random, maxDp, maxDp + 3);
        for (Stage &st : stages)
            if (st.dp > 1 && (pipe.microBatch % st.dp != 0 || uniform(random, 0, 1)))
                st.dpSplit = randomComposition(random, pipe.microBatch, st.dp);
        pipe.stages = std::move(stages);
        pipelines.push_back(std::move(pipe));
    }
    return trainingPlan(std::move(pipelines));
}

ModelSpec modelWithHeads(int layers, int heads, int kvHeads)
{
    return {"random", layers, heads * 64, 4096, heads, kvHeads, 32000, 2048, MlpKind::SwiGlu};
}

} // namespace

class TestProgramRandom : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void randomPlansCompileAndCheck()
    {
        std::mt19937_64 random(20261124);
        int checked = 0, asymmetric = 0, unevenSplit = 0, refused = 0;
        for (int i = 0; i < kPlans; ++i) {
            const Topology topology = randomTopology(random);
            const int layers = uniform(random, 1, 16);
            const Plan plan = randomPlan(random, topology, layers);
            if (plan.pipelines.empty())
                continue;
            const ModelSpec model = modelWithHeads(layers, 16, std::array{4, 8, 16}[i % 3]);
            const Problem problem{topology, model, plan.workload};
            const auto issues = validatePlan(problem, plan);
            if (!issues.empty())
                qFatal("plan %d is not valid: %s", i, issues.front().message.c_str());
            compileAndCheck(plan, model, topology);
            ++checked;
            std::vector<int> firstTp;
            bool uneven = false;
            int firstTp4Pipeline = -1, firstTp4Stage = -1;
            for (size_t p = 0; p < plan.pipelines.size(); ++p) {
                firstTp.push_back(plan.pipelines[p].stages.front().tp);
                for (size_t s = 0; s < plan.pipelines[p].stages.size(); ++s) {
                    const Stage &st = plan.pipelines[p].stages[s];
                    uneven = uneven
                             || (!st.dpSplit.empty()
                                 && std::adjacent_find(st.dpSplit.begin(), st.dpSplit.end(),
                                                       std::not_equal_to<>())
                                        != st.dpSplit.end());
                    if (st.tp == 4 && firstTp4Pipeline < 0) {
                        firstTp4Pipeline = int(p);
                        firstTp4Stage = int(s);
                    }
                }
            }
            asymmetric += std::adjacent_find(firstTp.begin(), firstTp.end(), std::not_equal_to<>())
                          != firstTp.end();
            unevenSplit += uneven;
            // Six heads: TP 4 cannot shard them; the first such stage is named.
            const auto program
                = runtime::compileProgram(plan, modelWithHeads(layers, 6, 6), topology);
            if (firstTp4Pipeline < 0) {
                QVERIFY(program.ok());
                continue;
            }
            QVERIFY(!program);
            QCOMPARE(program.error().kind, ErrorKind::BadInput);
            const QString expected = QStringLiteral("pipeline %1, stage %2: TP 4 does not divide")
                                         .arg(firstTp4Pipeline)
                                         .arg(firstTp4Stage);
            QVERIFY2(errorText(program.error()).contains(expected),
                     program.error().message.c_str());
            ++refused;
        }
        qInfo("%d random plans compiled and checked (%d with pipelines of different TP, %d "
              "with an uneven dp_split); %d refused with a model TP 4 cannot cut",
              checked, asymmetric, unevenSplit, refused);
        // The generator really exercises what the runtime finds hard.
        QVERIFY(checked >= 400);
        QVERIFY(asymmetric >= 50);
        QVERIFY(unevenSplit >= 50);
        QVERIFY(refused >= 50);
    }

    // Every op is needed: deleting any single op of any rank breaks pairing, coverage, dataflow,
    // the gradient sums or completion, and the checker says so.
    void everyDeletedOpIsCaught()
    {
        std::mt19937_64 random(7);
        int mutated = 0;
        while (mutated < 200) {
            const Topology topology = randomTopology(random);
            const int layers = uniform(random, 1, 12);
            const Plan plan = randomPlan(random, topology, layers);
            if (plan.pipelines.empty())
                continue;
            runtime::JobProgram program
                = compileAndCheck(plan, modelWithHeads(layers, 16, 8), topology);
            auto &ops = program.programs[size_t(uniform(random, 0, int(program.ranks.size()) - 1))];
            const int victim = uniform(random, 0, int(ops.size()) - 1);
            const QString deleted
                = QString::fromStdString(runtime::opText(program, ops[size_t(victim)]));
            ops.erase(ops.begin() + victim);
            QVERIFY2(!runtime::checkProgram(program), qPrintable(deleted));
            ++mutated;
        }
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestProgramRandom)
#include "tst_program_random.moc"
