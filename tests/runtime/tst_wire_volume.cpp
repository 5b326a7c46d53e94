// Bytes on the wire (docs/cost-models.md, "Bytes on the wire"): each rank's program of a plan
// with TP, data parallelism and pipeline hops runs through a backend that sends nothing but
// tallies, per group and element type, what it would put on the wire, with the wire type of the
// GPU backend and of the CPU one. The volume per group must be what the `hetplan` model charges
// for a measured run of that backend (the problem `measuredRun` builds), element size included;
// the gradient buckets must cover every gradient once, each within the bucket size, and train
// the same weights in many small buckets as in one (ranks on threads with Gloo).
#include "core/cost/hetplan_comm.h"
#include "core/cost/problem.h"
#include "core/model/backend_kind.h"
#include "run_test_support.h"
#include "runtime/worker/executor.h"
#include "runtime/worker/gloo_backend.h"
#include "runtime/worker/job.h"
#include "runtime/worker/measured_run.h"
#include "runtime/worker/stage_model.h"
#include "tests/test_registry.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cstdio>
#include <map>
#include <set>
#include <thread>

using namespace hetplan;
using namespace hetplan::runtime;
using namespace hetplan::runtime::test;

namespace {

// A backend that moves nothing: buffers on the host, every collective a no-op. What it would
// have sent is the Backend's tally.
class TallyBackend final : public Backend
{
public:
    TallyBackend(Precision wire, std::size_t bucketElements)
        : Backend(wire, bucketElements)
    {}
    Result<Floats> allocate(std::size_t count) override
    {
        return Floats::hold(std::vector<float>(count, 0.0f));
    }
    Status allReduceHostSum(const std::string &, float *, std::size_t) override
    {
        return okStatus();
    }
    Status synchronize() override { return okStatus(); }
    double peakMemoryGiB() override { return 0; }
    std::size_t largestBucket = 0;

protected:
    Status exchangeAs(const std::vector<Comm::Transfer> &, Precision, double &) override
    {
        return okStatus();
    }
    Status broadcastAs(const std::string &, int, float *, std::size_t, Precision, double &) override
    {
        return okStatus();
    }
    Status allReduceSumAs(const std::string &, float *, std::size_t, Precision, double &) override
    {
        return okStatus();
    }
    Status reduceBucket(const std::string &, const std::vector<FloatPiece> &pieces, float,
                        Precision, double &) override
    {
        std::size_t total = 0;
        for (const FloatPiece &p : pieces)
            total += p.count;
        largestBucket = std::max(largestBucket, total);
        return okStatus();
    }
};

// A group's volume in one iteration, in bytes: its sends (every rank's), and the buffer of its
// collectives as each member saw it.
struct GroupVolume
{
    double bytes = 0;
    std::map<int, double> collectiveByRank;
};

struct JobVolume
{
    std::map<std::string, GroupVolume> groups;
    std::set<Precision> payloadTypes;
    std::size_t largestBucket = 0;
};

Result<JobVolume> runVolume(const Job &job, Precision wire, std::size_t bucketElements)
{
    JobVolume volume;
    const StageRun run{job.plan.workload.train.seqLen, 1, 7, job.program.globalBatch,
                       job.plan.workload.train.optimizer};
    for (const Rank &rank : job.program.ranks) {
        const ShardPlacement placement{rank.layerBegin, rank.layerEnd,  rank.tpIndex,
                                       rank.tpDegree,   rank.embedding, rank.head};
        auto model = StageModel::create(job.model, run, placement);
        if (!model)
            return model.error();
        TallyBackend backend(wire, bucketElements);
        Executor executor(job.program, rank.rank, backend, **model);
        if (auto iteration = executor.runIteration(); !iteration)
            return iteration.error();
        for (const auto &[key, traffic] : backend.tally()) {
            const auto &[group, type] = key;
            volume.payloadTypes.insert(type);
            if (traffic.sentBytes + traffic.collectiveBytes
                != traffic.elements * bytesPerElement(type))
                return Error{ErrorKind::Internal, group + ": bytes are not elements × size"};
            GroupVolume &g = volume.groups[group];
            g.bytes += double(traffic.sentBytes);
            g.collectiveByRank[rank.rank] += double(traffic.collectiveBytes);
        }
        volume.largestBucket = std::max(volume.largestBucket, backend.largestBucket);
    }
    for (auto &[group, g] : volume.groups) {
        // Every member of a collective saw the same buffers.
        const double first = g.collectiveByRank.begin()->second;
        for (const auto &[rank, bytes] : g.collectiveByRank)
            if (bytes != first)
                return Error{ErrorKind::Internal, group + ": members disagree on its volume"};
        g.bytes += first;
    }
    return volume;
}

// The sequences replica `replica` of `stage` computes in one iteration of `pipeline`.
double replicaSequences(const Pipeline &pipeline, const Stage &stage, int replica)
{
    const double share = stage.dpSplit.empty() ? double(pipeline.microBatch) / stage.dp
                                               : double(stage.dpSplit[std::size_t(replica)]);
    return share * pipeline.microBatches;
}

// What the model charges per group key prefix, in bytes, for one iteration: TP groups their
// all-reduces and the broadcast of what each hop into the replica brings; the hops between two
// stages both directions; each layer segment its gradients once (ends included).
std::map<std::string, double> modelVolume(const Problem &problem, const Plan &plan,
                                          const std::vector<std::string> &dpSegments)
{
    const WireBytes wire = wireBytes(problem);
    const Recompute recompute = problem.workload.train.recompute;
    const double allReduces
        = tpAllReducesPerLayer(recompute, false) + tpAllReducesPerLayer(recompute, true);
    std::map<std::string, double> charged;
    for (std::size_t p = 0; p < plan.pipelines.size(); ++p) {
        const Pipeline &pipeline = plan.pipelines[p];
        const std::size_t last = pipeline.stages.size() - 1;
        for (std::size_t s = 0; s < pipeline.stages.size(); ++s) {
            const Stage &stage = pipeline.stages[s];
            const std::string at = "p" + std::to_string(p) + "/s" + std::to_string(s);
            if (s < last) {
                const double sequences = double(pipeline.microBatch) * pipeline.microBatches;
                charged["hop/" + at + "-s" + std::to_string(s + 1)]
                    = 2 * sequences * wire.perSequence;
            }
            if (stage.tp < 2)
                continue;
            for (int r = 0; r < stage.dp; ++r) {
                const double sequences = replicaSequences(pipeline, stage, r);
                const int hopsIn = (s > 0 ? 1 : 0) + (s < last ? 1 : 0);
                charged["tp/" + at + "/r" + std::to_string(r)]
                    = sequences * wire.perSequence * (allReduces * stage.layerCount() + hopsIn);
            }
        }
    }
    const ModelSpec &model = problem.model;
    for (const std::string &segment : dpSegments) {
        int begin = 0;
        int last = 0; // "dp/l3-8": layers 3 to 8
        std::sscanf(segment.c_str(), "dp/l%d-%d", &begin, &last);
        const int end = last + 1;
        double params = (end - begin) * model.paramsPerLayer();
        if (begin == 0)
            params += model.embeddingParams();
        if (end == model.layers)
            params += model.headParams();
        charged[segment] = params * wire.element;
    }
    return charged;
}

// The runtime's volume under the same keys: hop groups by stage pair, dp groups by segment.
std::map<std::string, double> byPrefix(const JobVolume &volume,
                                       const std::map<std::string, double> &charged)
{
    std::map<std::string, double> sent;
    for (const auto &[group, g] : volume.groups) {
        std::string key = group;
        for (const auto &[prefix, bytes] : charged)
            if (group.rfind(prefix + "/", 0) == 0)
                key = prefix;
        sent[key] += g.bytes;
    }
    return sent;
}

// Every rank's parameters after one iteration of `job` on the CPU backend, ranks on threads
// talking Gloo over loopback, gradient sync in buckets of `bucketElements`.
Result<std::vector<std::vector<float>>> trainedOnThreads(const Job &job, std::size_t bucketElements,
                                                         const std::string &rendezvous)
{
    const int world = int(job.program.ranks.size());
    std::vector<std::vector<float>> weights(static_cast<std::size_t>(world));
    std::vector<Status> results(std::size_t(world), okStatus());
    const auto rankBody = [&](int r) -> Status {
        const Rank &rank = job.program.ranks[std::size_t(r)];
        const StageRun run{job.plan.workload.train.seqLen, 1, 7, job.program.globalBatch,
                           job.plan.workload.train.optimizer};
        const ShardPlacement placement{rank.layerBegin, rank.layerEnd,  rank.tpIndex,
                                       rank.tpDegree,   rank.embedding, rank.head};
        auto model = StageModel::create(job.model, run, placement);
        if (!model)
            return model.error();
        CommOptions options;
        options.rendezvous = rendezvous;
        options.timeoutS = 60;
        auto comm = Comm::open(options, r, world);
        if (!comm)
            return comm.error();
        if (Status s = (*comm)->connect(Executor::groupsToConnect(job.program)); !s)
            return s;
        GlooBackend backend(**comm, bucketElements);
        Executor executor(job.program, r, backend, **model);
        if (auto iteration = executor.runIteration(); !iteration)
            return iteration.error();
        for (const ParamView &p : (*model)->parameters())
            weights[std::size_t(r)].insert(weights[std::size_t(r)].end(), p.value,
                                           p.value + (p.sliceEnd - p.sliceBegin));
        return okStatus();
    };
    std::vector<std::thread> threads;
    for (int r = 0; r < world; ++r)
        threads.emplace_back([&, r] { results[std::size_t(r)] = rankBody(r); });
    for (std::thread &t : threads)
        t.join();
    for (const Status &s : results)
        if (!s)
            return s.error();
    return weights;
}

std::vector<std::string> dpSegments(const JobVolume &volume)
{
    std::set<std::string> segments;
    for (const auto &[group, g] : volume.groups)
        if (group.rfind("dp/", 0) == 0)
            segments.insert(group.substr(0, group.find('/', 3)));
    return {segments.begin(), segments.end()};
}

} // namespace

class TestWireVolume : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void volumePerGroupIsWhatTheModelCharges_data()
    {
        QTest::addColumn<QString>("plan");
        QTest::addColumn<int>("backend");
        for (const char *plan :
             {"asymmetric.plan.json", "uneven-dp.plan.json", "tp2-tp1.plan.json"})
            for (BackendKind kind : {BackendKind::Cuda, BackendKind::Gloo})
                QTest::addRow("%s %s", plan,
                              std::string(backendName(kind, BackendSpelling::Option)).c_str())
                    << QString::fromUtf8(plan) << int(kind);
    }

    void volumePerGroupIsWhatTheModelCharges()
    {
        QFETCH(QString, plan);
        QFETCH(int, backend);
        const BackendKind kind = BackendKind(backend);
        JobSource source;
        source.planPath = runtimeData(plan.toUtf8().constData()).toStdString();
        source.model = runtimeData("tiny.model.json").toStdString();
        auto job = loadJob(source);
        QVERIFY2(job, job ? "" : job.error().message.c_str());

        // Small buckets, so that gradient sync cuts pieces across buckets.
        constexpr std::size_t kBucket = 1000;
        auto volume = runVolume(*job, wirePrecision(kind), kBucket);
        QVERIFY2(volume, volume ? "" : volume.error().message.c_str());
        QCOMPARE(volume->payloadTypes, std::set<Precision>{wirePrecision(kind)});
        QVERIFY(volume->largestBucket <= kBucket);

        // The model's problem for a measured run of this backend.
        Measurement measured;
        measured.run.backend = kind;
        measured.run.model = job->model.name;
        measured.run.seqLen = job->plan.workload.train.seqLen;
        measured.run.globalBatch = job->program.globalBatch;
        auto calibration = measuredRun(job->plan, job->model, measured, "the tally");
        QVERIFY2(calibration, calibration ? "" : calibration.error().message.c_str());
        const Problem problem{*job->topology, calibration->model, calibration->workload};
        QCOMPARE(wireBytes(problem).element, double(bytesPerElement(wirePrecision(kind))));

        const auto charged = modelVolume(problem, job->plan, dpSegments(*volume));
        const auto sent = byPrefix(*volume, charged);
        for (const auto &[group, bytes] : sent) {
            const auto it = charged.find(group);
            QVERIFY2(it != charged.end(), ("the model charges nothing for " + group).c_str());
            QVERIFY2(bytes == it->second,
                     (group + ": the runtime sends " + std::to_string(bytes)
                      + " bytes, the model charges " + std::to_string(it->second))
                         .c_str());
        }
        for (const auto &[group, bytes] : charged)
            QVERIFY2(sent.contains(group), ("the runtime sends nothing for " + group).c_str());
    }

    // Gradient sync in many small buckets trains the same weights as in one bucket.
    void smallBucketsTrainLikeOneBucket()
    {
        JobSource source;
        source.planPath = runtimeData("asymmetric.plan.json").toStdString();
        source.model = runtimeData("tiny.model.json").toStdString();
        auto job = loadJob(source);
        QVERIFY2(job, job ? "" : job.error().message.c_str());
        setRankBlasThreads(1);
        QTemporaryDir one;
        QTemporaryDir many;
        auto whole = trainedOnThreads(*job, Backend::kBucketElements, one.path().toStdString());
        QVERIFY2(whole, whole ? "" : whole.error().message.c_str());
        auto bucketed = trainedOnThreads(*job, 97, many.path().toStdString());
        QVERIFY2(bucketed, bucketed ? "" : bucketed.error().message.c_str());
        QCOMPARE(bucketed->size(), whole->size());
        for (std::size_t r = 0; r < whole->size(); ++r) {
            const std::vector<float> &a = (*whole)[r];
            const std::vector<float> &b = (*bucketed)[r];
            QCOMPARE(b.size(), a.size());
            for (std::size_t i = 0; i < a.size(); ++i)
                // Gloo may add three or more members' values in another order per bucket.
                QVERIFY2(std::abs(a[i] - b[i]) <= 1e-6f * (1.0f + std::abs(a[i])),
                         ("rank " + std::to_string(r) + " weight " + std::to_string(i)).c_str());
        }
    }

    void bucketsCoverEveryPieceOnceInOrder()
    {
        std::vector<float> grads(2600);
        const std::vector<FloatPiece> pieces
            = {{grads.data(), 700}, {grads.data() + 700, 1500}, {grads.data() + 2200, 400}};
        const auto buckets = gradientBuckets(pieces, 1000);
        QCOMPARE(buckets.size(), std::size_t(3));
        const float *next = grads.data();
        for (const auto &bucket : buckets) {
            std::size_t total = 0;
            for (const FloatPiece &piece : bucket) {
                QCOMPARE(piece.data, next);
                next += piece.count;
                total += piece.count;
            }
            QVERIFY(total <= 1000);
        }
        QCOMPARE(next, grads.data() + grads.size());
        QVERIFY(gradientBuckets({}, 1000).empty());
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestWireVolume)
#include "tst_wire_volume.moc"
