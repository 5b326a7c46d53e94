// What overlaps in the GPU backend (docs/runtime.md, "What overlaps"), where no GPU is: the
// executor runs a one-rank program on the GPU stage and backend linked with the host emulation
// of CUDA and NCCL (cuda_model_emulation.cpp, nccl_emulation.cpp), which logs every kernel,
// event, stream wait, NCCL call and host wait in the order the host asked for them. From that
// log: a gradient bucket's reduction may start while the backward of earlier layers still runs
// (its stream waits for an event recorded before the first layer's backward kernels), the host
// waits for nothing between the backward and the last reduction, the optimizer waits by events
// for the reduced buckets, a hop send holds neither the host nor the compute stream, and a
// receive's reader waits by an event. Overlapping changes no number: many small buckets train
// the same weights as one.
#include "cuda_emulation_log.h"
#include "runtime/cuda/model/bf16.h"
#include "runtime/program/program.h"
#include "runtime/worker/cuda_backend.h"
#include "runtime/worker/cuda_stage.h"
#include "runtime/worker/executor.h"
#include "tests/test_registry.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <optional>

using namespace hetplan;
using namespace hetplan::runtime;
namespace emulation = hetplan::runtime::cuda::emulation;
using emulation::Kind;

namespace {

constexpr int kLayers = 3;
constexpr int kMicroBatches = 2;
constexpr int kRows = 1;

ModelSpec tinyModel()
{
    return {"tiny-overlap", kLayers, 32, 64, 4, 2, 48, 8, MlpKind::SwiGlu};
}

StageRun tinyRun()
{
    return {8, 1, 11, kMicroBatches * kRows, Optimizer::Adam};
}

// One rank holding the whole model, two micro-batches, and its gradients summed over a group of
// one member: every gradient goes through the same bucketed reduction as with many replicas.
// With `tpGroup`, its TP sums also go through a (one-member) TP group's all-reduces.
JobProgram oneRankProgram(bool tpGroup = false)
{
    JobProgram program;
    program.globalBatch = kMicroBatches * kRows;
    program.seqLen = 8;
    program.layers = kLayers;
    Rank rank;
    rank.layerEnd = kLayers;
    rank.embedding = true;
    rank.head = true;
    rank.rowCount = kRows;
    program.ranks.push_back(rank);
    program.groups.push_back({"dp/l0-3/all", GroupKind::Gradient, {0}, std::nullopt});
    if (tpGroup) {
        program.groups.push_back({"tp/p0/s0/r0", GroupKind::TensorParallel, {0}, std::nullopt});
        program.ranks.front().tpGroup = 1;
    }
    std::vector<Op> ops;
    for (int mb = 0; mb < kMicroBatches; ++mb)
        ops.emplace_back(Forward{mb, {mb * kRows, (mb + 1) * kRows}});
    for (int mb = 0; mb < kMicroBatches; ++mb)
        ops.emplace_back(Backward{mb, {mb * kRows, (mb + 1) * kRows}});
    GradSync split;
    split.params = ParamSet::TpSlice;
    split.layerEnd = kLayers;
    ops.emplace_back(split);
    GradSync replicated;
    replicated.params = ParamSet::Replicated;
    replicated.layerEnd = kLayers;
    replicated.embedding = true;
    replicated.head = true;
    ops.emplace_back(replicated);
    ops.emplace_back(OptimizerStep{});
    program.programs.push_back(std::move(ops));
    return program;
}

const std::vector<emulation::Entry> &entries()
{
    return emulation::log();
}

std::vector<std::size_t> find(Kind kind, const char *name, const void *stream = nullptr)
{
    std::vector<std::size_t> at;
    for (std::size_t i = 0; i < entries().size(); ++i) {
        const emulation::Entry &e = entries()[i];
        if (e.kind == kind && (name == nullptr || e.name == name)
            && (stream == nullptr || e.stream == stream))
            at.push_back(i);
    }
    return at;
}

// Where `event` was last recorded before `before`, if it was.
std::optional<std::size_t> recordOf(const void *event, std::size_t before)
{
    for (std::size_t i = before; i-- > 0;)
        if (entries()[i].kind == Kind::Record && entries()[i].event == event)
            return i;
    return std::nullopt;
}

// The latest record (in the log) among the events `stream` waits for in [from, to).
std::optional<std::size_t> latestAwaited(const void *stream, std::size_t from, std::size_t to)
{
    std::optional<std::size_t> latest;
    for (std::size_t i = from; i < to; ++i) {
        const emulation::Entry &e = entries()[i];
        if (e.kind != Kind::Wait || e.stream != stream)
            continue;
        const auto record = recordOf(e.event, i);
        if (!record)
            return std::nullopt;
        latest = std::max(latest.value_or(0), *record);
    }
    return latest;
}

std::size_t countIn(const std::vector<std::size_t> &at, std::size_t from, std::size_t to)
{
    return std::size_t(
        std::count_if(at.begin(), at.end(), [&](std::size_t i) { return i >= from && i < to; }));
}

template<typename T>
T orFail(Result<T> result)
{
    if (!result)
        qFatal("%s", result.error().message.c_str());
    return std::move(result).value();
}

void orFail(const Status &status)
{
    if (!status)
        qFatal("%s", status.error().message.c_str());
}

// A backend connected to `program`'s groups, the rank's stage on it, and an executor.
struct Rig
{
    explicit Rig(const JobProgram &job, std::size_t bucketElements = Backend::kBucketElements)
        : program(job)
    {
        CommOptions options;
        options.rendezvous = dir.path().toStdString();
        options.timeoutS = 30;
        backend = orFail(CudaBackend::open(options, 0, 1, 0, bucketElements));
        orFail(backend->connect(program));
        const Rank &r = program.ranks.front();
        stage = orFail(createCudaStage(tinyModel(), tinyRun(),
                                       {r.layerBegin, r.layerEnd, 0, 1, r.embedding, r.head},
                                       *backend, backend->computeStream()));
        executor = std::make_unique<Executor>(program, 0, *backend, *stage);
    }

    QTemporaryDir dir;
    JobProgram program;
    std::unique_ptr<CudaBackend> backend;
    std::unique_ptr<StageCompute> stage;
    std::unique_ptr<Executor> executor;
};

} // namespace

class TestCommOverlap : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void gradientBucketsStartDuringTheBackward()
    {
        Rig rig(oneRankProgram(true), 2048);
        emulation::log().clear();
        const auto iteration = rig.executor->runIteration();
        QVERIFY2(iteration, iteration ? "" : iteration.error().message.c_str());
        const void *compute = rig.backend->computeStream();

        // The gradient buckets: on the stream of the iteration's last all-reduce, those of more
        // than one (the handshake's) element.
        const std::vector<std::size_t> allReduces = find(Kind::Nccl, "allReduce");
        QVERIFY(!allReduces.empty());
        const void *gradients = entries()[allReduces.back()].stream;
        QVERIFY(gradients != compute);
        std::vector<std::size_t> buckets;
        for (std::size_t at : find(Kind::Nccl, "allReduce", gradients))
            if (entries()[at].count > 1)
                buckets.push_back(at);
        QVERIFY2(buckets.size() >= 4, "the tiny model's gradients fill several buckets");
        // The TP sums run on another stream: a bucket never queues behind them.
        std::size_t tpSums = 0;
        for (std::size_t at : find(Kind::Nccl, "allReduce"))
            if (entries()[at].stream != gradients) {
                ++tpSums;
                QVERIFY(entries()[at].stream != compute);
            }
        QVERIFY(tpSums > 0);

        const std::vector<std::size_t> norms = find(Kind::Kernel, "rmsNormBackward", compute);
        const std::vector<std::size_t> scatters
            = find(Kind::Kernel, "embeddingScatterAdd", compute);
        const std::vector<std::size_t> adam = find(Kind::Kernel, "adamStep", compute);
        QVERIFY(!norms.empty() && !scatters.empty() && !adam.empty());
        const std::size_t backwardBegin = norms.front();
        // The embedding's gradients are the backward's last: its event is recorded after them.
        std::size_t backwardEnd = scatters.back();
        while (backwardEnd < entries().size()
               && !(entries()[backwardEnd].kind == Kind::Record
                    && entries()[backwardEnd].stream == compute))
            ++backwardEnd;

        // The first bucket reduced (the head's and the last layers' gradients) waits only for
        // work recorded before the first layer's backward of the last micro-batch: its two
        // norms' backward kernels, and the embedding's, come after.
        const auto firstReady = latestAwaited(gradients, backwardBegin, buckets.front());
        QVERIFY2(firstReady, "the gradient stream waits for events recorded on the compute stream");
        QCOMPARE(entries()[*firstReady].stream, compute);
        QVERIFY(countIn(norms, *firstReady, backwardEnd) >= 2);
        QVERIFY(*firstReady < backwardEnd);

        // Buckets go last layers first: inside each gradient sync (they begin with a one-float
        // handshake), each waits for work recorded no earlier than the one before it, and none
        // for more than the backward.
        std::size_t previous = 0;
        std::size_t after = backwardBegin;
        for (std::size_t at : find(Kind::Nccl, "allReduce", gradients)) {
            if (entries()[at].count == 1) {
                previous = 0;
                continue;
            }
            const auto ready = latestAwaited(gradients, after, at);
            after = at;
            if (!ready)
                continue; // waits for nothing new: ordered after the bucket before it
            QVERIFY(*ready >= previous);
            QVERIFY(*ready <= backwardEnd);
            previous = *ready;
        }

        // The host waits for nothing from the first backward kernel (TP sums included) to the
        // last reduction.
        QCOMPARE(countIn(find(Kind::HostWait, nullptr), backwardBegin, buckets.back() + 1),
                 std::size_t(0));

        // The optimizer waits, by events on the compute stream, for every reduced bucket.
        for (std::size_t bucket : buckets) {
            bool awaited = false;
            for (std::size_t at : find(Kind::Wait, nullptr, compute)) {
                const auto record = recordOf(entries()[at].event, at);
                awaited = awaited
                          || (at < adam.front() && record && *record > bucket
                              && entries()[*record].stream == gradients);
            }
            QVERIFY2(awaited, "the optimizer waits for each bucket's reduction");
        }
        // Its time is counted once the iteration's end has been awaited.
        QVERIFY(iteration->first.breakdown.dpCommS > 0);
    }

    void hopSendsHoldNeitherTheHostNorTheCompute()
    {
        JobProgram program = oneRankProgram();
        program.groups = {{"hop/p0/s0-s0/r0-r0", GroupKind::Hop, {0}, std::nullopt}};
        Rig rig(program);
        CudaBackend &backend = *rig.backend;
        const void *compute = backend.computeStream();
        constexpr std::size_t kCount = 96;
        Floats sent = orFail(backend.allocate(kCount));
        for (std::size_t i = 0; i < kCount; ++i)
            sent.data[i] = 1.0f + float(i) / 1024.0f; // not bf16 values
        emulation::log().clear();
        double spentS = 0;
        QVERIFY(backend.exchange({{"hop/p0/s0-s0/r0-r0", 0, sent.data, kCount, 1, true}}, spentS));

        QVERIFY(find(Kind::HostWait, nullptr).empty());
        QVERIFY(find(Kind::Wait, nullptr, compute).empty());
        const std::vector<std::size_t> send = find(Kind::Nccl, "send");
        QCOMPARE(send.size(), std::size_t(1));
        const void *communication = entries()[send.front()].stream;
        QVERIFY(communication != compute);
        // Ordered after the conversion that produced what it sends, by an event.
        const auto ready = latestAwaited(communication, 0, send.front());
        const std::vector<std::size_t> packed = find(Kind::Kernel, "toWire", compute);
        QVERIFY(ready && !packed.empty() && *ready > packed.front());
        // Its time is known once the host waits at the end of the iteration.
        QCOMPARE(spentS, 0.0);
        QVERIFY(backend.synchronize());
        QVERIFY(spentS > 0);

        // A receive's reader (the compute stream) waits for it by an event, the host not at all.
        Floats received = orFail(backend.allocate(kCount));
        emulation::log().clear();
        QVERIFY(backend.exchange({{"hop/p0/s0-s0/r0-r0", 0, sent.data, kCount, 1, true},
                                  {"hop/p0/s0-s0/r0-r0", 0, received.data, kCount, 1, false}},
                                 spentS));
        QVERIFY(find(Kind::HostWait, nullptr).empty());
        const std::vector<std::size_t> recv = find(Kind::Nccl, "recv");
        const std::vector<std::size_t> unpacked = find(Kind::Kernel, "fromWire", compute);
        QVERIFY(!recv.empty() && !unpacked.empty());
        const auto arrived = latestAwaited(compute, recv.back(), unpacked.front());
        QVERIFY2(arrived && *arrived > recv.back(), "the compute stream waits for the receive");
        QVERIFY(backend.synchronize());
        for (std::size_t i = 0; i < kCount; ++i)
            QCOMPARE(received.data[i], cuda::fromBf16(cuda::toBf16(sent.data[i])));
    }

    void overlappingChangesNoNumber()
    {
        Rig many(oneRankProgram(), 500);
        Rig one(oneRankProgram());
        for (int iteration = 0; iteration < 2; ++iteration) {
            const auto a = many.executor->runIteration();
            const auto b = one.executor->runIteration();
            QVERIFY(a && b);
            QCOMPARE(a->second, b->second);
        }
        const std::vector<ParamView> pa = many.stage->parameters();
        const std::vector<ParamView> pb = one.stage->parameters();
        QCOMPARE(pa.size(), pb.size());
        for (std::size_t i = 0; i < pa.size(); ++i) {
            const auto count = std::size_t(pa[i].sliceEnd - pa[i].sliceBegin);
            QVERIFY2(std::equal(pa[i].value, pa[i].value + count, pb[i].value), pa[i].name.c_str());
        }
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestCommOverlap)
#include "tst_comm_overlap.moc"
