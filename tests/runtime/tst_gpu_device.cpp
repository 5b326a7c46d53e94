// The GPU test machinery itself: on a machine with a GPU the device is seen and usable; on one
// without, this test is reported as skipped with the driver's reason (never as passed).

#include "gpu_test_support.h"
#include "runtime/cuda/cuda_status.h"
#include "tests/test_registry.h"

#include <cuda_runtime_api.h>

class TestGpuDevice : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { HETPLAN_REQUIRE_GPU(); }

    void deviceAllocatesAndCopies()
    {
        const int values[4] = {3, 1, 4, 1};
        void *device = nullptr;
        QCOMPARE(cudaMalloc(&device, sizeof values), cudaSuccess);
        QCOMPARE(cudaMemcpy(device, values, sizeof values, cudaMemcpyHostToDevice), cudaSuccess);
        int back[4] = {};
        QCOMPARE(cudaMemcpy(back, device, sizeof back, cudaMemcpyDeviceToHost), cudaSuccess);
        QCOMPARE(cudaFree(device), cudaSuccess);
        QCOMPARE(back[2], 4);
    }

    void errorsNameTheCall()
    {
        const hetplan::Status failed
            = hetplan::runtime::cuda::cudaCall(cudaErrorMemoryAllocation, "cudaMalloc of 80 GiB");
        QVERIFY(!failed);
        QVERIFY(failed.error().message.starts_with("cudaMalloc of 80 GiB failed at "));
        QVERIFY(failed.error().message.find("tst_gpu_device.cpp:") != std::string::npos);
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestGpuDevice)
#include "tst_gpu_device.moc"
