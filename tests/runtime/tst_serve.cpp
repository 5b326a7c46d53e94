// runtime/serve: serving a plan's replicas (ranks as threads, Gloo on loopback) generates, for
// every request, the tokens of the single-process reference greedy decode, which recomputes the
// whole prefix with training's layer forward for every token (no KV cache); the logits agree to
// the tolerance derived below. Shapes: one replica of one stage; TP 2 then TP 1; two replicas
// with different stage counts; HexGen's own plan for a bundled cluster at --scale.
//
// Logit tolerance. Both sides compute in fp32 (unit roundoff u = 2⁻²⁴) from the same weights and
// tokens, with the same kernels; they differ only in summation order: the reference's attention
// runs over the whole prefix in 64-row blocks, the served one over the KV cache a run of rows at
// a time, and a TP stage sums the row-parallel o and down products across ranks rather than
// inside one GEMM. Two orders of a dot product of length k differ by at most 2·γ_k·Σ|aᵢbᵢ| with
// γ_k = k·u/(1 − k·u) (Higham, Accuracy and Stability of Numerical Algorithms, §3.1). A logit is
// the end of a chain of at most 6 such products per layer (q/k/v, scores, probabilities·V, o,
// gate/up, down) and the head, each normalised again by the next RMSNorm, so to first order its
// difference is below 2·(6L + 1)·γ_K times the row's largest |logit|, K the longest inner
// dimension (hidden, FFN width or context). Measured: at most a thousandth of that bound (below
// 4e-7 of the row's largest |logit|); leaving out the keys' rotation breaks it by 10² to 10⁴.
#include "core/cost/cost_model.h"
#include "core/planners/planner.h"
#include "core/serving/serving_phases.h"
#include "model_test_support.h"
#include "program_test_support.h"
#include "runtime/model/model_shard.h"
#include "runtime/model/reference_run.h"
#include "runtime/serve/request_stream.h"
#include "serve_test_support.h"
#include "tests/test_registry.h"

#include <QtTest>

#include <algorithm>
#include <array>
#include <cmath>

using namespace hetplan;
using namespace hetplan::runtime;
using namespace hetplan::runtime::test;
using hetplan::test::exampleProblem;
using hetplan::test::fixtureTopology;
using hetplan::test::runPlanner;
using hetplan::test::stage;

namespace {

constexpr std::uint64_t kSeed = 7;

Plan inferPlan(std::vector<Pipeline> pipelines, int promptLen, int outputLen, int batch)
{
    Plan plan;
    plan.workload.mode = Mode::Infer;
    plan.workload.infer.promptLen = promptLen;
    plan.workload.infer.outputLen = outputLen;
    plan.workload.infer.batch = batch;
    plan.pipelines = std::move(pipelines);
    return plan;
}

double logitTolerance(const ModelConfig &c, int contextTokens, std::span<const float> reference)
{
    const double u = std::ldexp(1.0, -24);
    const double k = std::max({c.hidden, c.ffnHidden, contextTokens});
    const double gamma = k * u / (1 - k * u);
    float largest = 0;
    for (float v : reference)
        largest = std::max(largest, std::abs(v));
    return 2 * (6.0 * c.layers + 1) * gamma * largest;
}

// Requests all arriving at once, `perReplica` for each replica.
std::vector<ServingRequest> burst(int replicas, int perReplica, int promptTokens, int outputTokens)
{
    std::vector<ServingRequest> requests;
    for (int i = 0; i < replicas * perReplica; ++i)
        requests.push_back({i, 0.0, promptTokens + i % 3, outputTokens, i % replicas});
    return requests;
}

// Every request completed, with the reference's tokens, and every logit within the tolerance.
void compareWithReference(const ModelConfig &config, const WeightSource &weights,
                          const ServeOptions &options, const std::vector<ServingRequest> &requests,
                          const ServedPlan &served)
{
    QVERIFY2(served.errors.empty(), served.errors.empty() ? "" : served.errors.front().c_str());
    QCOMPARE(served.served.size(), requests.size());
    double worst = 0;
    for (const ServingRequest &r : requests) {
        const ServedRequest &s = served.served[std::size_t(r.id)];
        QVERIFY2(s.completed, qPrintable(QString::fromStdString(s.failure)));
        QCOMPARE(s.outputTokens, r.outputTokens);
        QVERIFY(s.firstTokenS >= s.admittedS && s.finishS >= s.firstTokenS);
        const std::vector<int> prompt = promptOf(options, r, config.vocab);
        const ReferenceDecode reference
            = orFail(referenceGreedyDecode(config, weights, prompt, r.outputTokens));
        QCOMPARE(served.tokens.at(r.id), reference.tokens);
        for (int t = 0; t < r.outputTokens; ++t) {
            const int position = r.promptTokens + t;
            const std::vector<float> &got = served.logits.at({r.id, position});
            const std::vector<float> &want = reference.logits[std::size_t(t)];
            QCOMPARE(got.size(), want.size());
            const double tolerance = logitTolerance(config, position, want);
            for (std::size_t v = 0; v < want.size(); ++v) {
                const double diff = std::abs(double(got[v]) - want[v]);
                worst = std::max(worst, diff / tolerance);
                QVERIFY2(diff <= tolerance,
                         qPrintable(QStringLiteral("request %1 position %2 logit %3: %4 vs %5")
                                        .arg(r.id)
                                        .arg(position)
                                        .arg(v)
                                        .arg(got[v])
                                        .arg(want[v])));
            }
        }
    }
    qInfo("largest logit difference: %.3g of the tolerance", worst);
}

// Serves `plan` on `model` at `scale` with the seeded weights and checks it against the reference.
void serveAndCompare(const Plan &plan, const ModelSpec &model, const Topology &topology, int scale,
                     const std::vector<ServingRequest> &requests)
{
    const JobProgram program = hetplan::test::orFail(
        compileProgram(plan, model, topology, ProgramOptions{.scale = scale, .rank = {}}),
        "compile");
    const InferWorkload &w = plan.workload.infer;
    const ModelConfig config = orFail(scaledModelConfig(model, w.promptLen + w.outputLen, scale));
    const WeightSource weights = seededWeights(config.layers, kSeed);
    ServeOptions options;
    options.promptSeed = kSeed;
    const ServedPlan served = servePlan(program, config, weights,
                                        {w.batch, w.promptLen + w.outputLen}, requests, options);
    compareWithReference(config, weights, options, requests, served);
}

// One replica of one stage of serveModel(), two batch slots of 18 tokens.
JobProgram oneStageProgram()
{
    const Plan plan = inferPlan({{2, 1, {stage({0}, 1, 1, 0, 4)}}}, 12, 6, 2);
    return hetplan::test::orFail(compileProgram(plan, serveModel(), fixtureTopology()), "compile");
}

} // namespace

class TestServe : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { setBlasThreads(1); }

    void oneReplicaOneStage()
    {
        const Plan plan = inferPlan({{2, 1, {stage({0}, 1, 1, 0, 4)}}}, 12, 6, 2);
        serveAndCompare(plan, serveModel(), fixtureTopology(), 1, burst(1, 5, 9, 6));
    }

    void tpTwoThenTpOne()
    {
        const Plan plan
            = inferPlan({{2, 1, {stage({0, 1}, 2, 1, 0, 2), stage({2}, 1, 1, 2, 4)}}}, 12, 6, 2);
        serveAndCompare(plan, serveModel(), fixtureTopology(), 1, burst(1, 4, 9, 6));
    }

    void twoReplicasOfDifferentStageCounts()
    {
        const Plan plan = inferPlan(
            {{2, 1, {stage({0}, 1, 1, 0, 4)}},
             {2, 1, {stage({4, 5}, 2, 1, 0, 1), stage({6}, 1, 1, 1, 3), stage({8}, 1, 1, 3, 4)}}},
            12, 6, 2);
        serveAndCompare(plan, serveModel(), fixtureTopology(), 1, burst(2, 3, 9, 6));
    }

    // HexGen's planner on the case-study cluster for Llama-2 7B serving, run at --scale 32.
    void hexGenPlanAtScale()
    {
        Problem problem = exampleProblem("case-study", "llama2-7b");
        problem.workload = Workload{};
        problem.workload.mode = Mode::Infer;
        problem.workload.infer.promptLen = 256;
        problem.workload.infer.outputLen = 64;
        problem.workload.infer.batch = 2;
        const auto planner = hetplan::test::orFail(makePlanner(PlannerKind::HexGen), "planner");
        const auto cost = makeCostModel(CostModelKind::HetPlan);
        const PlanSearch search
            = hetplan::test::orFail(runPlanner(*planner, problem, *cost), "HexGen plan");
        const int replicas = int(search.plan.pipelines.size());
        qInfo("HexGen: %d replicas", replicas);
        QVERIFY(replicas >= 1);
        // --scale 32 divides the 320 tokens per slot into 10: prompts of 6 to 8, 2 outputs.
        serveAndCompare(search.plan, problem.model, problem.topology, 32, burst(replicas, 1, 6, 2));
    }

    // The KV cache path alone: a prompt prefilled in chunks of 3 tokens, or whole, or one token
    // per step, gives the reference's tokens; and a request too long for the cache is refused
    // while the others are served.
    void prefillChunksAndCapacity()
    {
        const JobProgram program = oneStageProgram();
        const ModelConfig config = orFail(scaledModelConfig(serveModel(), 18, 1));
        const WeightSource weights = seededWeights(config.layers, kSeed);
        std::vector<ServingRequest> requests = burst(1, 3, 10, 6);
        for (int chunk : {1, 3}) {
            ServeOptions options;
            options.promptSeed = kSeed;
            options.prefillChunkTokens = chunk;
            const ServedPlan served
                = servePlan(program, config, weights, {2, 18}, requests, options);
            compareWithReference(config, weights, options, requests, served);
        }
        requests.push_back({3, 0.0, 13, 6, 0}); // 19 tokens in slots of 18
        ServeOptions options;
        options.promptSeed = kSeed;
        const ServedPlan served = servePlan(program, config, weights, {2, 18}, requests, options);
        QCOMPARE(served.served.size(), std::size_t(4));
        QVERIFY(!served.served[3].completed);
        QVERIFY2(served.served[3].failure.find("exceed the KV cache's 18 tokens")
                     != std::string::npos,
                 served.served[3].failure.c_str());
        QVERIFY(served.served[0].completed && served.served[2].completed);
    }

    // Continuous batching: with 2 slots, the third request joins when one of the first two
    // finishes, not after both.
    void finishedSequenceFreesItsSlot()
    {
        const JobProgram program = oneStageProgram();
        const ModelConfig config = orFail(scaledModelConfig(serveModel(), 18, 1));
        const WeightSource weights = seededWeights(config.layers, kSeed);
        // Request 0 wants 2 tokens, request 1 twelve: request 2 must start before 1 ends.
        const std::vector<ServingRequest> requests
            = {{0, 0.0, 4, 2, 0}, {1, 0.0, 4, 12, 0}, {2, 0.0, 4, 2, 0}};
        ServeOptions options;
        options.promptSeed = kSeed;
        const ServedPlan served = servePlan(program, config, weights, {2, 18}, requests, options);
        compareWithReference(config, weights, options, requests, served);
        QVERIFY(served.served[2].admittedS >= served.served[0].finishS);
        QVERIFY(served.served[2].finishS <= served.served[1].finishS);
    }

    // A training run's weights (the reference run's after two SGD steps, as a run's dumps
    // assemble them) serve on TP 2 then TP 1 as the reference decodes them.
    void trainedWeightsServe()
    {
        const Plan plan
            = inferPlan({{2, 1, {stage({0, 1}, 2, 1, 0, 2), stage({2}, 1, 1, 2, 4)}}}, 12, 6, 2);
        const JobProgram program = hetplan::test::orFail(
            compileProgram(plan, serveModel(), fixtureTopology()), "compile");
        const ModelConfig config = orFail(scaledModelConfig(serveModel(), 18, 1));
        TrainingSetup setup;
        setup.seed = kSeed;
        setup.globalBatch = 2;
        setup.optimizer = Optimizer::Sgd;
        setup.adam.learningRate = 0.5f; // steps large enough to change what the model says
        const ReferenceResult trained = orFail(referenceRun(config, setup, 2, 2));
        const WeightSource weights = dumpedWeights(trained.finalWeights);
        const std::vector<ServingRequest> requests = burst(1, 3, 9, 6);
        ServeOptions options;
        options.promptSeed = kSeed;
        const ServedPlan served = servePlan(program, config, weights, {2, 18}, requests, options);
        compareWithReference(config, weights, options, requests, served);
        // The trained weights are not the initial ones: some logit moved.
        const ReferenceDecode initial
            = orFail(referenceGreedyDecode(config, seededWeights(config.layers, kSeed),
                                           promptOf(options, requests[0], config.vocab), 6));
        QVERIFY(served.logits.at({0, requests[0].promptTokens}) != initial.logits[0]);
    }

    // The request stream: the same seed gives the same arrivals on every rank, another seed
    // others; lengths are the workload's divided by --scale; replicas take requests by the plan's
    // traffic split (replica throughput), exactly the requests core's servingRequests gives the
    // simulator; --duration keeps what arrives inside it, and a mean gap near 1/rate over many
    // requests.
    void requestStreamIsSeeded()
    {
        // An A800 replica and an RTX 4090 replica: different throughputs.
        Plan plan = inferPlan({{2, 1, {stage({0}, 1, 1, 0, 4)}}, {2, 1, {stage({4}, 1, 1, 0, 4)}}},
                              256, 64, 2);
        plan.workload.infer.requestRatePerS = 4;
        const Problem problem{fixtureTopology(), serveModel(), plan.workload};
        RequestStreamOptions options;
        options.requests = 2000;
        options.seed = 3;
        options.scale = 32;
        const auto stream = orFail(makeRequests(problem, plan, options));
        QCOMPARE(int(stream.size()), 2000);
        QCOMPARE(orFail(makeRequests(problem, plan, options)).back().arrivalS,
                 stream.back().arrivalS);
        for (std::size_t i = 0; i < stream.size(); ++i) {
            QCOMPARE(stream[i].id, int(i));
            QCOMPARE(stream[i].promptTokens, 8);
            QCOMPARE(stream[i].outputTokens, 2);
            QVERIFY(i == 0 || stream[i].arrivalS > stream[i - 1].arrivalS);
        }
        // 2000 exponential gaps of mean 0.25 s: their mean is within 10 % (≈ 4.5 standard
        // errors) of it.
        QVERIFY(std::abs(stream.back().arrivalS / 2000 - 0.25) < 0.025);
        // The simulator's requests for the same seed: the same replicas, request by request,
        // and the faster replica takes more of them in proportion to its throughput.
        const CostModel costModel;
        const auto simulated = orFail(
            servingRequests(problem, costModel, plan, {3, 4, 2000, 0, 8, 2}, std::string()));
        std::array<int, 2> served{};
        for (std::size_t i = 0; i < stream.size(); ++i) {
            QCOMPARE(stream[i].replica, simulated[i].replica);
            QCOMPARE(stream[i].arrivalS, simulated[i].arrivalS);
            ++served[std::size_t(stream[i].replica)];
        }
        const auto throughput = replicaThroughputPerS(problem, costModel, plan);
        QVERIFY(throughput[0] != throughput[1]);
        QVERIFY(std::abs(served[0] * throughput[1] - served[1] * throughput[0])
                <= throughput[0] + throughput[1]);
        options.seed = 4;
        QVERIFY(orFail(makeRequests(problem, plan, options)).back().arrivalS
                != stream.back().arrivalS);
        options.requests = 0;
        options.durationS = 10;
        const auto window = orFail(makeRequests(problem, plan, options));
        QVERIFY(!window.empty() && window.back().arrivalS <= 10);
        options.durationS = 0;
        QVERIFY(!makeRequests(problem, plan, options));
    }

    // Seeded sampling: a request's tokens depend on the seed and its id, not on the plan's cuts.
    void seededSamplingIsTheSameOnEveryShape()
    {
        const ModelConfig config = orFail(scaledModelConfig(serveModel(), 18, 1));
        const WeightSource weights = seededWeights(config.layers, kSeed);
        const std::vector<ServingRequest> requests = burst(1, 3, 9, 6);
        const auto sampled = [&](const Plan &plan, std::uint64_t seed) {
            const JobProgram program = hetplan::test::orFail(
                compileProgram(plan, serveModel(), fixtureTopology()), "compile");
            ServeOptions options;
            options.promptSeed = kSeed;
            options.sampling = {1.0, seed};
            return servePlan(program, config, weights, {2, 18}, requests, options).tokens;
        };
        const Plan whole = inferPlan({{2, 1, {stage({0}, 1, 1, 0, 4)}}}, 12, 6, 2);
        const Plan cut
            = inferPlan({{2, 1, {stage({0, 1}, 2, 1, 0, 2), stage({2}, 1, 1, 2, 4)}}}, 12, 6, 2);
        const auto first = sampled(whole, 11);
        QCOMPARE(first.size(), requests.size());
        QCOMPARE(sampled(cut, 11), first);
        QVERIFY(sampled(whole, 12) != first);
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestServe)
#include "tst_serve.moc"
