// Every plan the planners produce on the bundled examples compiles into programs the checker
// proves, and so does every training plan bundled as a file.
#include "core/io/catalog_json.h"
#include "core/io/files.h"
#include "tests/core/planner_test_support.h"
#include "tests/runtime/program_test_support.h"
#include "tests/test_registry.h"

#include <QtTest>

using namespace hetplan;
using namespace hetplan::test;

namespace {

Plan loadPlan(const std::string &path, const Problem &problem)
{
    return orFail(parsePlan(orFail(readTextFile(path), "read"), path, problem.topology), "plan");
}

// A bundled example plan compiled; `gpus` becomes the number of GPUs it uses.
Result<runtime::JobProgram> compileExample(const char *cluster, const char *model,
                                           const char *planFile, std::size_t *gpus = nullptr)
{
    const Problem problem = exampleProblem(cluster, model);
    const Plan plan
        = loadPlan(std::string(HETPLAN_SOURCE_DIR "/resources/examples/") + planFile, problem);
    if (gpus)
        for (const Pipeline &p : plan.pipelines)
            for (const Stage &s : p.stages)
                *gpus += s.gpus.size();
    return runtime::compileProgram(plan, problem.model, problem.topology);
}

// Why compiling a bundled example plan is refused; empty when it compiles or fails otherwise.
QString refusal(const char *cluster, const char *model, const char *planFile)
{
    const auto program = compileExample(cluster, model, planFile);
    if (program || program.error().kind != ErrorKind::BadInput)
        return {};
    return errorText(program.error());
}

} // namespace

class TestProgramPlanners : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void plannerPlansCompileAndCheck_data()
    {
        QTest::addColumn<QString>("cluster");
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("planner");
        QTest::addColumn<int>("costModel");
        const std::pair<const char *, const char *> examples[] = {
            {"case-study", "llama2-13b"},       {"hetero-setting-1", "llama2-13b"},
            {"hetero-setting-2", "llama2-13b"}, {"hetero-setting-3", "llama-30b"},
            {"metis-v100-t4", "gpt3-6.7b"},     {"holmes-hybrid", "gpt3-7.5b"},
            {"large-cluster", "llama2-70b"},
        };
        // The exhaustive oracle refuses all of these (too many GPUs or plans): see below.
        for (const auto &[cluster, model] : examples)
            for (PlannerKind planner : plannersFor(Mode::Train))
                for (CostModelKind cost : {CostModelKind::HetPlan, CostModelKind::HexiScalePaper}) {
                    const std::string name = std::string(cluster) + " " + model + " "
                                             + std::string(plannerName(planner)) + " "
                                             + std::string(costModelName(cost));
                    QTest::newRow(name.c_str())
                        << QString::fromLatin1(cluster) << QString::fromLatin1(model)
                        << int(planner) << int(cost);
                }
    }

    // The paper cost model allows any TP group, so its plans may shard by a degree that does not
    // divide the heads: the runtime must refuse those plainly, and compile everything else.
    void plannerPlansCompileAndCheck()
    {
        QFETCH(QString, cluster);
        QFETCH(QString, model);
        QFETCH(int, planner);
        QFETCH(int, costModel);
        const Problem problem
            = exampleProblem(cluster.toLatin1().constData(), model.toLatin1().constData());
        const auto made = orFail(makePlanner(PlannerKind(planner)), "planner");
        const auto cost = makeCostModel(CostModelKind(costModel));
        const Result<PlanSearch> search = runPlanner(*made, problem, *cost);
        if (!search) {
            const ErrorKind kind = search.error().kind;
            if (kind == ErrorKind::Unsupported || kind == ErrorKind::NoPlanFits)
                QSKIP(search.error().message.c_str());
            QFAIL(search.error().message.c_str());
        }
        const auto program = runtime::compileProgram(search->plan, problem.model, problem.topology);
        if (!program) {
            const QString error = errorText(program.error());
            QVERIFY2(CostModelKind(costModel) == CostModelKind::HexiScalePaper
                         && error.contains(QStringLiteral("does not divide the model's")),
                     qPrintable(error));
            return;
        }
        compileAndCheck(search->plan, problem.model, problem.topology);
    }

    // The oracle on a cluster small enough for it: every plan shape it may pick (several
    // pipelines, TP, dp inside stages) on 2 × 2 GPUs and an 8-layer model.
    void exhaustivePlanCompilesAndChecks()
    {
        Cluster cluster;
        cluster.name = "two-by-two";
        cluster.machines = {
            {"A", "A800-80G", 2, "", {LinkKind::NvLink, 200, 5}, NicKind::Ethernet, {}},
            {"B", "RTX3090-24G", 2, "", {LinkKind::Pcie, 16, 10}, NicKind::Ethernet, {}},
        };
        cluster.links = {{"A", "B", LinkKind::Ethernet, 1, 50}};
        Workload workload;
        workload.train.globalBatch = 8;
        workload.train.seqLen = 2048;
        const Problem problem{orFail(Topology::build(cluster, builtinGpuCatalog()), "cluster"),
                              {"tiny-8", 8, 2048, 5504, 16, 16, 32000, 2048, MlpKind::SwiGlu},
                              workload};
        for (CostModelKind kind : {CostModelKind::HetPlan, CostModelKind::HexiScalePaper}) {
            const auto planner = orFail(makePlanner(PlannerKind::Exhaustive), "planner");
            const PlanSearch search
                = orFail(runPlanner(*planner, problem, *makeCostModel(kind)), "exhaustive");
            compileAndCheck(search.plan, problem.model, problem.topology);
        }
    }

    void bundledPlanFilesCompileAndCheck_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("cluster");
        QTest::addColumn<QString>("model");
        QTest::newRow("hetero-setting-3 metis")
            << QStringLiteral(HETPLAN_SOURCE_DIR "/resources/examples/"
                                                 "hetero-setting-3-metis.plan.json")
            << QStringLiteral("hetero-setting-3") << QStringLiteral("llama-30b");
        QTest::newRow("case study, two pipelines")
            << QStringLiteral(HETPLAN_TEST_DATA_DIR "/good/case-study-2pp.plan.json")
            << QStringLiteral("case-study") << QStringLiteral("llama2-13b");
    }

    void bundledPlanFilesCompileAndCheck()
    {
        QFETCH(QString, file);
        QFETCH(QString, cluster);
        QFETCH(QString, model);
        const Problem problem
            = exampleProblem(cluster.toLatin1().constData(), model.toLatin1().constData());
        compileAndCheck(loadPlan(file.toStdString(), problem), problem.model, problem.topology);
    }

    // HexiScale's own plan for setting 3 (its Table 2) shards LLaMA-30B's 52 heads by TP 8, which
    // Megatron-style head sharding cannot do: refused, naming the stage.
    void paperPlanWithUnevenHeadsIsRefused()
    {
        const QString error
            = refusal("hetero-setting-3", "llama-30b", "hetero-setting-3-hexiscale.plan.json");
        QVERIFY2(
            error.contains(QStringLiteral("stage 0: TP 8 does not divide the model's 52 heads")),
            qPrintable(error));
    }

    // A serving plan compiles too: its ranks and groups are what a serving run connects
    // (runtime/serve); HexGen's appendix F plan has one rank per GPU it uses.
    void servingPlanCompiles()
    {
        std::size_t gpus = 0;
        const auto program = compileExample("hexgen-full-price", "llama2-70b",
                                            "hexgen-full-price-appendix-f.plan.json", &gpus);
        QVERIFY2(program, program ? "" : program.error().message.c_str());
        QCOMPARE(program->ranks.size(), gpus);
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestProgramPlanners)
#include "tst_program_planners.moc"
