// The device memory policy of docs/runtime.md "Device memory" (label gpu): the stream-ordered
// pool keeps what a step reserved across synchronisations, and DeviceBuffer reports its size.

#include "gpu_test_support.h"
#include "runtime/cuda/cuda_status.h"
#include "runtime/cuda/device_buffer.h"
#include "tests/test_registry.h"

#include <cuda_runtime_api.h>

using namespace hetplan;
using namespace hetplan::runtime::cuda;

namespace {

void verifyOk(const Status &status)
{
    QVERIFY2(bool(status), status ? "" : status.error().message.c_str());
}

} // namespace

class TestDeviceMemory : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { HETPLAN_REQUIRE_GPU(); }

    // The head stage synchronises after every micro-batch: with CUDA's default threshold of 0
    // the pool would unmap its blocks there and map them again for the next one.
    void synchronizeKeepsThePoolReserved()
    {
        verifyOk(keepPoolReserved());
        cudaStream_t stream = nullptr;
        verifyOk(cudaCall(cudaStreamCreate(&stream), "cudaStreamCreate"));
        constexpr std::size_t bytes = std::size_t(256) << 20;
        void *data = nullptr;
        verifyOk(cudaCall(cudaMallocAsync(&data, bytes, stream), "cudaMallocAsync"));
        verifyOk(cudaCall(cudaFreeAsync(data, stream), "cudaFreeAsync"));
        verifyOk(cudaCall(cudaStreamSynchronize(stream), "cudaStreamSynchronize"));
        verifyOk(cudaCall(cudaDeviceSynchronize(), "cudaDeviceSynchronize"));
        const auto usage = poolUsage();
        QVERIFY(bool(usage));
        QCOMPARE(usage->usedBytes, std::size_t(0));
        QVERIFY2(usage->reservedBytes >= bytes, "the pool gave its reservation back");
        QVERIFY(usage->reservedHighBytes >= bytes);
        // The next allocation of the same size is served from the reservation.
        verifyOk(cudaCall(cudaMallocAsync(&data, bytes, stream), "cudaMallocAsync"));
        const auto again = poolUsage();
        QVERIFY(bool(again));
        QCOMPARE(again->reservedBytes, usage->reservedBytes);
        verifyOk(cudaCall(cudaFreeAsync(data, stream), "cudaFreeAsync"));
        verifyOk(cudaCall(cudaStreamSynchronize(stream), "cudaStreamSynchronize"));
        verifyOk(cudaCall(cudaStreamDestroy(stream), "cudaStreamDestroy"));
    }

    void bufferReportsItsSizeAndGrowsOnly()
    {
        DeviceBuffer buffer;
        QCOMPARE(buffer.bytes(), std::size_t(0));
        verifyOk(buffer.reserve(4096, "a test buffer"));
        QCOMPARE(buffer.bytes(), std::size_t(4096));
        verifyOk(buffer.reserve(1024));
        QCOMPARE(buffer.bytes(), std::size_t(4096));
        DeviceBuffer moved = std::move(buffer);
        QCOMPARE(moved.bytes(), std::size_t(4096));
        QCOMPARE(buffer.bytes(), std::size_t(0)); // NOLINT(bugprone-use-after-move)
    }

    void failedAllocationNamesTheBuffer()
    {
        DeviceBuffer buffer;
        const Status s = buffer.reserve(std::size_t(1) << 60, "an impossible buffer");
        QVERIFY(!s);
        QVERIFY(s.error().message.find("an impossible buffer") != std::string::npos);
        QCOMPARE(buffer.bytes(), std::size_t(0));
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestDeviceMemory)
#include "tst_device_memory.moc"
