// The --json reports of hetplan-cli (docs/formats.md, "compare --json" and "The other --json
// reports"), written by core/io from typed values; the workload reader's report of the fields
// a file left out; the warm-start reader that drops GPUs that left.
#include "core/base/no_fit.h"
#include "core/catalog/catalog.h"
#include "core/io/catalog_json.h"
#include "core/io/formats.h"
#include "core/io/report_json.h"
#include "core/io/warm_start.h"
#include "core/io/workload_origin.h"
#include "core/model/topology.h"
#include "tests/test_registry.h"

#include <QtTest>

#include <nlohmann/json.hpp>

using namespace hetplan;
using Json = nlohmann::json;

Q_DECLARE_METATYPE(std::string)
Q_DECLARE_METATYPE(std::set<WorkloadField>)

class TestReportJson : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void workloadFileSaysWhatWasDefaulted_data();
    void workloadFileSaysWhatWasDefaulted();
    void workloadReportNamesDefaultsInNameOrder();
    void compareRowsCarryStatusAndNoFit();
    void sweepPointsSayReplannedOrError();
    void invalidPlanReportCountsEveryProblem();
    void catalogExamplesNameTheirKind();
    void warmStartDropsGpusThatLeft();
};

void TestReportJson::workloadFileSaysWhatWasDefaulted_data()
{
    QTest::addColumn<std::string>("text");
    QTest::addColumn<std::set<WorkloadField>>("defaulted");
    QTest::newRow("train, no micro-batch")
        << std::string(R"({"mode": "train", "global_batch": 8, "seq_len": 512})")
        << std::set<WorkloadField>{WorkloadField::MicroBatch};
    QTest::newRow("train, micro-batch candidates")
        << std::string(R"({"mode": "train", "global_batch": 8, "seq_len": 512,
                           "micro_batch_candidates": [1, 2]})")
        << std::set<WorkloadField>{};
    QTest::newRow("infer, bare") << std::string(
        R"({"mode": "infer", "prompt_len": 10, "output_len": 2,
                           "request_rate": 1})")
                                 << std::set<WorkloadField>{WorkloadField::Slo,
                                                            WorkloadField::Batch};
    QTest::newRow("infer, slo as a scale")
        << std::string(R"({"mode": "infer", "prompt_len": 10, "output_len": 2,
                           "request_rate": 1, "slo_scale": 5, "batch": 4})")
        << std::set<WorkloadField>{};
}

void TestReportJson::workloadFileSaysWhatWasDefaulted()
{
    QFETCH(std::string, text);
    QFETCH(std::set<WorkloadField>, defaulted);
    auto file = parseWorkloadFile(text, "w.json");
    QVERIFY2(file.ok(), file.ok() ? "" : file.error().message.c_str());
    QVERIFY(file->defaulted == defaulted);
    auto plain = parseWorkload(text, "w.json");
    QVERIFY(plain.ok());
    QVERIFY(file->workload == *plain);
}

void TestReportJson::workloadReportNamesDefaultsInNameOrder()
{
    auto cluster = findExample("case-study", ExampleKind::Cluster);
    QVERIFY(cluster.has_value());
    auto parsed = parseCluster(cluster->text, cluster->path);
    QVERIFY(parsed.ok());
    auto topology = Topology::build(*parsed, builtinGpuCatalog());
    QVERIFY(topology.ok());
    Workload workload;
    workload.mode = Mode::Infer;
    workload.infer.sloScale = 3;
    const WorkloadOrigin origin{"file w.json", {WorkloadField::Slo, WorkloadField::Batch}, {"n"}};
    const Json doc
        = Json::parse(evaluateReportJson(Evaluation{}, *topology, workload, origin, nullptr));
    const Json &w = doc["workload"];
    QCOMPARE(w["mode"].get<std::string>(), std::string("infer"));
    QCOMPARE(w["source"].get<std::string>(), std::string("file w.json"));
    QVERIFY(w["defaults"] == Json::parse(R"(["batch", "slo"])"));
    QCOMPARE(w["fields"]["slo"].get<std::string>(), std::string("3 x reference"));
    QCOMPARE(w["fields"]["request_rate"].get<std::string>(), std::string("1/s"));
    QVERIFY(w["notes"] == Json::parse(R"(["n"])"));
    QVERIFY(!doc.contains("measured"));

    const std::vector<Comparison> measured{{PhaseKey::ofRun(Phase::Iteration), 0, 2}};
    const Json withRun
        = Json::parse(evaluateReportJson(Evaluation{}, *topology, workload, origin, &measured));
    QVERIFY(withRun["measured"][0]["relative_error"].is_null());
}

void TestReportJson::compareRowsCarryStatusAndNoFit()
{
    auto cluster = findExample("case-study", ExampleKind::Cluster);
    QVERIFY(cluster.has_value());
    auto topology
        = Topology::build(*parseCluster(cluster->text, cluster->path), builtinGpuCatalog());
    QVERIFY(topology.ok());
    auto noFit = std::make_shared<NoFit>();
    noFit->closest = "dp=1, tp=2, pp=4";
    noFit->over.push_back({"C:0", "C", "RTX3090-24G", 30, 24});
    std::vector<CompareRow> rows;
    rows.push_back({PlannerKind::Megatron, Error{ErrorKind::NoPlanFits, "too big", noFit}});
    rows.push_back({PlannerKind::Holmes, Error{ErrorKind::BadInput, "no", nullptr}});
    const Json doc = Json::parse(compareReportJson("hetplan", rows, *topology));
    QCOMPARE(doc["cost_model"].get<std::string>(), std::string("hetplan"));
    QCOMPARE(doc["results"].size(), std::size_t(2));
    const Json &first = doc["results"][0];
    QCOMPARE(first["planner"].get<std::string>(), std::string("megatron"));
    QCOMPARE(first["status"].get<std::string>(), std::string("no plan fits"));
    QCOMPARE(first["no_fit"]["over"][0]["used_gib"].get<double>(), 30.0);
    QCOMPARE(doc["results"][1]["status"].get<std::string>(), std::string("error"));
    QVERIFY(!doc["results"][1].contains("no_fit"));
}

void TestReportJson::sweepPointsSayReplannedOrError()
{
    SweepPoint replanned;
    replanned.bandwidthGBps = 10;
    replanned.replannedS = 1.5;
    replanned.replannedPipelines = 2;
    SweepPoint failed;
    failed.bandwidthGBps = 0.5;
    failed.error = "nothing fits";
    const std::vector<SweepPoint> points{replanned, failed};
    const Json doc = Json::parse(sweepReportJson("every network link", points));
    QCOMPARE(doc["target"].get<std::string>(), std::string("every network link"));
    QCOMPARE(doc["points"][0]["replanned_s"].get<double>(), 1.5);
    QCOMPARE(doc["points"][0]["pipelines"].get<int>(), 2);
    QVERIFY(!doc["points"][0].contains("error"));
    QCOMPARE(doc["points"][1]["error"].get<std::string>(), std::string("nothing fits"));
    QVERIFY(!doc["points"][1].contains("replanned_s"));
}

void TestReportJson::invalidPlanReportCountsEveryProblem()
{
    const std::vector<std::string> errors(40, "a problem");
    const Json doc = Json::parse(invalidPlanReportJson(errors));
    QCOMPARE(doc["valid"].get<bool>(), false);
    QCOMPARE(doc["errors"].size(), std::size_t(40));
    QCOMPARE(doc["error_count"].get<int>(), 40);
}

void TestReportJson::catalogExamplesNameTheirKind()
{
    const std::vector<Example> examples = bundledExamples();
    const Json doc = Json::parse(examplesJson(examples));
    QCOMPARE(doc.size(), examples.size());
    for (std::size_t i = 0; i < examples.size(); ++i)
        QCOMPARE(doc[i]["kind"].get<std::string>(), std::string(exampleKindName(examples[i].kind)));
    QCOMPARE(exampleKindName(ExampleKind::Plan), std::string_view("plan"));
}

void TestReportJson::warmStartDropsGpusThatLeft()
{
    auto cluster = findExample("hexgen-full-price", ExampleKind::Cluster);
    auto planFile = findExample("hexgen-full-price-appendix-f", ExampleKind::Plan);
    QVERIFY(cluster && planFile);
    auto topology
        = Topology::build(*parseCluster(cluster->text, cluster->path), builtinGpuCatalog());
    QVERIFY(topology.ok());
    auto full = parseWarmStart(planFile->text, planFile->path, *topology, {});
    QVERIFY2(full.ok(), full.ok() ? "" : full.error().message.c_str());
    QVERIFY(!full->pipelines.empty());
    const int gone = full->pipelines[0].stages[0].gpus[0];
    auto fewer = parseWarmStart(planFile->text, planFile->path, *topology, {gone});
    QVERIFY2(fewer.ok(), fewer.ok() ? "" : fewer.error().message.c_str());
    for (const Pipeline &p : fewer->pipelines)
        for (const Stage &s : p.stages)
            QVERIFY(std::find(s.gpus.begin(), s.gpus.end(), gone) == s.gpus.end());

    auto notAPlan = parseWarmStart(R"({"mode": "train"})", "w.json", *topology, {});
    QVERIFY(!notAPlan.ok());
    QVERIFY(notAPlan.error().message.find("w.json") != std::string::npos);
}

HETPLAN_TEST_APPLESS_MAIN(TestReportJson)
#include "tst_report_json.moc"
