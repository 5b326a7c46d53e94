// The JSON formats: round trips of every good and bundled file, and hostile files that must
// come back as errors naming the file, the JSON path and what would be valid.
#include "core/catalog/embedded.h"
#include "core/io/catalog_json.h"
#include "core/io/files.h"
#include "core/io/formats.h"
#include "core/io/loaders.h"
#include "core/model/topology.h"
#include "tests/test_registry.h"

#include <QDir>
#include <QTest>

#include <cmath>
#include <limits>
#include <string>

using namespace hetplan;

namespace {

std::string dataPath(const QString &relative)
{
    return (QStringLiteral(HETPLAN_TEST_DATA_DIR "/") + relative).toStdString();
}

std::string readData(const QString &relative)
{
    auto text = readTextFile(dataPath(relative));
    if (!text)
        qFatal("%s", text.error().message.c_str());
    return *text;
}

bool hasEmbedded(std::string_view path)
{
    for (const embedded::EmbeddedFile &f : embedded::files())
        if (f.path == path)
            return true;
    return false;
}

// The case study of HexiScale §3.1, with a catalog of its three GPU types, so that these
// tests do not depend on the bundled catalog's contents.
const Topology &caseStudy()
{
    static const Topology topology = [] {
        auto catalog = readGpuCatalog(readData(QStringLiteral("good/test.gpu-catalog.json")),
                                      "test.gpu-catalog.json");
        auto cluster = parseCluster(readData(QStringLiteral("good/case-study.cluster.json")),
                                    "case-study.cluster.json");
        if (!catalog || !cluster)
            qFatal("case-study fixtures do not parse");
        auto built = Topology::build(*cluster, *catalog);
        if (!built)
            qFatal("%s", built.error().message.c_str());
        return std::move(built).value();
    }();
    return topology;
}

// Dispatches on the file name: "cluster-…", "model-…", "workload-…", "plan-…".
std::optional<Error> parseError(const QString &file, const std::string &text,
                                const std::string &source)
{
    const auto errorOf = [](const auto &result) -> std::optional<Error> {
        if (result)
            return std::nullopt;
        return result.error();
    };
    if (file.startsWith(QStringLiteral("cluster")))
        return errorOf(parseCluster(text, source));
    if (file.startsWith(QStringLiteral("model")))
        return errorOf(parseModel(text, source));
    if (file.startsWith(QStringLiteral("workload")))
        return errorOf(parseWorkload(text, source));
    if (file.startsWith(QStringLiteral("plan")))
        return errorOf(parsePlan(text, source, caseStudy()));
    qFatal("no parser for %s", qPrintable(file));
}

void checkError(const std::optional<Error> &error, const std::string &source,
                const QStringList &expected)
{
    QVERIFY2(error.has_value(), "a hostile file was accepted");
    const QString message = QString::fromStdString(error->message);
    QVERIFY2(message.startsWith(QString::fromStdString(source) + QStringLiteral(": ")),
             qPrintable(message));
    for (const QString &part : expected)
        QVERIFY2(message.contains(part),
                 qPrintable(message + QStringLiteral("\n  lacks: ") + part));
    QVERIFY(error->kind == ErrorKind::BadInput);
}

std::string clusterWithMachines(const std::string &machines)
{
    return R"({"format": "hetplan.cluster/1", "name": "x", "machines": [)" + machines + "]}";
}

std::string machine(const std::string &name, const std::string &count)
{
    return R"({"name": ")" + name + R"(", "gpu": "A800-80G", "count": )" + count
           + R"(, "intra": {"kind": "pcie", "bandwidth_GBps": 16}})";
}

QStringList strings(const std::vector<const char *> &parts)
{
    QStringList list;
    for (const char *p : parts)
        list << QString::fromUtf8(p);
    return list;
}

struct BadCase
{
    const char *file;
    std::vector<const char *> expected;
};

// Every file of tests/data/bad/ with what its error message must contain.
const std::vector<BadCase> &badCases()
{
    static const std::vector<BadCase> cases = {
        {"cluster-count-string", {"machines[0].count", "expected an integer", "\"3\""}},
        {"cluster-negative-bandwidth",
         {"links[0].bandwidth_GBps: -1 is out of range", "valid: > 0"}},
        {"cluster-nan-string", {"links[1].bandwidth_GBps", "expected a number", "\"nan\""}},
        {"cluster-zero-bandwidth", {"links[0].bandwidth_GBps: 0 is out of range", "valid: > 0"}},
        {"cluster-zero-gpus", {"machines[1].count: 0 is out of range; valid: 1..1024"}},
        {"cluster-billion-gpus", {"machines[0].count: 1000000000 is out of range; valid: 1..1024"}},
        {"cluster-1e300", {"machines[1].intra.bandwidth_GBps", "out of range", "valid: > 0"}},
        {"cluster-negative-latency", {"machines[0].intra.latency_us", "valid: >= 0"}},
        {"cluster-wrong-kind", {"format", "not a hetplan.cluster file", "\"hetplan.cluster/1\""}},
        {"cluster-newer-version",
         {"format: \"hetplan.cluster/2\": this HetPlan reads hetplan.cluster/1"}},
        {"cluster-no-format", {"format: missing", "hetplan.cluster/1"}},
        {"cluster-duplicate-name", {"switches[0].name", "already the name of machines[0]"}},
        {"cluster-link-unknown", {"links[1].b", "\"Z\"", "neither a machine nor a switch"}},
        {"cluster-link-self", {"links[0]", "to itself"}},
        {"cluster-unknown-nic",
         {"machines[1].nic", "token-ring", "valid: ethernet, infiniband, roce"}},
        {"cluster-unknown-link-kind",
         {"links[0].kind", "valid: nvlink, pcie, ethernet, infiniband, roce"}},
        {"cluster-colon-name", {"machines[0].name", "contains ':'"}},
        {"cluster-empty-name", {"machines[0].name", "must not be empty"}},
        {"cluster-typo-field", {"links[0].bandwidth_GBps: missing", "bandwith_GBps"}},
        {"cluster-typo-optional",
         {"links[0].latncy_us: unknown field", "valid: a, b, kind, bandwidth_GBps, latency_us"}},
        {"cluster-override-unknown-gpu", {"pair_overrides[0].b", "B:3", "B:0..B:2"}},
        {"cluster-machines-missing", {"machines: missing"}},
        {"cluster-position-three", {"machines[0].position", "expected exactly 2"}},
        {"cluster-gpu-type-fraction", {"gpu_types[0].achieved_fraction", "valid: > 0 and <= 1"}},
        {"cluster-fractional-count", {"machines[0].count", "whole number"}},
        {"cluster-machines-object", {"machines: expected an array, got an object"}},
        {"cluster-truncated", {"not valid JSON", "line"}},
        {"cluster-top-level-array", {"expected a JSON object"}},
        {"cluster-empty", {"not valid JSON"}},
        {"cluster-trailing-garbage", {"not valid JSON"}},
        {"cluster-origin-field",
         {"origin.figures[0].field", "\"machines.A.count\"", "starting with '/'"}},
        {"model-heads-not-dividing", {"heads: 7 does not divide hidden (256)"}},
        {"model-kv-heads", {"kv_heads: 3 does not divide heads (8)"}},
        {"model-negative-layers", {"layers: -1 is out of range; valid: 1..1000"}},
        {"model-huge-hidden", {"hidden", "valid: 1..131072"}},
        {"model-unknown-mlp", {"mlp", "relu", "valid: swiglu, gelu"}},
        {"model-layers-float", {"layers", "out of range"}},
        {"model-missing-vocab", {"vocab: missing"}},
        {"workload-unknown-precision", {"precision", "fp8", "valid: bf16, fp16, fp32"}},
        {"workload-both-micro", {"micro_batch_candidates", "not both"}},
        {"workload-recompute", {"recompute", "sometimes", "valid: none, selective, full"}},
        {"workload-mode", {"mode", "serve", "valid: train, infer"}},
        {"workload-empty-candidates", {"micro_batch_candidates", "has 0 entries"}},
        {"workload-both-slo", {"slo_scale", "not both"}},
        {"workload-zero-rate", {"request_rate", "valid: > 0"}},
        {"workload-newer", {"format", "this HetPlan reads hetplan.workload/1"}},
        {"plan-unknown-gpu",
         {"pipelines[0].stages[1].gpus[0]: unknown GPU \"Z:0\"", "A (A:0..A:2)", "C (C:0..C:1)"}},
        {"plan-gpu-index", {"pipelines[0].stages[0].gpus[1]", "A:3"}},
        {"plan-layers-one", {"pipelines[0].stages[0].layers", "expected exactly 2"}},
        {"plan-tp-zero", {"pipelines[0].stages[0].tp", "valid: 1..65536"}},
        {"plan-no-pipelines", {"pipelines", "has 0 entries"}},
        {"plan-workload-bad", {"workload.seq_len: -4096 is out of range"}},
        {"plan-estimate-type", {"estimate.iteration_s", "expected a number"}},
        {"plan-wrong-kind", {"format", "not a hetplan.plan file"}},
    };
    return cases;
}

} // namespace

class TestFormats : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void goodFilesRoundTrip_data();
    void goodFilesRoundTrip();
    void clusterDefaults();
    void writerOrderAndDefaults();
    void modelRoundTrip_data();
    void modelRoundTrip();
    void workloadRoundTrip_data();
    void workloadRoundTrip();
    void planRoundTrip();
    void planEstimateIsInformational();
    void bundledExamplesRoundTrip();
    void badFiles_data();
    void badFiles();
    void everyBadFileIsInTheTable();
    void generatedHostileInput_data();
    void generatedHostileInput();
    void formatPeek();
    void catalogs();
    void builtinCatalogs();
    void loaders();
};

void TestFormats::goodFilesRoundTrip_data()
{
    QTest::addColumn<QString>("file");
    const QDir dir(QStringLiteral(HETPLAN_TEST_DATA_DIR "/good"));
    for (const QString &file : dir.entryList({QStringLiteral("*.json")}, QDir::Files))
        if (!file.endsWith(QStringLiteral("gpu-catalog.json")))
            QTest::newRow(qPrintable(file)) << file;
}

void TestFormats::goodFilesRoundTrip()
{
    QFETCH(QString, file);
    const std::string text = readData(QStringLiteral("good/") + file);
    const std::string source = file.toStdString();
    const auto roundTrip = [&](auto parse, auto write) {
        auto first = parse(text, source);
        QVERIFY2(first.ok(), first.ok() ? "" : first.error().message.c_str());
        const std::string written = write(*first);
        auto second = parse(written, "written");
        QVERIFY2(second.ok(), second.ok() ? "" : second.error().message.c_str());
        QVERIFY(*first == *second);
        QCOMPARE(write(*second), written);
    };
    if (file.endsWith(QStringLiteral(".cluster.json"))) {
        roundTrip(parseCluster, writeCluster);
    } else if (file.endsWith(QStringLiteral(".model.json"))) {
        roundTrip(parseModel, writeModel);
    } else if (file.endsWith(QStringLiteral(".workload.json"))) {
        roundTrip(parseWorkload, writeWorkload);
    } else if (file.endsWith(QStringLiteral(".plan.json"))) {
        const auto parse
            = [](std::string_view t, std::string_view s) { return parsePlan(t, s, caseStudy()); };
        auto first = parse(text, source);
        QVERIFY2(first.ok(), first.ok() ? "" : first.error().message.c_str());
        auto second = parse(writePlan(*first, caseStudy()), "written");
        QVERIFY2(second.ok(), second.ok() ? "" : second.error().message.c_str());
        QVERIFY(first->sameLayout(*second));
    } else {
        QFAIL("unknown kind of good file");
    }
}

void TestFormats::clusterDefaults()
{
    auto c = parseCluster(readData(QStringLiteral("good/custom-types.cluster.json")), "c");
    QVERIFY2(c.ok(), c.ok() ? "" : c.error().message.c_str());
    QCOMPARE(c->machines.size(), size_t(2));
    // No "intra": the machine's (custom) GPU type's typical link.
    const IntraLink typeLink{LinkKind::Pcie, 20, 8};
    QVERIFY(c->machines[0].intra == typeLink);
    QVERIFY(c->machines[0].nic == NicKind::Roce);
    // "intra" without latency: IntraLink's default latency.
    QCOMPARE(c->machines[1].intra.bandwidthGBps, 12.5);
    QCOMPARE(c->machines[1].intra.latencyUs, IntraLink{}.latencyUs);
    QVERIFY(c->machines[1].nic == NicKind::InfiniBand);
    const GpuType &t = c->gpuTypes.at(0);
    QCOMPARE(t.achievedFraction, 0.5);
    QVERIFY(t.pricePerHourUsd && *t.pricePerHourUsd == 0.4);
    QCOMPARE(t.accumulate, std::string("fp32"));
    QCOMPARE(c->pairOverrides.at(0).b, std::string("lab-2:1"));

    auto cs = parseCluster(readData(QStringLiteral("good/case-study.cluster.json")), "cs");
    QVERIFY(cs.ok());
    const Link &third = cs->links.at(2);
    QVERIFY(third.kind == LinkKind::Ethernet);
    QCOMPARE(third.latencyUs, Link{}.latencyUs);
    QCOMPARE(cs->machines.at(2).host, std::string());
    QCOMPARE(cs->machines.at(0).position.x, 80.0);

    // What was measured, and from what, survives reading.
    auto m = parseCluster(readData(QStringLiteral("good/measured.cluster.json")), "m");
    QVERIFY2(m.ok(), m.ok() ? "" : m.error().message.c_str());
    QCOMPARE(m->origin.sources.size(), size_t(2));
    const MeasuredFigure &figure = m->origin.figures.at(0);
    QCOMPARE(figure.field, std::string("/machines/A/intra/bandwidth_GBps"));
    QCOMPARE(figure.source, std::string("logs/all_reduce_perf.log:42"));
    QCOMPARE(m->origin.figures.at(1).how, std::string());
    QVERIFY(cs->origin.empty());
}

void TestFormats::writerOrderAndDefaults()
{
    auto c = parseCluster(readData(QStringLiteral("good/case-study.cluster.json")), "cs");
    QVERIFY(c.ok());
    const QString text = QString::fromStdString(writeCluster(*c));
    const QStringList order = {QStringLiteral("\"format\""),        QStringLiteral("\"name\""),
                               QStringLiteral("\"machines\""),      QStringLiteral("\"switches\""),
                               QStringLiteral("\"links\""),         QStringLiteral("\"gpu_types\""),
                               QStringLiteral("\"pair_overrides\"")};
    qsizetype last = -1;
    for (const QString &key : order) {
        const qsizetype at = text.indexOf(key);
        QVERIFY2(at > last, qPrintable(key));
        last = at;
    }
    // Defaults are written out: machine C's NIC, the third link's kind and latency.
    QCOMPARE(text.count(QStringLiteral("\"nic\": \"ethernet\"")), 3);
    QCOMPARE(text.count(QStringLiteral("\"latency_us\": 50")), 3);
    QVERIFY(text.startsWith(QStringLiteral("{\n  \"format\": \"hetplan.cluster/1\",\n")));
}

void TestFormats::modelRoundTrip_data()
{
    QTest::addColumn<int>("kvHeads");
    QTest::addColumn<int>("mlp");
    QTest::newRow("llama2-13b") << 40 << int(MlpKind::SwiGlu);
    QTest::newRow("gqa") << 8 << int(MlpKind::SwiGlu);
    QTest::newRow("gpt3-gelu") << 40 << int(MlpKind::Gelu);
}

void TestFormats::modelRoundTrip()
{
    QFETCH(int, kvHeads);
    QFETCH(int, mlp);
    ModelSpec m{"m", 40, 5120, 13824, 40, kvHeads, 32000, 4096, MlpKind(mlp)};
    auto back = parseModel(writeModel(m), "m.json");
    QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
    QVERIFY(*back == m);

    // kv_heads defaults to heads.
    auto noKv = parseModel(R"({"format": "hetplan.model/1", "name": "n", "layers": 2,
        "hidden": 64, "ffn_hidden": 128, "heads": 4, "vocab": 100, "max_seq_len": 16})",
                           "n");
    QVERIFY(noKv.ok());
    QCOMPARE(noKv->kvHeads, 4);
    QVERIFY(noKv->mlp == MlpKind::SwiGlu);
}

void TestFormats::workloadRoundTrip_data()
{
    QTest::addColumn<int>("which");
    QTest::newRow("train single micro-batch") << 0;
    QTest::newRow("train candidates, no recompute") << 1;
    QTest::newRow("infer slo_s") << 2;
    QTest::newRow("infer slo_scale") << 3;
    QTest::newRow("infer no slo") << 4;
}

void TestFormats::workloadRoundTrip()
{
    QFETCH(int, which);
    Workload w;
    switch (which) {
    case 0:
        w.train = {24, {1}, 4096, Precision::Bf16, Recompute::Full, Optimizer::Adam, false};
        break;
    case 1:
        w.train = {2048, {1, 2, 4}, 2048, Precision::Fp32, Recompute::None, Optimizer::Sgd, true};
        break;
    default:
        w.mode = Mode::Infer;
        w.infer = {1024, 256, 0.75, std::nullopt, std::nullopt, 8, Precision::Bf16};
        if (which == 2)
            w.infer.sloS = 12.5;
        if (which == 3)
            w.infer.sloScale = 2;
    }
    auto back = parseWorkload(writeWorkload(w), "w.json");
    QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
    QVERIFY(*back == w);

    auto design = parseWorkload(R"({"mode": "train", "global_batch": 24, "seq_len": 4096,
        "precision": "bf16", "recompute": true})",
                                "design");
    QVERIFY(design.ok());
    QVERIFY(design->train.recompute == Recompute::Full);
    QVERIFY(design->train.microBatchSizes == std::vector<int>{1});
    auto infer = parseWorkload(R"({"mode": "infer", "prompt_len": 8, "output_len": 8,
        "request_rate": 1})",
                               "infer");
    QVERIFY(infer.ok());
    QVERIFY(infer->infer.precision == Precision::Fp16);
    QCOMPARE(infer->infer.batch, 1);
}

void TestFormats::planRoundTrip()
{
    const Topology &t = caseStudy();
    auto plan = parsePlan(readData(QStringLiteral("good/case-study-2pp.plan.json")), "p", t);
    QVERIFY2(plan.ok(), plan.ok() ? "" : plan.error().message.c_str());
    QCOMPARE(plan->pipelines.size(), size_t(2));
    const Stage &s = plan->pipelines[0].stages[1];
    QCOMPARE(s.gpus, (std::vector<int>{*t.findGpu("C:0"), *t.findGpu("C:1")}));
    QCOMPARE(s.dp, 2);
    QCOMPARE(s.dpSplit, (std::vector<int>{1, 1}));
    QCOMPARE(s.layerBegin, 24);
    QCOMPARE(s.layerEnd, 40);
    QCOMPARE(plan->pipelines[1].stages[0].tp, 1); // defaults
    QVERIFY(plan->estimate.has_value());
    QCOMPARE(plan->estimate->memory.at(0).gpu, *t.findGpu("A:0"));
    QCOMPARE(plan->estimate->breakdown.dpCommS, 1.5);

    const std::string written = writePlan(*plan, t);
    // Readable by a person: short lists on one line.
    QVERIFY2(written.find(R"("gpus": ["A:0", "A:1"],)") != std::string::npos, written.c_str());
    QVERIFY(written.find(R"("layers": [0, 24])") != std::string::npos);
    auto back = parsePlan(written, "written", t);
    QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
    QVERIFY(back->sameLayout(*plan));
    QVERIFY(back->workload == plan->workload);
    QCOMPARE(back->planner, std::string("hand"));
    QCOMPARE(back->cluster, std::string("case-study"));
    QCOMPARE(back->estimate->iterationS, 25.6);
    QCOMPARE(back->estimate->memory.at(0).capacityGiB, 80.0);
    QCOMPARE(writePlan(*back, t), written);

    // A plan made in code, without an estimate, survives too.
    Plan made;
    made.cluster = "case-study";
    made.model = "llama2-13b";
    made.pipelines = {{1, 24, {{{0, 1, 2}, 1, 3, 0, 40, {}}}}};
    auto madeBack = parsePlan(writePlan(made, t), "made", t);
    QVERIFY(madeBack.ok());
    QVERIFY(madeBack->sameLayout(made));
    QVERIFY(!madeBack->estimate.has_value());
}

void TestFormats::planEstimateIsInformational()
{
    const Topology &t = caseStudy();
    Plan plan;
    plan.cluster = "case-study";
    plan.model = "llama2-13b";
    plan.pipelines = {{1, 24, {{{0}, 1, 1, 0, 40, {}}}}};
    Evaluation e;
    e.valid = false;
    e.errors = {"pipeline 0, stage 0: A:0 needs 120 GiB; it has 80"};
    e.iterationS = std::numeric_limits<double>::infinity(); // no finite time: written as null
    e.memory = {{0, 120, 80}};
    plan.estimate = e;
    auto back = parsePlan(writePlan(plan, t), "p", t);
    QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
    QVERIFY(back->estimate.has_value());
    QVERIFY(!back->estimate->valid);
    QVERIFY(back->estimate->errors == e.errors);
    QVERIFY(std::isnan(back->estimate->iterationS));
    QCOMPARE(back->estimate->memory.at(0).usedGiB, 120.0);

    // Whatever else a producer adds to the estimate (per-pipeline timings) is not an error.
    auto extra = parsePlan(R"({"format": "hetplan.plan/1", "cluster": "case-study",
        "model": "m", "workload": {"mode": "train", "global_batch": 1, "seq_len": 8},
        "pipelines": [{"micro_batch": 1, "stages": [{"gpus": ["B:0"], "layers": [0, 2]}]}],
        "estimate": {"iteration_s": 1, "pipelines": [{"time_s": 1}],
                     "memory": [{"gpu": "B:0", "used_GiB": 1, "capacity_GiB": 24,
                                 "fits": true}]}})",
                           "extra.json", t);
    QVERIFY2(extra.ok(), extra.ok() ? "" : extra.error().message.c_str());
    QCOMPARE(extra->estimate->memory.at(0).gpu, *t.findGpu("B:0"));
}

void TestFormats::bundledExamplesRoundTrip()
{
    int clusters = 0;
    for (const Example &e : bundledExamples()) {
        const QByteArray name = QByteArray::fromStdString(e.path);
        if (e.kind == ExampleKind::Cluster) {
            ++clusters;
            auto c = parseCluster(e.text, e.path);
            QVERIFY2(c.ok(), c.ok() ? name.constData() : c.error().message.c_str());
            QCOMPARE(c->name, e.name);
            auto back = parseCluster(writeCluster(*c), e.path);
            QVERIFY2(back.ok() && *back == *c, name.constData());
        } else if (e.kind == ExampleKind::Workload) {
            auto w = parseWorkload(e.text, e.path);
            QVERIFY2(w.ok(), w.ok() ? name.constData() : w.error().message.c_str());
            auto back = parseWorkload(writeWorkload(*w), e.path);
            QVERIFY2(back.ok() && *back == *w, name.constData());
        } else {
            auto clusterName = planClusterName(e.text, e.path);
            QVERIFY2(clusterName.ok(), name.constData());
            auto cluster = loadCluster(*clusterName);
            QVERIFY2(cluster.ok(), cluster.ok() ? "" : cluster.error().message.c_str());
            auto topology = Topology::build(*cluster, builtinGpuCatalog());
            QVERIFY2(topology.ok(), topology.ok() ? "" : topology.error().message.c_str());
            auto plan = parsePlan(e.text, e.path, *topology);
            QVERIFY2(plan.ok(), plan.ok() ? "" : plan.error().message.c_str());
            auto back = parsePlan(writePlan(*plan, *topology), e.path, *topology);
            QVERIFY2(back.ok() && back->sameLayout(*plan), name.constData());
        }
    }
    if (clusters == 0)
        QSKIP("no bundled example clusters yet (resources/examples/)");
    QVERIFY(findExample("case-study", ExampleKind::Cluster).has_value());
}

void TestFormats::badFiles_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QStringList>("expected");
    for (const BadCase &c : badCases())
        QTest::newRow(c.file) << QString::fromUtf8(c.file) << strings(c.expected);
}

void TestFormats::badFiles()
{
    QFETCH(QString, file);
    QFETCH(QStringList, expected);
    const std::string path = dataPath(QStringLiteral("bad/") + file + QStringLiteral(".json"));
    auto text = readTextFile(path);
    QVERIFY2(text.ok(), path.c_str());
    checkError(parseError(file, *text, path), path, expected);
}

void TestFormats::everyBadFileIsInTheTable()
{
    // A file in tests/data/bad/ that no row checks would be a silent gap.
    const QDir dir(QStringLiteral(HETPLAN_TEST_DATA_DIR "/bad"));
    const QStringList files = dir.entryList({QStringLiteral("*.json")}, QDir::Files);
    QCOMPARE(files.size(), qsizetype(badCases().size()));
    for (const QString &file : files) {
        bool found = false;
        for (const BadCase &c : badCases())
            found = found || file == QString::fromUtf8(c.file) + QStringLiteral(".json");
        QVERIFY2(found, qPrintable(file));
    }
}

void TestFormats::generatedHostileInput_data()
{
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QStringList>("expected");
    const auto bytes = [](const std::string &s) { return QByteArray::fromStdString(s); };

    QTest::newRow("huge string") << QStringLiteral(
        "cluster") << bytes(clusterWithMachines(machine(std::string(1 << 20, 'x'), "1")))
                                 << strings(
                                        {"machines[0].name", "1048576 bytes long; at most 128"});
    QTest::newRow("deep nesting") << QStringLiteral("cluster")
                                  << bytes(std::string(100000, '[') + std::string(100000, ']'))
                                  << strings({"nested deeper than 64 levels"});
    QTest::newRow("deep nesting in a field")
        << QStringLiteral("model")
        << bytes(R"({"format": "hetplan.model/1", "name": )" + std::string(65, '{') + "}")
        << strings({"nested deeper than 64 levels"});
    std::string many;
    for (int i = 0; i < 65; ++i)
        many += (i ? "," : "") + machine("m" + std::to_string(i), "1024");
    QTest::newRow("more GPUs than kMaxGpus")
        << QStringLiteral("cluster") << bytes(clusterWithMachines(many))
        << strings({"machines[64].count", "more than 65536 GPUs in total"});
    std::string tooMany;
    for (int i = 0; i <= kMaxMachines; ++i)
        tooMany += (i ? ",{}" : "{}");
    QTest::newRow("more machines than kMaxMachines")
        << QStringLiteral("cluster") << bytes(clusterWithMachines(tooMany))
        << strings({"machines: has 2049 entries; valid: 0..2048"});
    QTest::newRow("uint64 count")
        << QStringLiteral("cluster")
        << bytes(clusterWithMachines(machine("A", "18446744073709551615")))
        << strings({"machines[0].count: 18446744073709551615 is out of range"});
    QTest::newRow("int64 min count")
        << QStringLiteral("cluster")
        << bytes(clusterWithMachines(machine("A", "-9223372036854775808")))
        << strings({"machines[0].count", "out of range"});
    QTest::newRow("1e400 overflows")
        << QStringLiteral("cluster") << bytes(clusterWithMachines(machine("A", "1e400")))
        << strings({"not valid JSON"});
    QTest::newRow("invalid UTF-8")
        << QStringLiteral("cluster") << bytes(clusterWithMachines(machine("\xff\xfe", "1")))
        << strings({"not valid JSON"});
    QTest::newRow("NUL byte") << QStringLiteral("workload")
                              << QByteArray("{\"mode\": \"train\"\0}", 18)
                              << strings({"not valid JSON"});
    QTest::newRow("nan literal") << QStringLiteral("model")
                                 << bytes(R"({"format": "hetplan.model/1", "layers": NaN})")
                                 << strings({"not valid JSON"});
}

void TestFormats::generatedHostileInput()
{
    QFETCH(QString, kind);
    QFETCH(QByteArray, text);
    QFETCH(QStringList, expected);
    checkError(parseError(kind, text.toStdString(), "gen.json"), "gen.json", expected);
}

void TestFormats::formatPeek()
{
    const std::string plan = readData(QStringLiteral("good/case-study-2pp.plan.json"));
    auto format = fileFormat(plan, "p.json");
    QVERIFY(format.ok());
    QCOMPARE(*format, std::string(kPlanFormat));
    auto cluster = planClusterName(plan, "p.json");
    QVERIFY(cluster.ok());
    QCOMPARE(*cluster, std::string("case-study"));

    auto missing = fileFormat(R"({"name": "x"})", "x.json");
    QVERIFY(!missing.ok());
    QVERIFY(missing.error().message.starts_with("x.json: format: missing"));
    auto notPlan = planClusterName(readData(QStringLiteral("good/tiny.model.json")), "m.json");
    QVERIFY(!notPlan.ok());
    QVERIFY(notPlan.error().message.find("not a hetplan.plan file") != std::string::npos);
    QVERIFY(!fileFormat("[1, 2", "t.json").ok());
}

void TestFormats::catalogs()
{
    auto gpus = readGpuCatalog(readData(QStringLiteral("good/test.gpu-catalog.json")), "g");
    QVERIFY2(gpus.ok(), gpus.ok() ? "" : gpus.error().message.c_str());
    QCOMPARE(gpus->all().size(), size_t(3));
    const GpuType *a800 = gpus->find("a800-80g");
    QVERIFY(a800 != nullptr);
    QCOMPARE(a800->memoryGiB, 80.0);
    QVERIFY(a800->typicalIntra.kind == LinkKind::NvLink);
    QVERIFY(gpus->find("H100") == nullptr);

    auto duplicate = readGpuCatalog(R"({"format": "hetplan.gpu-catalog/1", "gpus": [
        {"name": "X", "tflops": 1, "memory_GiB": 1, "membw_GBps": 1},
        {"name": "x", "tflops": 1, "memory_GiB": 1, "membw_GBps": 1}]})",
                                    "dup.json");
    QVERIFY(!duplicate.ok());
    QVERIFY2(duplicate.error().message.starts_with("dup.json: gpus[1]: \"x\" is already entry 0"),
             duplicate.error().message.c_str());

    auto models = readModelCatalog(R"({"format": "hetplan.model-catalog/1", "models": [
        {"name": "Llama2-13B", "layers": 40, "hidden": 5120, "ffn_hidden": 13824, "heads": 40,
         "vocab": 32000, "max_seq_len": 4096}]})",
                                   "models.json");
    QVERIFY2(models.ok(), models.ok() ? "" : models.error().message.c_str());
    QVERIFY(models->find("llama2-13b") != nullptr);
    QCOMPARE(models->find("llama2-13b")->kvHeads, 40);

    auto badModel = readModelCatalog(R"({"format": "hetplan.model-catalog/1", "models": [
        {"name": "m", "layers": 0}]})",
                                     "models.json");
    QVERIFY(!badModel.ok());
    QVERIFY(badModel.error().message.starts_with("models.json: models[0].layers: 0 is out"));
    auto wrongKind
        = readModelCatalog(R"({"format": "hetplan.gpu-catalog/1", "gpus": []})", "models.json");
    QVERIFY(!wrongKind.ok());
}

void TestFormats::builtinCatalogs()
{
    if (!hasEmbedded("catalog/gpus.json") || !hasEmbedded("catalog/models.json"))
        QSKIP("the bundled catalogs are not in resources/catalog/ yet");
    const GpuCatalog &gpus = builtinGpuCatalog();
    QVERIFY(&gpus == &builtinGpuCatalog()); // parsed once
    for (const char *name : {"A800-80G", "RTX4090-24G", "RTX3090-24G"})
        QVERIFY2(gpus.find(name) != nullptr, name);
    const ModelSpec *llama = builtinModelCatalog().find("llama2-13b");
    QVERIFY(llama != nullptr);
    QCOMPARE(llama->layers, 40);
    QCOMPARE(llama->hidden, 5120);
}

void TestFormats::loaders()
{
    const std::string path = dataPath(QStringLiteral("good/case-study.cluster.json"));
    auto fromFile = loadCluster(path);
    QVERIFY2(fromFile.ok(), fromFile.ok() ? "" : fromFile.error().message.c_str());
    QCOMPARE(fromFile->machines.size(), size_t(3));

    auto missing = loadCluster("no-such-cluster");
    QVERIFY(!missing.ok());
    QVERIFY2(missing.error().message.find("not a bundled cluster") != std::string::npos
                 && missing.error().message.find("no such file") != std::string::npos,
             missing.error().message.c_str());

    auto broken = loadCluster(dataPath(QStringLiteral("bad/cluster-zero-gpus.json")));
    QVERIFY(!broken.ok());
    QVERIFY(broken.error().message.find("cluster-zero-gpus.json: machines[1].count")
            != std::string::npos);

    auto model = loadModel(dataPath(QStringLiteral("good/tiny.model.json")));
    QVERIFY(model.ok());
    QCOMPARE(model->kvHeads, 2);
    auto workload = loadWorkload(dataPath(QStringLiteral("good/infer.workload.json")));
    QVERIFY(workload.ok());
    QVERIFY(workload->mode == Mode::Infer);
    QVERIFY(!loadWorkload("/no/such/workload.json").ok());

    if (findExample("case-study", ExampleKind::Cluster)) {
        auto bundled = loadCluster("case-study");
        QVERIFY2(bundled.ok(), bundled.ok() ? "" : bundled.error().message.c_str());
        QCOMPARE(bundled->name, std::string("case-study"));
    }
    if (hasEmbedded("catalog/models.json")) {
        auto llama = loadModel("llama2-13b");
        QVERIFY(llama.ok());
        auto unknown = loadModel("gpt-17");
        QVERIFY(!unknown.ok());
        QVERIFY2(unknown.error().message.find("llama2-13b") != std::string::npos,
                 unknown.error().message.c_str());
    }
}

HETPLAN_TEST_APPLESS_MAIN(TestFormats)
#include "tst_formats.moc"
