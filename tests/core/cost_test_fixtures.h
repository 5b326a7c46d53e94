#pragma once

// Tiny hand-written clusters and models for the cost-model tests (tst_cost_*.cpp). Numbers
// are round so the tests can write each expected term out by hand.

#include "core/cost/cost_model.h"
#include "core/cost/measurement.h"
#include "core/cost/problem.h"
#include "core/cost/rank_phases.h"
#include "core/io/catalog_json.h"
#include "core/model/cluster.h"
#include "core/plan/plan.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <initializer_list>
#include <string_view>

namespace hetplan::testing {

// "Fast": 100 tflops, 80 GiB, 2000 GB/s; "Slow": 50 tflops, 24 GiB, 1000 GB/s.
inline const GpuCatalog &testCatalog()
{
    static const GpuCatalog catalog = [] {
        constexpr std::string_view text = R"({
          "format": "hetplan.gpu-catalog/1",
          "gpus": [
            {"name": "Fast", "tflops": 100, "memory_GiB": 80, "membw_GBps": 2000,
             "achieved_fraction": 0.5, "price_per_hour_usd": 2.0},
            {"name": "Slow", "tflops": 50, "memory_GiB": 24, "membw_GBps": 1000,
             "achieved_fraction": 0.5, "price_per_hour_usd": 1.0}
          ]})";
        auto parsed = readGpuCatalog(text, "test-catalog.json");
        if (!parsed) {
            std::fprintf(stderr, "test catalog: %s\n", parsed.error().message.c_str());
            std::abort();
        }
        return std::move(parsed).value();
    }();
    return catalog;
}

inline Machine machine(const char *name, const char *gpu, int count, double bandwidthGBps,
                       double latencyUs)
{
    Machine m;
    m.name = name;
    m.gpu = gpu;
    m.count = count;
    m.intra = {LinkKind::Pcie, bandwidthGBps, latencyUs};
    return m;
}

// A: 3 × Fast, 100 GB/s, 1 µs. B: 3 × Slow, 10 GB/s, 5 µs, except B:0–B:2 measured at
// 5 GB/s, 8 µs. A–B: 1 GB/s, 50 µs. Flat GPU indices: A:0..2 = 0..2, B:0..2 = 3..5.
inline Cluster twoMachineCluster(double interGBps = 1.0, double intraBGBps = 10.0)
{
    Cluster c;
    c.name = "two-machines";
    c.machines = {machine("A", "Fast", 3, 100, 1), machine("B", "Slow", 3, intraBGBps, 5)};
    c.links = {{"A", "B", LinkKind::Ethernet, interGBps, 50}};
    c.pairOverrides = {{"B:0", "B:2", 5, 8}};
    return c;
}

// H = 1024, F = 4096 (SwiGLU), 8 heads, 8 layers, vocabulary 1000.
inline ModelSpec smallModel()
{
    ModelSpec m;
    m.name = "small";
    m.layers = 8;
    m.hidden = 1024;
    m.ffnHidden = 4096;
    m.heads = 8;
    m.kvHeads = 8;
    m.vocab = 1000;
    m.maxSeqLen = 4096;
    return m;
}

inline Workload trainWorkload(int globalBatch, int seqLen)
{
    Workload w;
    w.mode = Mode::Train;
    w.train.globalBatch = globalBatch;
    w.train.seqLen = seqLen;
    w.train.precision = Precision::Bf16;
    w.train.recompute = Recompute::Full;
    return w;
}

inline Problem makeProblem(const Cluster &cluster, const ModelSpec &model, const Workload &workload)
{
    auto topology = Topology::build(cluster, testCatalog());
    if (!topology) {
        std::fprintf(stderr, "test cluster: %s\n", topology.error().message.c_str());
        std::abort();
    }
    return Problem{std::move(topology).value(), model, workload};
}

inline Stage stage(std::initializer_list<int> gpus, int tp, int dp, int layerBegin, int layerEnd,
                   std::initializer_list<int> dpSplit = {})
{
    Stage s;
    s.gpus = gpus;
    s.tp = tp;
    s.dp = dp;
    s.layerBegin = layerBegin;
    s.layerEnd = layerEnd;
    s.dpSplit = dpSplit;
    return s;
}

inline Pipeline pipeline(int microBatch, int microBatches, std::initializer_list<Stage> stages)
{
    Pipeline p;
    p.microBatch = microBatch;
    p.microBatches = microBatches;
    p.stages = stages;
    return p;
}

inline StageQuery queryOf(const Stage &s, int microBatch, int stageIndex = 0, int stageCount = 1,
                          int microBatches = 1)
{
    StageQuery q;
    q.gpus = s.gpus;
    q.tp = s.tp;
    q.dp = s.dp;
    q.dpSplit = s.dpSplit;
    q.layerBegin = s.layerBegin;
    q.layerEnd = s.layerEnd;
    q.microBatch = microBatch;
    q.stageIndex = stageIndex;
    q.stageCount = stageCount;
    q.microBatches = microBatches;
    return q;
}

inline bool near(double actual, double expected, double relative = 1e-9)
{
    const double scale = std::max(std::abs(actual), std::abs(expected));
    return std::abs(actual - expected) <= relative * scale;
}

// What a GPU run of `plan` measures if the hetplan model's `evaluation` of it were exact: every
// rank's predicted phases (core/cost/rank_phases.h) as its one iteration, each passed through
// `adjust` first when given, summarized as a run's are.
inline Measurement
measuredAsPredicted(const Plan &plan, const Evaluation &evaluation,
                    const std::function<void(const RankPhases &, Breakdown &)> &adjust = {})
{
    Measurement m;
    m.run.backend = BackendKind::Cuda;
    m.loss = {0};
    for (const RankPhases &r : planRankPhases(plan, evaluation)) {
        MeasuredRank rank;
        rank.rank = r.rank;
        rank.pipeline = r.pipeline;
        rank.stage = r.stage;
        rank.tpIndex = r.tpIndex;
        Breakdown breakdown = r.breakdown;
        if (adjust)
            adjust(r, breakdown);
        rank.iterations = {{r.wallS, breakdown, r.hops}};
        m.ranks.push_back(rank);
    }
    summarizeMeasurement(m);
    return m;
}

} // namespace hetplan::testing
