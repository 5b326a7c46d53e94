// runtime/worker/cuda_backend on one GPU (label gpu; skipped where none is usable): the payload
// travels in bf16 (docs/runtime.md, "Bytes on the wire") through a one-member group, so what
// comes back is each fp32 value rounded to bf16 once; handshakes stay fp32; gradient buckets are
// scaled as they are packed; and the tally records bf16 bytes per group.
#include "core/model/backend_kind.h"
#include "gpu_test_support.h"
#include "runtime/worker/cuda_backend.h"
#include "tests/test_registry.h"

#include <QTemporaryDir>

#include <cstring>
#include <cuda_runtime_api.h>

using namespace hetplan;
using namespace hetplan::runtime;

namespace {

// fp32 → bf16 → fp32, rounding to nearest even (finite values).
float bf16Rounded(float value)
{
    std::uint32_t bits = 0;
    std::memcpy(&bits, &value, 4);
    bits += 0x7fffu + ((bits >> 16) & 1u);
    bits &= 0xffff0000u;
    float rounded = 0;
    std::memcpy(&rounded, &bits, 4);
    return rounded;
}

// 1 + 2⁻¹⁰ and friends: not bf16 values, so a bf16 trip changes them.
std::vector<float> values(std::size_t count, float scale = 1.0f)
{
    std::vector<float> v(count);
    for (std::size_t i = 0; i < count; ++i)
        v[i] = scale * (1.0f + float(i % 7) / 1024.0f + float(i) / 3.0f);
    return v;
}

std::vector<float> rounded(std::vector<float> v, float factor = 1.0f)
{
    for (float &x : v)
        x = bf16Rounded(x * factor);
    return v;
}

} // namespace

class TestCudaBackend : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        HETPLAN_REQUIRE_GPU();
        CommOptions options;
        options.rendezvous = m_dir.path().toStdString();
        options.timeoutS = 30;
        auto backend = CudaBackend::open(options, 0, 1, 0);
        QVERIFY2(backend, backend ? "" : backend.error().message.c_str());
        m_backend = std::move(backend).value();
        JobProgram program;
        program.ranks.resize(1);
        program.groups.push_back({"solo", GroupKind::TensorParallel, {0}, std::nullopt});
        const Status connected = m_backend->connect(program);
        QVERIFY2(connected, connected ? "" : connected.error().message.c_str());
        QCOMPARE(m_backend->wire(), wirePrecision(BackendKind::Cuda));
    }

    void payloadTravelsInBf16()
    {
        constexpr std::size_t kCount = 1000;
        Floats data = upload(values(kCount));
        Floats received = upload(std::vector<float>(kCount, -1.0f));
        double spentS = 0;
        QVERIFY(m_backend->allReduceSum("solo", data.data, kCount, spentS));
        QCOMPARE(download(data), rounded(values(kCount)));

        Floats sent = upload(values(kCount, 3.0f));
        const Status exchanged = m_backend->exchange(
            {{"solo", 0, sent.data, kCount, 0, true}, {"solo", 0, received.data, kCount, 0, false}},
            spentS);
        QVERIFY2(exchanged, exchanged ? "" : exchanged.error().message.c_str());
        QCOMPARE(download(received), rounded(values(kCount, 3.0f)));
        QCOMPARE(download(sent), values(kCount, 3.0f)); // the sender's buffer is untouched

        Floats root = upload(values(kCount, 5.0f));
        QVERIFY(m_backend->broadcast("solo", 0, root.data, kCount, spentS));
        QCOMPARE(download(root), values(kCount, 5.0f)); // the root keeps its fp32
        QVERIFY(spentS > 0);

        // A handshake is fp32 and no payload.
        Floats token = upload({1.0f + 1.0f / 1024.0f});
        QVERIFY(m_backend->allReduceSum("solo", token.data, 1, spentS, Traffic::Handshake));
        QCOMPARE(download(token), std::vector<float>{1.0f + 1.0f / 1024.0f});

        const WireTraffic &t = m_backend->tally().at({"solo", Precision::Bf16});
        QCOMPARE(t.sentBytes, std::int64_t(kCount * 2));
        QCOMPARE(t.collectiveBytes, std::int64_t(2 * kCount * 2));
        QVERIFY(!m_backend->tally().contains({"solo", Precision::Fp32}));
    }

    void gradientBucketsAreScaledAndUnpacked()
    {
        Floats grads = upload(values(3000));
        const std::vector<FloatPiece> pieces = {{grads.data, 1200}, {grads.data + 1800, 1200}};
        double spentS = 0;
        QVERIFY(m_backend->allReduceGradients("solo", pieces, 0.5f, spentS));
        std::vector<float> expected = values(3000);
        for (std::size_t i = 0; i < expected.size(); ++i)
            if (i < 1200 || i >= 1800)
                expected[i] = bf16Rounded(expected[i] * 0.5f);
        QCOMPARE(download(grads), expected);
        // Larger than a bucket: refused.
        Floats many = upload(std::vector<float>(16, 0.0f));
        QVERIFY(!m_backend->allReduceGradients("solo", {{many.data, Backend::kBucketElements + 1}},
                                               1.0f, spentS));
    }

    void cleanupTestCase() { m_backend.reset(); }

private:
    Floats upload(const std::vector<float> &host)
    {
        auto made = m_backend->allocate(host.size());
        if (!made || !m_backend->synchronize())
            return {};
        if (cudaMemcpy(made->data, host.data(), host.size() * sizeof(float),
                       cudaMemcpyHostToDevice)
                != cudaSuccess
            || cudaDeviceSynchronize() != cudaSuccess) // a pageable copy may still be in flight
            return {};
        return std::move(made).value();
    }

    std::vector<float> download(const Floats &device)
    {
        std::vector<float> host(device.count);
        if (!m_backend->synchronize()
            || cudaMemcpy(host.data(), device.data, device.count * sizeof(float),
                          cudaMemcpyDeviceToHost)
                   != cudaSuccess)
            host.clear();
        return host;
    }

    QTemporaryDir m_dir;
    std::unique_ptr<CudaBackend> m_backend;
};

HETPLAN_TEST_APPLESS_MAIN(TestCudaBackend)
#include "tst_cuda_backend.moc"
