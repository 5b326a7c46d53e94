// runtime/cuda/nccl_comms on one GPU (label gpu; skipped where none is usable): every call of a
// one-member communicator (created, warmed up, then all-reduce, broadcast and a send to itself
// in one group), several communicators created together in one NCCL group, the readiness
// barrier, and a group whose other member never comes: the rank gives up after its setup
// budget with a message naming the group, and aborts instead of hanging. Calls return once
// enqueued; drain() waits for them.
#include "gpu_test_support.h"
#include "runtime/cuda/nccl_comms.h"
#include "tests/test_registry.h"

#include <QElapsedTimer>
#include <QTemporaryDir>

#include <cuda_runtime_api.h>

using namespace hetplan;
using namespace hetplan::runtime;
using namespace hetplan::runtime::cuda;

namespace {

std::vector<float> download(const float *device, std::size_t count)
{
    std::vector<float> host(count);
    if (cudaMemcpy(host.data(), device, count * sizeof(float), cudaMemcpyDeviceToHost)
        != cudaSuccess)
        host.clear();
    return host;
}

// A world of one on a fresh rendezvous directory, with `groups` connected.
Result<std::unique_ptr<NcclComms>> connectAlone(const QTemporaryDir &dir, cudaStream_t compute,
                                                const std::vector<NcclGroup> &groups)
{
    CommOptions options;
    options.rendezvous = dir.path().toStdString();
    options.timeoutS = 30;
    auto comms = NcclComms::open(options, 0, 1, compute);
    if (!comms)
        return comms.error();
    if (Status connected = (*comms)->connect(groups); !connected)
        return connected.error();
    return comms;
}

} // namespace

class TestNcclDevice : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        HETPLAN_REQUIRE_GPU();
        QCOMPARE(cudaSetDevice(0), cudaSuccess);
        QCOMPARE(cudaStreamCreate(&m_compute), cudaSuccess);
    }

    void oneMemberGroupRunsEveryCall()
    {
        QTemporaryDir dir;
        auto comms = connectAlone(dir, m_compute, {{"solo", {0}, Transport::Socket}});
        QVERIFY2(comms, comms ? "" : comms.error().message.c_str());

        const std::vector<float> values = {1, 2, 3, 4};
        float *data = nullptr;
        float *echo = nullptr;
        QCOMPARE(cudaMalloc(reinterpret_cast<void **>(&data), 16), cudaSuccess);
        QCOMPARE(cudaMalloc(reinterpret_cast<void **>(&echo), 16), cudaSuccess);
        QCOMPARE(cudaMemcpy(data, values.data(), 16, cudaMemcpyHostToDevice), cudaSuccess);
        double spentS = 0;
        QVERIFY((*comms)->allReduceSum("solo", data, 4, Precision::Fp32, spentS));
        QVERIFY((*comms)->broadcast("solo", 0, data, 4, Precision::Fp32, spentS));
        const Status sent = (*comms)->exchange(
            {{"solo", 0, data, 4, true}, {"solo", 0, echo, 4, false}}, Precision::Fp32, spentS);
        QVERIFY2(sent, sent ? "" : sent.error().message.c_str());
        QCOMPARE(spentS, 0.0); // the calls return once enqueued; their time comes with drain
        QVERIFY((*comms)->drain());
        QCOMPARE(download(data, 4), values);
        QCOMPARE(download(echo, 4), values);
        QVERIFY(spentS > 0);

        // bf16 on the wire: 8 bytes are 4 bf16 elements, and only those move.
        const std::vector<std::uint16_t> halves = {0x3f80, 0x4000, 0x4040, 0x4080}; // 1 2 3 4
        QCOMPARE(cudaMemcpy(data, halves.data(), 8, cudaMemcpyHostToDevice), cudaSuccess);
        QCOMPARE(cudaMemset(echo, 0, 16), cudaSuccess);
        QVERIFY((*comms)->allReduceSum("solo", data, 4, Precision::Bf16, spentS));
        const Status sentBf16 = (*comms)->exchange(
            {{"solo", 0, data, 4, true}, {"solo", 0, echo, 4, false}}, Precision::Bf16, spentS);
        QVERIFY2(sentBf16, sentBf16 ? "" : sentBf16.error().message.c_str());
        QVERIFY((*comms)->drain());
        std::vector<std::uint16_t> back(8, 0xffff);
        QCOMPARE(cudaMemcpy(back.data(), echo, 16, cudaMemcpyDeviceToHost), cudaSuccess);
        QCOMPARE(std::vector<std::uint16_t>(back.begin(), back.begin() + 4), halves);
        QCOMPARE(std::vector<std::uint16_t>(back.begin() + 4, back.end()),
                 std::vector<std::uint16_t>(4, 0));
        cudaFree(data);
        cudaFree(echo);
    }

    // Three communicators on one device, created in one NCCL group and warmed up (the gradient
    // group on the gradient stream), then each used on its own; then the readiness barrier of a
    // world of one.
    void communicatorsAreCreatedTogether()
    {
        QTemporaryDir dir;
        auto comms = connectAlone(dir, m_compute,
                                  {{"tp/p0/s0/r0", {0}, std::nullopt},
                                   {"hop/p0/s0-s1/r0-r0", {0}, Transport::Socket},
                                   {"dp/l0-2/replicated", {0}, std::nullopt, Lane::Gradients}});
        QVERIFY2(comms, comms ? "" : comms.error().message.c_str());
        const Status ready = (*comms)->awaitEveryRankReady();
        QVERIFY2(ready, ready ? "" : ready.error().message.c_str());
        float *data = nullptr;
        QCOMPARE(cudaMalloc(reinterpret_cast<void **>(&data), 16), cudaSuccess);
        const std::vector<float> values = {1, 2, 3, 4};
        QCOMPARE(cudaMemcpy(data, values.data(), 16, cudaMemcpyHostToDevice), cudaSuccess);
        double spentS = 0;
        for (const char *group : {"tp/p0/s0/r0", "hop/p0/s0-s1/r0-r0", "dp/l0-2/replicated"}) {
            const Status reduced = (*comms)->allReduceSum(group, data, 4, Precision::Fp32, spentS);
            QVERIFY2(reduced, reduced ? "" : reduced.error().message.c_str());
            QVERIFY((*comms)->drain()); // the groups run on two streams: one at a time here
        }
        QCOMPARE(download(data, 4), values);
        cudaFree(data);
    }

    void absentPeerTimesOutAndAborts()
    {
        QTemporaryDir dir;
        CommOptions options;
        options.rendezvous = dir.path().toStdString();
        options.timeoutS = 1; // setup budget: 10 s
        auto comms = NcclComms::open(options, 0, 2, m_compute);
        QVERIFY(comms);
        QElapsedTimer clock;
        clock.start();
        const Status connected = (*comms)->connect({{"tp/p0/s0/r0", {0, 1}, std::nullopt}});
        QVERIFY(!connected);
        QVERIFY2(clock.elapsed() >= 9000, "gave up before its setup budget");
        QVERIFY2(clock.elapsed() < 20000, "gave up long after its setup budget");
        const std::string &message = connected.error().message;
        QVERIFY2(message.find("tp/p0/s0/r0") != std::string::npos, message.c_str());
        QVERIFY2(message.find("aborted") != std::string::npos, message.c_str());
        QVERIFY((*comms)->aborted());
        double spentS = 0;
        float *none = nullptr;
        QVERIFY(!(*comms)->allReduceSum("tp/p0/s0/r0", none, 0, Precision::Fp32, spentS));
    }

    void cleanupTestCase()
    {
        if (m_compute != nullptr)
            cudaStreamDestroy(m_compute);
    }

private:
    cudaStream_t m_compute = nullptr;
};

HETPLAN_TEST_APPLESS_MAIN(TestNcclDevice)
#include "tst_nccl_device.moc"
