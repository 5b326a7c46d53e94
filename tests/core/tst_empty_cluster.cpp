// A cluster without machines is what the designer starts from: a valid document that every
// front door needing GPUs refuses with one clear message, never a crash or a division by zero.
#include "cli_runner.h"
#include "core/cost/cost_model.h"
#include "core/cost/problem.h"
#include "core/cost/validator.h"
#include "core/io/catalog_json.h"
#include "core/io/cluster_check.h"
#include "core/io/formats.h"
#include "core/planners/planner.h"
#include "core/serving/plan_serving.h"
#include "tests/test_registry.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace hetplan;
using hetplan::test::cli;

namespace {

const QString kNoGpus = QStringLiteral("cluster 'empty' has no GPUs; add a machine");

Cluster emptyCluster()
{
    Cluster c;
    c.name = "empty";
    c.switches = {{"tor", {}}}; // a lone switch carries no GPUs either
    return c;
}

Problem emptyProblem(Mode mode)
{
    auto topology = Topology::build(emptyCluster(), builtinGpuCatalog());
    if (!topology)
        qFatal("an empty cluster does not build: %s", topology.error().message.c_str());
    Workload workload;
    workload.mode = mode;
    const ModelSpec *model = builtinModelCatalog().find("llama2-13b");
    if (!model)
        qFatal("no llama2-13b in the model catalog");
    return {std::move(topology).value(), *model, workload};
}

// The empty cluster as a file in dir; empty when it cannot be written.
QString writeEmptyCluster(const QTemporaryDir &dir)
{
    const QString path = dir.filePath(QStringLiteral("empty.cluster.json"));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return {};
    file.write(QByteArray::fromStdString(writeCluster(emptyCluster())));
    return path;
}

// Rows "<name> train" and "<name> infer" of every kind, in columns kind and infer.
template<typename Kind>
void addRowsForBothModes(const std::vector<Kind> &kinds, std::string_view (*name)(Kind))
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<bool>("infer");
    for (Kind kind : kinds)
        for (bool infer : {false, true})
            QTest::addRow("%s %s", name(kind).data(), infer ? "infer" : "train")
                << static_cast<int>(kind) << infer;
}

bool finite(const Evaluation &e)
{
    return std::isfinite(e.iterationS) && std::isfinite(e.mfu) && std::isfinite(e.tokensPerS)
           && std::isfinite(e.breakdown.totalS());
}

} // namespace

class TestEmptyCluster : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void emptyMachinesIsAValidDocument();
    void absentMachinesIsStillAnError();
    void everyPlannerRefuses_data();
    void everyPlannerRefuses();
    void costModelsEvaluateWithoutDividingByZero_data();
    void costModelsEvaluateWithoutDividingByZero();
    void validatorReportsAnEmptyPlan();
    void servingAnEmptyPlanServesNothing();
    void cliRefusesClearly_data();
    void cliRefusesClearly();
    void cliValidatesTheDocument();
};

void TestEmptyCluster::emptyMachinesIsAValidDocument()
{
    const std::string written = writeCluster(emptyCluster());
    auto read = parseCluster(written, "empty.cluster.json");
    QVERIFY2(read.ok(), read.ok() ? "" : read.error().message.c_str());
    QVERIFY(*read == emptyCluster());
    QCOMPARE(writeCluster(*read), written);
    QVERIFY(checkCluster(*read, "empty").ok());

    auto topology = Topology::build(*read, builtinGpuCatalog());
    QVERIFY2(topology.ok(), topology.ok() ? "" : topology.error().message.c_str());
    QCOMPARE(topology->gpuCount(), 0);
    const Status gpus = checkHasGpus(*topology);
    QVERIFY(!gpus.ok());
    QVERIFY(gpus.error().kind == ErrorKind::BadInput);
    QCOMPARE(QString::fromStdString(gpus.error().message), kNoGpus);
}

void TestEmptyCluster::absentMachinesIsStillAnError()
{
    auto read = parseCluster(R"({"format": "hetplan.cluster/1", "name": "x"})", "x.json");
    QVERIFY(!read.ok());
    QVERIFY2(read.error().message.find("machines: missing") != std::string::npos,
             read.error().message.c_str());
}

void TestEmptyCluster::everyPlannerRefuses_data()
{
    addRowsForBothModes<PlannerKind>({PlannerKind::HexiScale, PlannerKind::Metis,
                                      PlannerKind::Holmes, PlannerKind::HexGen,
                                      PlannerKind::Megatron, PlannerKind::Exhaustive},
                                     plannerName);
}

void TestEmptyCluster::everyPlannerRefuses()
{
    QFETCH(int, kind);
    QFETCH(bool, infer);
    const Problem problem = emptyProblem(infer ? Mode::Infer : Mode::Train);
    auto planner = makePlanner(static_cast<PlannerKind>(kind));
    QVERIFY(planner.ok());
    const auto costModel = makeCostModel(CostModelKind::HetPlan);
    NullProgress progress;
    const auto search = (*planner)->plan(problem, *costModel, PlannerOptions{}, {}, progress);
    QVERIFY(!search.ok());
    // A planner of the other mode says so first; every other answer is the no-GPU message.
    if (search.error().kind == ErrorKind::Unsupported)
        return;
    QVERIFY(search.error().kind == ErrorKind::BadInput);
    QCOMPARE(QString::fromStdString(search.error().message), kNoGpus);
}

void TestEmptyCluster::costModelsEvaluateWithoutDividingByZero_data()
{
    addRowsForBothModes<CostModelKind>(allCostModels(), costModelName);
}

void TestEmptyCluster::costModelsEvaluateWithoutDividingByZero()
{
    QFETCH(int, kind);
    QFETCH(bool, infer);
    const Problem problem = emptyProblem(infer ? Mode::Infer : Mode::Train);
    Plan plan;
    plan.workload = problem.workload;
    const Evaluation e = makeCostModel(static_cast<CostModelKind>(kind))->evaluate(problem, plan);
    QVERIFY(finite(e));
    QVERIFY(e.memory.empty());
}

void TestEmptyCluster::validatorReportsAnEmptyPlan()
{
    const Problem problem = emptyProblem(Mode::Train);
    Plan plan;
    plan.workload = problem.workload;
    const auto costModel = makeCostModel(CostModelKind::HetPlan);
    const std::vector<PlanIssue> issues = validatePlan(problem, plan, costModel.get());
    QVERIFY(!issues.empty());
    QVERIFY(!issues.front().message.empty());
}

void TestEmptyCluster::servingAnEmptyPlanServesNothing()
{
    const Problem problem = emptyProblem(Mode::Infer);
    Plan plan;
    plan.workload = problem.workload;
    const auto costModel = makeCostModel(CostModelKind::HetPlan);
    const ServingFigures figures = servePlan(problem, *costModel, plan);
    QVERIFY(std::isfinite(figures.attainment) && std::isfinite(figures.maxRatePerS));
    QCOMPARE(figures.attainment, 0.0);
    QCOMPARE(figures.maxRatePerS, 0.0);
}

void TestEmptyCluster::cliRefusesClearly_data()
{
    QTest::addColumn<QStringList>("arguments");
    const QString plan = QStringLiteral(HETPLAN_TEST_DATA_DIR "/good/case-study-2pp.plan.json");
    const QStringList problem{QStringLiteral("--cluster"), QStringLiteral("EMPTY"),
                              QStringLiteral("--model"), QStringLiteral("llama2-13b")};
    QTest::newRow("plan") << (QStringList{QStringLiteral("plan")} + problem);
    QTest::newRow("plan infer") << (QStringList{QStringLiteral("plan")} + problem
                                    + QStringList{QStringLiteral("--mode"),
                                                  QStringLiteral("infer")});
    QTest::newRow("compare") << (QStringList{QStringLiteral("compare")} + problem);
    QTest::newRow("sweep") << (QStringList{QStringLiteral("sweep")} + problem
                               + QStringList{QStringLiteral("--inter"),
                                             QStringLiteral("--bandwidth"), QStringLiteral("1,2")});
    QTest::newRow("evaluate") << QStringList{QStringLiteral("evaluate"), QStringLiteral("--plan"),
                                             plan, QStringLiteral("--cluster"),
                                             QStringLiteral("EMPTY")};
    QTest::newRow("validate a plan") << QStringList{
        QStringLiteral("validate"), QStringLiteral("--cluster"), QStringLiteral("EMPTY"), plan};
}

void TestEmptyCluster::cliRefusesClearly()
{
    QFETCH(QStringList, arguments);
    QTemporaryDir dir;
    const QString path = writeEmptyCluster(dir);
    QVERIFY(!path.isEmpty());
    arguments.replaceInStrings(QStringLiteral("EMPTY"), path);

    const auto run = cli(arguments);
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.contains(kNoGpus.toUtf8()), run.err.constData());
}

// The file the designer saves for an empty canvas is a valid cluster file; only planning it
// needs GPUs.
void TestEmptyCluster::cliValidatesTheDocument()
{
    QTemporaryDir dir;
    const QString path = writeEmptyCluster(dir);
    QVERIFY(!path.isEmpty());
    const auto run = cli({QStringLiteral("validate"), path});
    QCOMPARE(run.exitCode, 0);
    QVERIFY(run.out.contains(": ok"));
}

HETPLAN_TEST_APPLESS_MAIN(TestEmptyCluster)
#include "tst_empty_cluster.moc"
