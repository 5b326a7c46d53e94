// The initial weights made on the GPU (runtime/cuda/model/init_kernels.h; label gpu): a Llama-2
// 7B stage of 8 layers with the embedding and head, about 1.9 G parameters, which one host
// thread took about 48 s to make, is made in seconds, and elements across every tensor (the
// first, the middle and the last of each slice) are model_init's.
#include "core/io/catalog_json.h"
#include "gpu_test_support.h"
#include "runtime/cuda/model/cuda_shard.h"
#include "runtime/model/model_init.h"
#include "tests/test_registry.h"

#include <QElapsedTimer>

#include <bit>
#include <cstdint>
#include <cuda_runtime_api.h>

using namespace hetplan;
using namespace hetplan::runtime;
using namespace hetplan::runtime::cuda;

class TestCudaInit : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { HETPLAN_REQUIRE_GPU(); }

    void aSevenBillionStageIsMadeInSeconds()
    {
        const ModelSpec *spec = builtinModelCatalog().find("llama2-7b");
        QVERIFY(spec != nullptr);
        auto config = scaledModelConfig(*spec, 4096, 1);
        QVERIFY(config);
        TrainingSetup setup;
        setup.seed = 7;
        setup.globalBatch = 1;
        QElapsedTimer clock;
        clock.start();
        auto shard = CudaShard::create(*config, {0, 8, 0, 1, true, true}, setup, nullptr);
        const qint64 madeMs = clock.elapsed();
        QVERIFY2(shard, shard ? "" : shard.error().message.c_str());
        std::size_t parameters = 0;
        for (const DeviceParameter &p : shard->parameters())
            parameters += p.count;
        qInfo("%.2f G parameters made in %lld ms", double(parameters) * 1e-9, madeMs);
        QVERIFY(parameters > 1'500'000'000);
        QVERIFY2(madeMs < 10000, "making the weights took more than 10 s");

        for (const DeviceParameter &p : shard->parameters())
            for (const std::size_t at : {std::size_t(0), p.count / 2, p.count - 1}) {
                float onDevice = 0;
                QCOMPARE(
                    cudaMemcpy(&onDevice, p.value + at, sizeof onDevice, cudaMemcpyDeviceToHost),
                    cudaSuccess);
                const float expected = initialWeight(p.tensor, config->layers, setup.seed,
                                                     p.slice.begin + std::int64_t(at));
                QCOMPARE(std::bit_cast<std::uint32_t>(onDevice),
                         std::bit_cast<std::uint32_t>(expected));
            }
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestCudaInit)
#include "tst_cuda_init.moc"
