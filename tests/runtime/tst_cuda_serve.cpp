// CudaServeShard (runtime/cuda/model/cuda_serve_shard.h) against the CPU reference greedy decode
// (runtime/serve/reference_decode.h), which recomputes the whole prefix in fp32 for every token
// (label gpu; also in cuda-model-emulated on the host emulation). Shapes: one stage; two TP
// ranks in-process; two pipeline stages; and the serving engine over Gloo on GPU shards (two
// replicas, TP 2 then TP 1, continuous batching, chunked prefill). Every generated token sequence
// equals the reference's, the logits agree to the tolerance below, and decoding with the KV
// cache gives the logits of recomputing the whole prefix.
//
// Logit tolerance. The GPU model is bf16 by design (cuda_shard.h): every GEMM operand is rounded
// to bf16 (unit roundoff u = 2⁻⁹) and summed in fp32, so the served logits differ from the fp32
// reference by the operands' rounding, not by summation order (2⁻²⁴, three orders smaller). A
// logit is the end of a chain of at most 7 rounded operands per layer (the normed input of
// q/k/v, the rotated q and k, v, the attention output, the normed input of gate/up, the MLP
// activation) and 2 at the head (the normed row and the head's weights, as every weight), each
// a relative perturbation ≤ u that the next RMSNorm renormalises, so to first order a logit moves
// by at most (7L + 2 + 7L) · u of the row's largest |logit| (the second 7L: the weights of those
// GEMMs). Measured on the emulation: about a twenty-fifth of that bound (0.0046).
// Greedy tokens can only differ where the reference's two best logits are closer than twice the
// logits' difference; the test checks that every reference step clears that margin with the
// measured difference, so the token comparison is a consequence of the logits', not luck.
#include "cuda_model_test_support.h"
#include "gpu_test_support.h"
#include "program_test_support.h"
#include "runtime/cuda/model/cuda_serve_shard.h"
#include "runtime/cuda/model/in_process_tp.h"
#include "runtime/model/model_init.h"
#include "runtime/serve/reference_decode.h"
#include "runtime/serve/sampling.h"
#include "runtime/serve/weight_source.h"
#include "serve_test_support.h"
#include "tests/test_registry.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <thread>

using namespace hetplan;
using namespace hetplan::runtime;
using namespace hetplan::runtime::cuda;
using namespace hetplan::runtime::cuda::test;

namespace {

constexpr std::uint64_t kSeed = 7;
constexpr int kOutputTokens = 6;

// tst_serve's model (model_test_support.h), 32 positions per sequence.
ModelConfig serveConfig(MlpKind mlp = MlpKind::SwiGlu)
{
    return orFail(scaledModelConfig(runtime::test::serveModel(mlp), 32, 1));
}

double logitTolerance(const ModelConfig &c, std::span<const float> reference)
{
    const double u = std::ldexp(1.0, -9);
    float largest = 0;
    for (float v : reference)
        largest = std::max(largest, std::abs(v));
    return (14.0 * c.layers + 2) * u * largest;
}

// The reference's best logit minus its second best.
double margin(std::span<const float> logits)
{
    float best = -INFINITY;
    float second = -INFINITY;
    for (const float v : logits) {
        second = std::max(second, std::min(best, v));
        best = std::max(best, v);
    }
    return double(best) - second;
}

// A prompt and the reference's greedy decode of it.
struct Case
{
    int id = 0; // the request id whose model_init tokens are the prompt
    std::vector<int> prompt;
    ReferenceDecode reference;
};

// The reference picks every token of a case by at least this share of the row's largest
// |logit| over the second best: thirteen times the difference measured on the emulation, so the
// served tokens must equal the reference's wherever the logits hold (a near tie would make the
// comparison luck on any machine).
constexpr double kMarginShare = 0.06;

// `count` prompts of 4, 5, 6, 4, … tokens (model_init's tokens of the first request ids whose
// reference decode clears kMarginShare at every token).
std::vector<Case> cases(const ModelConfig &c, std::size_t count = 3)
{
    std::vector<Case> found;
    for (int id = 0; found.size() < count && id < 400; ++id) {
        Case candidate;
        candidate.id = id;
        for (int p = 0; p < 4 + int(found.size() % 3); ++p)
            candidate.prompt.push_back(syntheticToken(kSeed, id, p, c.vocab));
        candidate.reference = orFail(referenceGreedyDecode(c, seededWeights(c.layers, kSeed),
                                                           candidate.prompt, kOutputTokens));
        const bool clear
            = std::all_of(candidate.reference.logits.begin(), candidate.reference.logits.end(),
                          [](const std::vector<float> &row) {
                              float largest = 0;
                              for (const float v : row)
                                  largest = std::max(largest, std::abs(v));
                              return margin(row) > kMarginShare * largest;
                          });
        if (clear)
            found.push_back(std::move(candidate));
    }
    if (found.size() < count)
        qFatal("too few prompts whose reference decode has clear margins");
    return found;
}

std::vector<std::vector<int>> prompts(const std::vector<Case> &cs)
{
    std::vector<std::vector<int>> result;
    for (const Case &c : cs)
        result.push_back(c.prompt);
    return result;
}

// A replica's shards: stages × TP ranks, each rank with its own stream, the ranks of a stage
// computing in threads of their own (InProcessTpGroup).
class Replica
{
public:
    Replica(const ModelConfig &config, int stages, int tpDegree, WeightSource weights = {})
        : m_tpDegree(tpDegree)
        , m_streams(std::size_t(stages) * std::size_t(tpDegree))
    {
        const int layersPerStage = config.layers / stages;
        for (int s = 0; s < stages; ++s) {
            m_groups.push_back(std::make_unique<InProcessTpGroup>(tpDegree));
            for (int t = 0; t < tpDegree; ++t) {
                const cudaStream_t stream = m_streams[m_shards.size()];
                const ShardSpec spec{
                    s * layersPerStage, (s + 1) * layersPerStage, t, tpDegree, s == 0,
                    s == stages - 1};
                CudaServeOptions options;
                options.slots = 3;
                options.capacityTokens = 16;
                options.seed = kSeed;
                options.weights = weights;
                m_shards.push_back(orFail(CudaServeShard::create(config, spec, options, stream,
                                                                 m_groups.back()->rank(t))));
            }
        }
    }
    // One step through every stage; the head's logits of `logitRows`.
    std::vector<float> step(const std::vector<TokenRow> &rows, const std::vector<int> &logitRows)
    {
        std::vector<float> carried;
        for (std::size_t s = 0; s < m_groups.size(); ++s) {
            std::vector<std::vector<float>> outputs(static_cast<std::size_t>(m_tpDegree));
            std::vector<Status> results(static_cast<std::size_t>(m_tpDegree), okStatus());
            {
                std::vector<std::jthread> ranks;
                for (int t = 0; t < m_tpDegree; ++t)
                    ranks.emplace_back([&, t] {
                        CudaServeShard &shard = *m_shards[s * std::size_t(m_tpDegree) + t];
                        results[std::size_t(t)]
                            = shard.forward(rows, carried, logitRows, outputs[std::size_t(t)]);
                    });
            }
            for (const Status &r : results)
                if (!r)
                    qFatal("%s", r.error().message.c_str());
            for (int t = 1; t < m_tpDegree; ++t)
                if (outputs[std::size_t(t)] != outputs[0])
                    qFatal("TP rank %d's output differs from rank 0's", t);
            carried = std::move(outputs[0]);
        }
        return carried;
    }

private:
    int m_tpDegree;
    std::vector<std::unique_ptr<InProcessTpGroup>> m_groups;
    RankStreams m_streams; // outlives the shards
    std::vector<std::unique_ptr<CudaServeShard>> m_shards;
};

struct Decoded
{
    std::vector<std::vector<int>> tokens;                // per request
    std::vector<std::vector<std::vector<float>>> logits; // per request, per generated token
};

// Greedy decoding of every prompt at once, one slot each: the prompts in one prefill step, then
// one decoded token per request and step.
Decoded serveGreedy(Replica &replica, const ModelConfig &config,
                    const std::vector<std::vector<int>> &prompts)
{
    const auto vocab = std::size_t(config.vocab);
    Decoded d;
    d.tokens.resize(prompts.size());
    d.logits.resize(prompts.size());
    for (int g = 0; g < kOutputTokens; ++g) {
        std::vector<TokenRow> rows;
        std::vector<int> logitRows;
        for (std::size_t r = 0; r < prompts.size(); ++r) {
            const int promptTokens = int(prompts[r].size());
            if (g == 0)
                for (int p = 0; p < promptTokens; ++p)
                    rows.push_back({int(r), p, prompts[r][std::size_t(p)]});
            else
                rows.push_back({int(r), promptTokens + g - 1, d.tokens[r].back()});
            logitRows.push_back(int(rows.size()) - 1);
        }
        const std::vector<float> logits = replica.step(rows, logitRows);
        for (std::size_t r = 0; r < prompts.size(); ++r) {
            const std::span<const float> row(logits.data() + r * vocab, vocab);
            d.logits[r].emplace_back(row.begin(), row.end());
            d.tokens[r].push_back(greedyToken(row));
        }
    }
    return d;
}

void compareWithReference(const ModelConfig &config, const std::vector<Case> &inputs,
                          const Decoded &served)
{
    double worst = 0;
    for (std::size_t r = 0; r < inputs.size(); ++r) {
        const ReferenceDecode &reference = inputs[r].reference;
        for (std::size_t g = 0; g < reference.logits.size(); ++g) {
            const std::vector<float> &expected = reference.logits[g];
            const std::vector<float> &actual = served.logits[r][g];
            QCOMPARE(actual.size(), expected.size());
            float largest = 0;
            double diff = 0;
            for (std::size_t i = 0; i < expected.size(); ++i) {
                largest = std::max(largest, std::abs(expected[i]));
                diff = std::max(diff, std::abs(double(actual[i]) - expected[i]));
            }
            worst = std::max(worst, diff / largest);
            const double tolerance = logitTolerance(config, expected);
            QVERIFY2(diff <= tolerance, qPrintable(QStringLiteral("request %1, token %2: a logit "
                                                                  "%3 off, above %4")
                                                       .arg(r)
                                                       .arg(g)
                                                       .arg(diff)
                                                       .arg(tolerance)));
            // The tokens below agree by arithmetic, not luck: the reference's best logit clears
            // the second by more than twice what any logit moved.
            QVERIFY2(margin(expected) > 2 * diff,
                     qPrintable(QStringLiteral("request %1, token %2: the reference's margin %3 "
                                               "is within twice the logits' difference %4")
                                    .arg(r)
                                    .arg(g)
                                    .arg(margin(expected))
                                    .arg(diff)));
        }
        QCOMPARE(served.tokens[r], reference.tokens);
    }
    qInfo("largest logit difference: %.3g of the row's largest |logit|", worst);
}

} // namespace

class TestCudaServe : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        HETPLAN_REQUIRE_GPU();
        setBlasThreads(1);
    }

    void oneStageMatchesTheReference_data()
    {
        QTest::addColumn<MlpKind>("mlp");
        QTest::newRow("swiglu") << MlpKind::SwiGlu;
        QTest::newRow("gelu") << MlpKind::Gelu;
    }

    void oneStageMatchesTheReference()
    {
        QFETCH(MlpKind, mlp);
        const ModelConfig config = serveConfig(mlp);
        const std::vector<Case> inputs = cases(config);
        Replica replica(config, 1, 1);
        compareWithReference(config, inputs, serveGreedy(replica, config, prompts(inputs)));
    }

    void tpHalvesMatchTheReference()
    {
        const ModelConfig config = serveConfig();
        const std::vector<Case> inputs = cases(config);
        Replica replica(config, 1, 2);
        compareWithReference(config, inputs, serveGreedy(replica, config, prompts(inputs)));
    }

    void twoStagesMatchTheReference()
    {
        const ModelConfig config = serveConfig();
        const std::vector<Case> inputs = cases(config);
        Replica replica(config, 2, 1);
        compareWithReference(config, inputs, serveGreedy(replica, config, prompts(inputs)));
    }

    // The serving engine (runtime/serve/serve_engine.h) over Gloo on GPU shards, as hetplan-worker
    // --backend cuda runs it: two replicas, one of a TP-2 stage then a TP-1 stage, one of a
    // single stage; two batch slots each, so requests join mid-decode and reuse freed slots;
    // prompts prefilled in chunks of 3 tokens.
    void theEngineServesAPlanOnGpuShards()
    {
        const ModelConfig config = serveConfig();
        const ModelSpec model = runtime::test::serveModel();
        Plan plan;
        plan.workload.mode = Mode::Infer;
        plan.workload.infer = {};
        plan.workload.infer.promptLen = 10;
        plan.workload.infer.outputLen = kOutputTokens;
        plan.workload.infer.batch = 2;
        plan.pipelines
            = {{2,
                1,
                {hetplan::test::stage({0, 1}, 2, 1, 0, 2), hetplan::test::stage({2}, 1, 1, 2, 4)}},
               {2, 1, {hetplan::test::stage({4}, 1, 1, 0, 4)}}};
        const JobProgram program = hetplan::test::orFail(
            compileProgram(plan, model, hetplan::test::fixtureTopology()), "compile");
        const std::vector<Case> inputs = cases(config, 6);
        std::vector<ServingRequest> requests;
        for (std::size_t i = 0; i < inputs.size(); ++i)
            requests.push_back(
                {inputs[i].id, 0.0, int(inputs[i].prompt.size()), kOutputTokens, int(i % 2)});
        // One in-process TP group per stage, one stream per rank.
        std::map<int, std::unique_ptr<InProcessTpGroup>> groups;
        for (const Rank &r : program.ranks)
            if (!groups.contains(r.tpGroup))
                groups[r.tpGroup] = std::make_unique<InProcessTpGroup>(r.tpDegree);
        const RankStreams streams(program.ranks.size());
        const runtime::test::StageMaker onGpu
            = [&](int rank, const ShardSpec &spec) -> Result<std::unique_ptr<ServeStage>> {
            CudaServeOptions options;
            options.slots = plan.workload.infer.batch;
            options.capacityTokens = plan.workload.infer.promptLen + kOutputTokens;
            options.seed = kSeed;
            const int group = program.ranks[std::size_t(rank)].tpGroup;
            auto shard = CudaServeShard::create(config, spec, options, streams[std::size_t(rank)],
                                                groups.at(group)->rank(spec.tpIndex));
            if (!shard)
                return shard.error();
            return std::unique_ptr<ServeStage>(std::move(shard).value());
        };
        ServeOptions options;
        options.promptSeed = kSeed;
        options.prefillChunkTokens = 3;
        const runtime::test::ServedPlan served
            = runtime::test::servePlan(program, config, {}, {}, requests, options, onGpu);
        QVERIFY2(served.errors.empty(), served.errors.empty() ? "" : served.errors.front().c_str());
        QCOMPARE(served.served.size(), requests.size());
        Decoded decoded;
        for (const Case &c : inputs) {
            const auto s = std::find_if(served.served.begin(), served.served.end(),
                                        [&](const ServedRequest &r) { return r.id == c.id; });
            QVERIFY(s != served.served.end());
            QVERIFY2(s->completed, s->failure.c_str());
            decoded.tokens.push_back(served.tokens.at(c.id));
            decoded.logits.emplace_back();
            for (int g = 0; g < kOutputTokens; ++g)
                decoded.logits.back().push_back(served.logits.at({c.id, int(c.prompt.size()) + g}));
        }
        compareWithReference(config, inputs, decoded);
    }

    // The KV cache is the workload's size from the start (layers × slots × positions × KV width,
    // keys and values, bf16) and, like the weights (2 bytes per parameter, 4 for the embedding
    // and the norms), never grows while serving.
    void memoryIsTheWeightsAndTheCacheOnly()
    {
        const ModelConfig config = serveConfig();
        const RankStreams streams(1);
        SoloDeviceTpComm solo;
        CudaServeOptions options;
        options.slots = 3;
        options.capacityTokens = 16;
        options.seed = kSeed;
        auto shard
            = orFail(CudaServeShard::create(config, wholeModel(config), options, streams[0], solo));
        const ServeMemoryTable before = shard->memoryTable();
        QCOMPARE(before.kvCacheBytes, std::size_t(2) * config.layers * 3 * 16 * config.kvDim() * 2);
        std::size_t bf16Bytes = 0;
        std::size_t floatBytes = 0;
        for (const TensorLayout &t : shardTensors(config, wholeModel(config))) {
            bf16Bytes += std::size_t(t.elements()) * 2;
            if (t.kind != ParamKind::Head && t.layer < 0)
                floatBytes += std::size_t(t.elements()) * 4;
            else if (t.kind == ParamKind::AttnNorm || t.kind == ParamKind::MlpNorm)
                floatBytes += std::size_t(t.elements()) * 4;
        }
        // BufferPlan aligns each piece to 256 bytes.
        const std::size_t pieces = 2 * shardTensors(config, wholeModel(config)).size();
        QVERIFY2(before.weightBytes >= bf16Bytes + floatBytes
                     && before.weightBytes <= bf16Bytes + floatBytes + 256 * pieces,
                 qPrintable(QStringLiteral("%1 bytes of weights for %2 + %3")
                                .arg(before.weightBytes)
                                .arg(bf16Bytes)
                                .arg(floatBytes)));
        const std::vector<TokenRow> rows{{0, 0, 5}, {0, 1, 6}, {2, 0, 7}};
        const std::vector<int> logitRows{1, 2};
        std::vector<float> out;
        const Status step = shard->forward(rows, {}, logitRows, out);
        QVERIFY2(step, step ? "" : step.error().message.c_str());
        QCOMPARE(out.size(), std::size_t(2 * config.vocab));
        const ServeMemoryTable after = shard->memoryTable();
        QCOMPARE(after.kvCacheBytes, before.kvCacheBytes);
        QCOMPARE(after.weightBytes, before.weightBytes);
    }

    // Host-made weights (the path of a training run's dumps) are the device-made ones.
    void uploadedWeightsServeTheSame()
    {
        const ModelConfig config = serveConfig();
        Replica made(config, 1, 1);
        Replica uploaded(config, 1, 1, seededWeights(config.layers, kSeed));
        const std::vector<std::vector<int>> inputs = prompts(cases(config));
        const Decoded a = serveGreedy(made, config, inputs);
        const Decoded b = serveGreedy(uploaded, config, inputs);
        QCOMPARE(b.tokens, a.tokens);
        QCOMPARE(b.logits, a.logits);
    }

    // Each decoded token's logits equal those of a fresh replica given the whole prefix as one
    // prefill: the cache holds what recomputing would make.
    void decodingWithTheCacheEqualsRecomputing()
    {
        const ModelConfig config = serveConfig();
        const std::vector<std::vector<int>> inputs = prompts(cases(config));
        Replica cached(config, 2, 1);
        const Decoded served = serveGreedy(cached, config, inputs);
        for (std::size_t r = 0; r < inputs.size(); ++r) {
            std::vector<int> sequence = inputs[r];
            for (int g = 0; g < kOutputTokens; ++g) {
                Replica fresh(config, 2, 1);
                std::vector<TokenRow> rows;
                for (std::size_t p = 0; p < sequence.size(); ++p)
                    rows.push_back({1, int(p), sequence[p]});
                const std::vector<float> logits = fresh.step(rows, {int(rows.size()) - 1});
                const std::vector<float> &decoded = served.logits[r][std::size_t(g)];
                // The same rows through the same kernels, so on the emulation the same bits. On
                // a GPU a GEMM may pick another algorithm for another row count: a sum in
                // another order can flip the bf16 rounding of an operand, which moves a logit
                // by no more than the operands' rounding does (logitTolerance).
                double diff = 0;
                for (std::size_t i = 0; i < logits.size(); ++i)
                    diff = std::max(diff, std::abs(double(decoded[i]) - logits[i]));
                QVERIFY2(diff <= logitTolerance(config, logits),
                         qPrintable(QStringLiteral("request %1, token %2: a logit %3 off")
                                        .arg(r)
                                        .arg(g)
                                        .arg(diff)));
                sequence.push_back(served.tokens[r][std::size_t(g)]);
            }
        }
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestCudaServe)
#include "tst_cuda_serve.moc"
