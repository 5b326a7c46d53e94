// The GPU layer probe (docs/probe.md, "The layer"), on a GPU (gpu-tests, label gpu; skipped where
// none is usable) and on the CUDA host emulation (cuda-model-emulated), whose clock reads 1 ms
// for every interval: there the times mean nothing and the plumbing is what is checked. Every
// micro-batch point and term comes out, keyed by the model's shape as it ran; the probe file
// holding it validates; import makes it the GPU type's measured layer table, which the cost
// model then prices a stage of that shape from. On a GPU the times also grow with the work, and
// the GEMM model's prediction for the same layer is printed beside them.
#include "core/cost/cost_model.h"
#include "core/cost/layer_table.h"
#include "core/import/import.h"
#include "core/io/catalog_json.h"
#include "core/io/probe_file.h"
#include "gpu_test_support.h"
#include "model_test_support.h"
#include "runtime/probe/gpu_layer_probe.h"
#include "tests/test_registry.h"

#include <cuda_runtime_api.h>

using namespace hetplan;
using namespace hetplan::runtime::probe;

namespace {

using runtime::test::serveModel;

ProbeCommand tinyCommand()
{
    ProbeCommand c;
    c.model = serveModel().name;
    c.microBatch = 3;
    c.seqLen = 32;
    c.tp = 2;
    c.repetitions = 2;
    c.quick = true;
    return c;
}

// A GPU host of one device matched to `catalog`, its layer `layer`.
Probe probeWith(const LayerFigure &layer, const std::string &catalog)
{
    const GpuType *type = builtinGpuCatalog().find(catalog);
    ProbedGpu gpu;
    gpu.name = "the probed GPU";
    gpu.catalog = catalog;
    gpu.memoryGiB = type ? type->memoryGiB : 80;
    gpu.smCount = 1;
    gpu.layer = layer;
    ProbedHost host;
    host.name = "gpu-host";
    host.backend = BackendKind::Cuda;
    host.cpuCores = 1;
    host.blasThreads = 1;
    host.gpus = {gpu};
    Probe probe;
    probe.settings = {layer.model, 1, layer.seqLen, layer.tp, 2, true};
    probe.hosts = {host};
    return probe;
}

} // namespace

class TestProbeGpuLayer : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { HETPLAN_REQUIRE_GPU(); }

    void theLayerImportsAsItsTypesTable()
    {
        const ModelSpec model = serveModel();
        const ProbeCommand command = tinyCommand();
        auto layer = gpuLayer(0, model, command);
        QVERIFY2(layer.ok(), layer.ok() ? "" : layer.error().message.c_str());
        QCOMPARE(layer->method, std::string("runtime-cuda-layer"));
        QCOMPARE(layer->modelShape, modelShapeKey(model));
        QCOMPARE(layer->seqLen, 32);
        QCOMPARE(layer->tp, 2);
        std::vector<int> microBatches;
        for (const LayerPoint &p : layer->points) {
            microBatches.push_back(p.microBatch);
            QCOMPARE(p.forwardS.repetitions, command.repetitions);
            QVERIFY(p.forwardS.median > 0 && p.backwardS.median > 0);
        }
        QCOMPARE(microBatches, (std::vector<int>{1, 2, 3, 4}));
        QVERIFY(layer->optimizerSPerParam.median > 0);

        // The file validates (the strict reader) and keeps the figure as written.
        const Probe probe = probeWith(*layer, "H100-80G");
        auto read = parseProbe(writeProbe(probe), "gpu.probe.json");
        QVERIFY2(read.ok(), read.ok() ? "" : read.error().message.c_str());
        QVERIFY(read->hosts[0].gpus[0].layer == layer.value());

        auto imported = importMeasurements({ImportInput("gpu.probe.json", writeProbe(*read))});
        QVERIFY2(imported.ok(), imported.ok() ? "" : imported.error().message.c_str());
        const auto type = std::ranges::find_if(
            imported->cluster.gpuTypes, [](const GpuType &t) { return t.name == "H100-80G"; });
        QVERIFY(type != imported->cluster.gpuTypes.end());
        const MeasuredLayerTable *table = matchingLayerTable(*type, model, 32, 2);
        QVERIFY(table);
        QCOMPARE(table->points.size(), std::size_t(4));
        QCOMPARE(table->points[2].microBatch, 3);
        QCOMPARE(table->points[2].forwardS, layer->points[2].forwardS.median);
        QCOMPARE(table->source, std::string("gpu.probe.json: hosts[0].gpus[0].layer"));
        // Another sequence length or TP degree is not this table's.
        QVERIFY(!matchingLayerTable(*type, model, 64, 2));
        QVERIFY(!matchingLayerTable(*type, model, 32, 1));
    }

#ifndef HETPLAN_CUDA_HOST_EMULATION
    static double layerS(const LayerPoint &p)
    {
        return p.forwardS.median + p.backwardS.median;
    }

    // gpt3-350m at sequence 1024 on this GPU: more sequences take longer, a backward longer than
    // its forward; printed beside the `hetplan` GEMM model's prediction for the catalog type.
    void theLayerGrowsWithTheWork()
    {
        const ModelSpec *model = builtinModelCatalog().find("gpt3-350m");
        QVERIFY(model);
        ProbeCommand command;
        command.model = model->name;
        command.microBatch = 8;
        command.seqLen = 1024;
        command.repetitions = 5;
        command.quick = true;
        auto layer = gpuLayer(0, *model, command);
        QVERIFY2(layer.ok(), layer.ok() ? "" : layer.error().message.c_str());
        cudaDeviceProp props{};
        QCOMPARE(cudaGetDeviceProperties(&props, 0), cudaSuccess);
        const std::string catalog
            = catalogGpuFor(props.name, double(props.totalGlobalMem) / (1 << 30));
        for (const LayerPoint &p : layer->points)
            qInfo("%s, gpt3-350m layer at micro-batch %d: forward %.3f ms, backward %.3f ms",
                  props.name, p.microBatch, p.forwardS.median * 1e3, p.backwardS.median * 1e3);
        qInfo("optimizer %.3g ns/param, embedding %.3g us/token, head %.3g us/token",
              layer->optimizerSPerParam.median * 1e9,
              (layer->embeddingForwardSPerToken.median + layer->embeddingBackwardSPerToken.median)
                  * 1e6,
              (layer->headForwardSPerToken.median + layer->headBackwardSPerToken.median) * 1e6);
        QVERIFY(layerS(layer->points.back()) > layerS(layer->points.front()));
        for (const LayerPoint &p : layer->points)
            QVERIFY2(p.backwardS.median > p.forwardS.median,
                     qPrintable(QString::number(p.microBatch)));
        QVERIFY(layer->headForwardSPerToken.median > 0);
        if (catalog.empty())
            return;
        // One layer mid-pipeline at micro-batch 8 on the catalog's figures, without a table.
        Cluster c;
        c.name = "one-gpu";
        Machine m;
        m.name = "A";
        m.gpu = catalog;
        m.count = 1;
        c.machines = {m};
        auto topology = Topology::build(c, builtinGpuCatalog());
        QVERIFY(topology);
        Workload w;
        w.train.globalBatch = 64;
        w.train.seqLen = 1024;
        w.train.recompute = Recompute::Selective;
        const Problem problem{std::move(topology).value(), *model, w};
        StageQuery q;
        const std::vector<int> gpus{0};
        q.gpus = gpus;
        q.layerBegin = 1;
        q.layerEnd = 2;
        q.microBatch = 8;
        q.stageIndex = 1;
        q.stageCount = 3;
        q.microBatches = 1 << 20; // the optimizer's share is not in the layer's time
        const StageTiming predicted
            = CostModel(CostModelKind::HetPlan).estimateStage(problem, q).timing;
        qInfo("%s: measured %.3f ms, GEMM model %.3f ms (forward %.3f, backward %.3f)",
              catalog.c_str(), layerS(layer->points.back()) * 1e3, predicted.computeS * 1e3,
              predicted.forwardS * 1e3, predicted.backwardS * 1e3);
    }
#endif
};

HETPLAN_TEST_APPLESS_MAIN(TestProbeGpuLayer)
#include "tst_probe_gpu_layer.moc"
