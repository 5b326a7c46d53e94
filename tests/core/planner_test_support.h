#pragma once

// Fixtures the planner tests share: bundled examples as problems, and a planner run to the end.

#include "core/base/result.h"
#include "core/cost/cost_model.h"
#include "core/cost/problem.h"
#include "core/io/catalog_json.h"
#include "core/io/formats.h"
#include "core/io/loaders.h"
#include "core/planners/planner.h"

#include <QtTest>

#include <set>
#include <stop_token>
#include <string>
#include <utility>

namespace hetplan::test {

// The value, or the test stops with what failed and why.
template<typename T>
T orFail(Result<T> result, const char *what)
{
    if (!result)
        qFatal("%s: %s", what, result.error().message.c_str());
    return std::move(result).value();
}

// The unordered GPU-name pairs the plan's pipeline hops cross.
inline std::set<std::pair<std::string, std::string>> hopPairs(const Plan &plan,
                                                              const Topology &topology)
{
    std::set<std::pair<std::string, std::string>> pairs;
    for (const Pipeline &pipeline : plan.pipelines)
        for (std::size_t s = 0; s + 1 < pipeline.stages.size(); ++s)
            for (int a : pipeline.stages[s].gpus)
                for (int b : pipeline.stages[s + 1].gpus) {
                    std::string x = topology.gpu(a).name;
                    std::string y = topology.gpu(b).name;
                    pairs.insert(x < y ? std::pair{x, y} : std::pair{y, x});
                }
    return pairs;
}

// A bundled cluster with its bundled workload (defaults when it has none) and a catalog model.
inline Problem exampleProblem(const char *cluster, const char *model)
{
    const Cluster c = orFail(loadCluster(cluster), cluster);
    Workload workload;
    if (const auto example = findExample(cluster, ExampleKind::Workload))
        workload = orFail(parseWorkload(example->text, example->path), "workload");
    return {orFail(Topology::build(c, builtinGpuCatalog()), cluster),
            orFail(loadModel(model), model), workload};
}

// Holmes's setting (Holmes §5): the bundled IB + RoCE cluster with GPT-3 7.5B, global batch 1536.
inline Problem holmesHybridProblem()
{
    Workload workload;
    workload.train.globalBatch = 1536;
    workload.train.microBatchSizes = {1};
    workload.train.seqLen = 2048;
    const Cluster cluster = orFail(loadCluster("holmes-hybrid"), "holmes-hybrid");
    return {orFail(Topology::build(cluster, builtinGpuCatalog()), "holmes-hybrid"),
            orFail(loadModel("gpt3-7.5b"), "gpt3-7.5b"), workload};
}

inline Result<PlanSearch> runPlanner(const Planner &planner, const Problem &problem,
                                     const CostModel &costModel, PlannerOptions options = {},
                                     std::stop_token stop = {})
{
    NullProgress progress;
    return planner.plan(problem, costModel, options, std::move(stop), progress);
}

} // namespace hetplan::test
