// The bundled data: GPU catalog, model catalog and the reference scenarios of docs/architecture.md.
#include "core/io/catalog_json.h"
#include "core/io/formats.h"
#include "core/model/topology.h"
#include "tests/test_registry.h"

#include <QtTest>

#include <cmath>
#include <string>

using namespace hetplan;

namespace {

// Parameters with the input embedding shared by the output head (GPT-3); ModelSpec counts an
// untied head as Llama has.
double tiedParams(const ModelSpec &m)
{
    return m.layers * m.paramsPerLayer() + m.embeddingParams();
}

Topology exampleTopology(const QString &name)
{
    const std::optional<Example> example = findExample(name.toStdString(), ExampleKind::Cluster);
    if (!example)
        qFatal("no bundled cluster '%s'", qPrintable(name));
    auto cluster = parseCluster(example->text, example->path);
    if (!cluster)
        qFatal("%s", cluster.error().message.c_str());
    auto topology = Topology::build(*cluster, builtinGpuCatalog());
    if (!topology)
        qFatal("%s: %s", example->path.c_str(), topology.error().message.c_str());
    return std::move(topology).value();
}

} // namespace

class TestCatalog : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void everyGpuHasFiguresAndASource();
    void gpuFigures_data();
    void gpuFigures();
    void everyModelHasConsistentShape();
    void modelParameters_data();
    void modelParameters();
    void exampleClusters_data();
    void exampleClusters();
    void exampleLinksMatchThePapers();
    void everyExampleClusterNamesItsModel();
};

void TestCatalog::everyGpuHasFiguresAndASource()
{
    const GpuCatalog &catalog = builtinGpuCatalog();
    QVERIFY(catalog.all().size() >= 19);
    for (const GpuType &g : catalog.all()) {
        const QByteArray name = QByteArray::fromStdString(g.name);
        QVERIFY2(g.tflops > 0 && g.memoryGiB > 0 && g.memoryBandwidthGBps > 0, name);
        QVERIFY2(!g.source.empty(), name);
        QVERIFY2(g.achievedFraction > 0.3 && g.achievedFraction <= 0.7, name);
        QVERIFY2(g.accumulate == "fp32" || g.accumulate == "fp16", name);
        QVERIFY2(g.typicalIntra.bandwidthGBps > 0 && g.typicalIntra.latencyUs > 0, name);
        QVERIFY2(g.pricePerHourUsd.value_or(1) > 0, name);
    }
}

void TestCatalog::gpuFigures_data()
{
    // Dense (never sparsity) tensor TFLOPS at the accumulate rate training uses.
    QTest::addColumn<QString>("name");
    QTest::addColumn<double>("tflops");
    QTest::addColumn<double>("memoryGiB");

    QTest::newRow("A100-40G") << QStringLiteral("A100-40G") << 312.0 << 40.0;
    QTest::newRow("A100-80G") << QStringLiteral("A100-80G") << 312.0 << 80.0;
    QTest::newRow("A800-80G") << QStringLiteral("A800-80G") << 312.0 << 80.0;
    QTest::newRow("H100-80G") << QStringLiteral("H100-80G") << 989.0 << 80.0;
    QTest::newRow("H200-141G") << QStringLiteral("H200-141G") << 989.0 << 141.0;
    QTest::newRow("V100-32G") << QStringLiteral("V100-32G") << 125.0 << 32.0;
    QTest::newRow("V100-16G") << QStringLiteral("V100-16G") << 125.0 << 16.0;
    QTest::newRow("P100-16G") << QStringLiteral("P100-16G") << 18.7 << 16.0;
    QTest::newRow("T4-16G") << QStringLiteral("T4-16G") << 65.0 << 16.0;
    QTest::newRow("L4-24G") << QStringLiteral("L4-24G") << 121.0 << 24.0;
    QTest::newRow("L40S-48G") << QStringLiteral("L40S-48G") << 362.0 << 48.0;
    QTest::newRow("A10-24G") << QStringLiteral("A10-24G") << 125.0 << 24.0;
    QTest::newRow("A40-48G") << QStringLiteral("A40-48G") << 149.7 << 48.0;
    QTest::newRow("RTXA5000-24G") << QStringLiteral("RTXA5000-24G") << 111.1 << 24.0;
    QTest::newRow("RTXA6000-48G") << QStringLiteral("RTXA6000-48G") << 154.8 << 48.0;
    QTest::newRow("RTX3080Ti-12G") << QStringLiteral("RTX3080Ti-12G") << 68.2 << 12.0;
    QTest::newRow("RTX3090-24G") << QStringLiteral("RTX3090-24G") << 71.0 << 24.0;
    QTest::newRow("RTX3090Ti-24G") << QStringLiteral("RTX3090Ti-24G") << 80.0 << 24.0;
    QTest::newRow("RTX4090-24G") << QStringLiteral("RTX4090-24G") << 165.2 << 24.0;
}

void TestCatalog::gpuFigures()
{
    QFETCH(QString, name);
    QFETCH(double, tflops);
    QFETCH(double, memoryGiB);

    const GpuType *g = builtinGpuCatalog().find(name.toStdString());
    QVERIFY(g);
    QVERIFY2(std::abs(g->tflops - tflops) <= 0.5, qPrintable(QString::number(g->tflops)));
    QCOMPARE(g->memoryGiB, memoryGiB);
}

void TestCatalog::everyModelHasConsistentShape()
{
    const ModelCatalog &catalog = builtinModelCatalog();
    for (const ModelSpec &m : catalog.all()) {
        const QByteArray name = QByteArray::fromStdString(m.name);
        QVERIFY2(m.layers > 0 && m.hidden > 0 && m.ffnHidden > m.hidden, name);
        QVERIFY2(m.heads > 0 && m.hidden % m.heads == 0, name);
        QVERIFY2(m.kvHeads > 0 && m.heads % m.kvHeads == 0, name);
        QVERIFY2(m.vocab > 0 && m.maxSeqLen >= 2048, name);
        const bool gpt = m.name.starts_with("gpt3-");
        QVERIFY2((m.mlp == MlpKind::Gelu) == gpt, name);
        if (gpt)
            QVERIFY2(m.ffnHidden == 4 * m.hidden && m.kvHeads == m.heads, name);
    }
}

void TestCatalog::modelParameters_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<double>("nominal");   // parameters, as the model's authors count them
    QTest::addColumn<double>("tolerance"); // relative
    QTest::addColumn<bool>("tied");        // GPT-3 shares the embedding with the output head

    QTest::newRow("llama2-7b") << QStringLiteral("llama2-7b") << 6.74e9 << 0.01 << false;
    QTest::newRow("llama2-13b") << QStringLiteral("llama2-13b") << 13.0e9 << 0.01 << false;
    QTest::newRow("llama2-70b") << QStringLiteral("llama2-70b") << 69.0e9 << 0.01 << false;
    QTest::newRow("llama-30b") << QStringLiteral("llama-30b") << 32.5e9 << 0.01 << false;
    QTest::newRow("llama3-8b") << QStringLiteral("llama3-8b") << 8.03e9 << 0.01 << false;
    QTest::newRow("llama3-70b") << QStringLiteral("llama3-70b") << 70.6e9 << 0.01 << false;
    // GPT sizes as Metis (Table 2), Holmes (Table 2, Fig. 7) and Brown et al. name them.
    QTest::newRow("gpt3-350m") << QStringLiteral("gpt3-350m") << 0.35e9 << 0.03 << true;
    QTest::newRow("gpt3-1.3b") << QStringLiteral("gpt3-1.3b") << 1.3e9 << 0.03 << true;
    QTest::newRow("gpt3-2.7b") << QStringLiteral("gpt3-2.7b") << 2.7e9 << 0.03 << true;
    QTest::newRow("gpt3-3.6b") << QStringLiteral("gpt3-3.6b") << 3.6e9 << 0.03 << true;
    QTest::newRow("gpt3-6.7b") << QStringLiteral("gpt3-6.7b") << 6.7e9 << 0.03 << true;
    QTest::newRow("gpt3-7.5b") << QStringLiteral("gpt3-7.5b") << 7.5e9 << 0.03 << true;
    QTest::newRow("gpt3-13b") << QStringLiteral("gpt3-13b") << 13.0e9 << 0.03 << true;
    QTest::newRow("gpt3-15b") << QStringLiteral("gpt3-15b") << 15.0e9 << 0.03 << true;
    QTest::newRow("gpt3-39b") << QStringLiteral("gpt3-39b") << 39.1e9 << 0.03 << true;
    QTest::newRow("gpt3-175b") << QStringLiteral("gpt3-175b") << 175.0e9 << 0.03 << true;
}

void TestCatalog::modelParameters()
{
    QFETCH(QString, name);
    QFETCH(double, nominal);
    QFETCH(double, tolerance);
    QFETCH(bool, tied);

    const ModelSpec *m = builtinModelCatalog().find(name.toStdString());
    QVERIFY(m);
    const double params = tied ? tiedParams(*m) : m->totalParams();
    QVERIFY2(std::abs(params / nominal - 1) <= tolerance,
             qPrintable(QStringLiteral("%1 parameters").arg(params, 0, 'g', 4)));
}

void TestCatalog::exampleClusters_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<int>("gpus"); // docs/architecture.md, reference scenarios

    QTest::newRow("case-study") << QStringLiteral("case-study") << 8;
    QTest::newRow("hetero-setting-1") << QStringLiteral("hetero-setting-1") << 40;
    QTest::newRow("hetero-setting-2") << QStringLiteral("hetero-setting-2") << 32;
    QTest::newRow("hetero-setting-3") << QStringLiteral("hetero-setting-3") << 56;
    QTest::newRow("large-cluster") << QStringLiteral("large-cluster") << 240;
    QTest::newRow("hexgen-full-price") << QStringLiteral("hexgen-full-price") << 58;
    QTest::newRow("hexgen-half-price") << QStringLiteral("hexgen-half-price") << 30;
    QTest::newRow("holmes-hybrid") << QStringLiteral("holmes-hybrid") << 64;
}

void TestCatalog::exampleClusters()
{
    QFETCH(QString, name);
    QFETCH(int, gpus);

    const Topology t = exampleTopology(name);
    QCOMPARE(t.gpuCount(), gpus);
    QVERIFY(t.cluster().name == name.toStdString());
    QVERIFY2(!t.cluster().description.empty(), "the GUI shows where a reference cluster is from");
    // Every reference fleet is one network: any pair can talk.
    for (int a = 0; a < t.gpuCount(); ++a)
        for (int b = a + 1; b < t.gpuCount(); ++b)
            QVERIFY2(t.connected(a, b),
                     qPrintable(QString::fromStdString(t.gpu(a).name + " / " + t.gpu(b).name)));
}

void TestCatalog::exampleLinksMatchThePapers()
{
    const auto gpu = [](const Topology &t, const char *name) {
        const std::optional<int> index = t.findGpu(name);
        if (!index)
            qFatal("no GPU %s", name);
        return *index;
    };

    // HexiScale §3.1: NVLink 200 GB/s in A, PCIe 32/16 GB/s in B/C, 1 GB/s between machines.
    const Topology caseStudy = exampleTopology(QStringLiteral("case-study"));
    QCOMPARE(caseStudy.bandwidthGBps(gpu(caseStudy, "A:0"), gpu(caseStudy, "A:2")), 200.0);
    QCOMPARE(caseStudy.bandwidthGBps(gpu(caseStudy, "B:0"), gpu(caseStudy, "B:1")), 32.0);
    QCOMPARE(caseStudy.bandwidthGBps(gpu(caseStudy, "C:0"), gpu(caseStudy, "C:1")), 16.0);
    QCOMPARE(caseStudy.bandwidthGBps(gpu(caseStudy, "A:0"), gpu(caseStudy, "C:1")), 1.0);
    QVERIFY(caseStudy.gpuType(gpu(caseStudy, "B:2")).name == "RTX4090-24G");

    // Holmes §4: 200 Gb/s RDMA inside a fabric, 25 Gb/s Ethernet between the fabrics.
    const Topology holmes = exampleTopology(QStringLiteral("holmes-hybrid"));
    QCOMPARE(holmes.bandwidthGBps(gpu(holmes, "ib-0:0"), gpu(holmes, "ib-3:7")), 25.0);
    QCOMPARE(holmes.bandwidthGBps(gpu(holmes, "roce-1:0"), gpu(holmes, "roce-2:0")), 25.0);
    QCOMPARE(holmes.bandwidthGBps(gpu(holmes, "ib-0:0"), gpu(holmes, "roce-0:0")), 3.125);
    QVERIFY(holmes.cluster().machines.front().nic == NicKind::InfiniBand);
    QVERIFY(holmes.cluster().machines.back().nic == NicKind::Roce);

    // HexGen §5.1: 5 Gbps and 2 ms inside a region; 40-150 ms and 0.3-1 Gbps between regions.
    const Topology hexgen = exampleTopology(QStringLiteral("hexgen-full-price"));
    QCOMPARE(hexgen.bandwidthGBps(gpu(hexgen, "ice-3090Ti-0:0"), gpu(hexgen, "ice-3090Ti-1:0")),
             0.625);
    QCOMPARE(hexgen.latencyUs(gpu(hexgen, "ill-A6000-0:0"), gpu(hexgen, "ill-A40-0:0")), 2000.0);
    for (const auto &[a, b] : {std::pair{"ice-3090Ti-0:0", "nor-3090Ti-0:0"},
                               std::pair{"nor-3090Ti-1:2", "nev-A5000-0:0"},
                               std::pair{"ice-3090Ti-0:0", "ill-A6000-1:0"}}) {
        const double gbps = hexgen.bandwidthGBps(gpu(hexgen, a), gpu(hexgen, b)) * 8;
        const double ms = hexgen.latencyUs(gpu(hexgen, a), gpu(hexgen, b)) / 1000;
        QVERIFY2(gbps >= 0.3 - 1e-9 && gbps <= 1.0 + 1e-9, qPrintable(QString::number(gbps)));
        QVERIFY2(ms >= 40 && ms <= 150, qPrintable(QString::number(ms)));
    }
}

void TestCatalog::everyExampleClusterNamesItsModel()
{
    for (const Example &e : bundledExamples()) {
        if (e.kind != ExampleKind::Cluster)
            continue;
        const std::optional<std::string> model = exampleModel(e.name);
        QVERIFY2(model, e.name.c_str());
        QVERIFY2(builtinModelCatalog().find(*model), model->c_str());
    }
    QCOMPARE(exampleModel("HexGen-Full-Price").value_or(""), std::string("llama2-70b"));
    QVERIFY(!exampleModel("my-cluster"));
}

HETPLAN_TEST_APPLESS_MAIN(TestCatalog)
#include "tst_catalog.moc"
