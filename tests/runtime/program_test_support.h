#pragma once

// Fixtures the program tests share: a small four-machine cluster, a small model, plans built
// by hand, and assertions computed from the programs independently of checkProgram.

#include "core/io/catalog_json.h"
#include "core/model/topology.h"
#include "core/plan/plan.h"
#include "runtime/program/check.h"
#include "runtime/program/compile.h"
#include "tests/core/planner_test_support.h"

#include <QtTest>

#include <map>
#include <numeric>
#include <string>
#include <vector>

namespace hetplan::test {

// GPU indices: A:0..3 = 0..3 (A800, NVLink), B = 4..7 (RTX 4090), C = 8..11 and D = 12..15
// (RTX 3090); every machine hangs off one Ethernet switch.
inline Topology fixtureTopology()
{
    Cluster cluster;
    cluster.name = "program-fixture";
    cluster.machines = {
        {"A", "A800-80G", 4, "host-a", {LinkKind::NvLink, 200, 5}, NicKind::Ethernet, {}},
        {"B", "RTX4090-24G", 4, "host-b", {LinkKind::Pcie, 32, 10}, NicKind::Ethernet, {}},
        {"C", "RTX3090-24G", 4, "", {LinkKind::Pcie, 16, 10}, NicKind::Ethernet, {}},
        {"D", "RTX3090-24G", 4, "", {LinkKind::Pcie, 16, 10}, NicKind::Ethernet, {}},
    };
    cluster.switches = {{"sw", {}}};
    for (const Machine &m : cluster.machines)
        cluster.links.push_back({m.name, "sw", LinkKind::Ethernet, 1, 50});
    return orFail(Topology::build(cluster, builtinGpuCatalog()), "fixture cluster");
}

// Eight layers, 16 heads, 8 KV heads (grouped-query attention).
inline ModelSpec fixtureModel()
{
    return {"tiny-8", 8, 1024, 4096, 16, 8, 32000, 2048, MlpKind::SwiGlu};
}

inline Stage stage(std::vector<int> gpus, int tp, int dp, int layerBegin, int layerEnd,
                   std::vector<int> dpSplit = {})
{
    return {std::move(gpus), tp, dp, layerBegin, layerEnd, std::move(dpSplit)};
}

// A training plan of these pipelines; the global batch is what they take.
inline Plan trainingPlan(std::vector<Pipeline> pipelines)
{
    Plan plan;
    plan.pipelines = std::move(pipelines);
    plan.workload.train.globalBatch = 0;
    for (const Pipeline &p : plan.pipelines)
        plan.workload.train.globalBatch += p.microBatch * p.microBatches;
    plan.workload.train.seqLen = 2048;
    return plan;
}

inline QString errorText(const Error &error)
{
    return QString::fromStdString(error.message);
}

// How many times each row of the global batch passes through `layer` (forwards of TP leaders).
inline std::vector<int> rowVisits(const runtime::JobProgram &program, int layer)
{
    std::vector<int> visits(size_t(program.globalBatch), 0);
    for (const runtime::Rank &r : program.ranks)
        if (r.leader() && r.layerBegin <= layer && layer < r.layerEnd)
            for (const runtime::Op &op : program.programs[size_t(r.rank)])
                if (const auto *f = std::get_if<runtime::Forward>(&op))
                    for (int row = f->rows.begin; row < f->rows.end; ++row)
                        ++visits[size_t(row)];
    return visits;
}

// Per Gradient group and parameter set: the sum of its members' weights (a SUM all-reduce of
// weighted gradients equals the full-batch gradient only if this is 1).
inline std::map<std::string, double> groupWeightSums(const runtime::JobProgram &program)
{
    std::map<std::string, double> sums;
    for (const auto &ops : program.programs)
        for (const runtime::Op &op : ops)
            if (const auto *g = std::get_if<runtime::GradSync>(&op)) {
                const runtime::Group &group = program.groups[size_t(g->group)];
                const bool slice = g->params == runtime::ParamSet::TpSlice;
                sums[group.key + (slice ? " slice" : " replicated")] += g->weight;
            }
    return sums;
}

inline std::vector<std::string> groupKeys(const runtime::JobProgram &program,
                                          runtime::GroupKind kind)
{
    std::vector<std::string> keys;
    for (const runtime::Group &g : program.groups)
        if (g.kind == kind)
            keys.push_back(g.key);
    return keys;
}

inline std::vector<int> groupMembers(const runtime::JobProgram &program, const std::string &key)
{
    for (const runtime::Group &g : program.groups)
        if (g.key == key)
            return g.members;
    return {};
}

// Compiles, checks, and asserts what must hold for every plan: one rank per GPU, every row
// through every layer once, every gradient group's weights summing to 1.
inline runtime::JobProgram compileAndCheck(const Plan &plan, const ModelSpec &model,
                                           const Topology &topology)
{
    auto program = runtime::compileProgram(plan, model, topology);
    if (!program)
        qFatal("compileProgram: %s", program.error().message.c_str());
    if (const Status checked = runtime::checkProgram(*program); !checked)
        qFatal("checkProgram: %s", checked.error().message.c_str());
    int gpus = 0;
    for (const Pipeline &p : plan.pipelines)
        for (const Stage &s : p.stages)
            gpus += static_cast<int>(s.gpus.size());
    if (static_cast<int>(program->ranks.size()) != gpus)
        qFatal("%zu ranks for %d GPUs", program->ranks.size(), gpus);
    for (int l = 0; l < model.layers; ++l)
        for (int visits : rowVisits(*program, l))
            if (visits != 1)
                qFatal("layer %d: a row is computed %d times", l, visits);
    for (const auto &[key, sum] : groupWeightSums(*program))
        if (std::abs(sum - 1) > 1e-9)
            qFatal("group %s: weights sum to %.12f", key.c_str(), sum);
    return std::move(program).value();
}

} // namespace hetplan::test
