// hetplan.plan/1 (docs/formats.md). Only the format is checked here: types, ranges,
// GPU names. Whether the plan makes sense (coverage, tp × dp, batch sums) is validatePlan's.
#include "core/cost/phase_key.h"
#include "core/io/format_objects.h"
#include "core/io/formats.h"
#include "core/model/topology.h"
#include "core/plan/transport.h"

#include <cmath>

namespace hetplan {

using namespace jsonio;

namespace {

constexpr IntRange kMicroBatch{1, 1 << 20};
constexpr IntRange kMicroBatches{1, 1 << 24};
constexpr IntRange kDegree{1, kMaxGpus};
constexpr IntRange kLayer{0, 1000}; // ModelSpec allows at most 1000 layers
constexpr IntRange kShare{0, 1 << 20};
constexpr std::size_t kMaxListedMachines = 8;

std::string machineList(const Topology &topology)
{
    const auto &machines = topology.cluster().machines;
    std::string text;
    for (std::size_t i = 0; i < machines.size() && i < kMaxListedMachines; ++i) {
        const Machine &m = machines[i];
        text += (i == 0 ? "" : ", ") + m.name + " (" + m.name + ":0.." + m.name + ":"
                + std::to_string(m.count - 1) + ")";
    }
    if (machines.size() > kMaxListedMachines)
        text += ", … (" + std::to_string(machines.size()) + " machines)";
    return text;
}

int readGpu(const Value &value, const Topology &topology)
{
    const std::string name = value.string(kMaxNameChars * 2);
    if (value.context().failed())
        return 0;
    if (const auto index = topology.findGpu(name))
        return *index;
    value.fail("unknown GPU \"" + name + "\"; the cluster's machines: " + machineList(topology));
    return 0;
}

// {"tp"?, "pp"?, "dp"?}: each the transport of one kind of group (plan.h, StageTransport).
StageTransport readTransport(const Value &value)
{
    StageTransport t;
    Object o = value.object();
    const auto read = [&](std::string_view key, std::optional<Transport> &field) {
        const Value v = o.optional(key);
        if (v.present())
            field = v.oneOf<Transport>(kTransportNames, Transport::Socket, "transport");
    };
    read("tp", t.tp);
    read("pp", t.pp);
    read("dp", t.dp);
    o.finish();
    return t;
}

OrderedJson transportJson(const StageTransport &t)
{
    OrderedJson j = OrderedJson::object();
    const auto write = [&](const char *key, const std::optional<Transport> &field) {
        if (field)
            j[key] = nameOf<Transport>(kTransportNames, *field);
    };
    write("tp", t.tp);
    write("pp", t.pp);
    write("dp", t.dp);
    return j;
}

Stage readStage(const Value &value, const Topology &topology)
{
    Stage s;
    Object o = value.object();
    const Array gpus = o.required("gpus").array(std::size_t(kMaxGpus), 1);
    for (std::size_t i = 0; i < gpus.size(); ++i)
        s.gpus.push_back(readGpu(gpus.at(i), topology));
    s.tp = o.optional("tp").integer(kDegree, 1);
    s.dp = o.optional("dp").integer(kDegree, 1);
    const Array layers = o.required("layers").array(2, 2);
    s.layerBegin = layers.at(0).integer(kLayer);
    s.layerEnd = layers.at(1).integer(kLayer);
    const Array split = o.optional("dp_split").array(std::size_t(kMaxGpus));
    for (std::size_t i = 0; i < split.size(); ++i)
        s.dpSplit.push_back(split.at(i).integer(kShare));
    if (const Value transport = o.optional("transport"); transport.present())
        s.transport = readTransport(transport);
    o.finish();
    return s;
}

Pipeline readPipeline(const Value &value, const Topology &topology)
{
    Pipeline p;
    Object o = value.object();
    p.microBatch = o.required("micro_batch").integer(kMicroBatch, 1);
    p.microBatches = o.optional("micro_batches").integer(kMicroBatches, 1);
    const Array stages = o.required("stages").array(std::size_t(kMaxGpus), 1);
    for (std::size_t i = 0; i < stages.size(); ++i)
        p.stages.push_back(readStage(stages.at(i), topology));
    o.finish();
    return p;
}

// The estimate is informational: any numbers are accepted, but they must be numbers.
// null stands for a value the producer did not have (an infinite time is written as null).
double estimateNumber(Object &o, std::string_view key)
{
    const Value v = o.optional(key);
    if (v.is(Json::value_t::null))
        return std::nan("");
    return v.number(Range{-1e300, 1e300});
}

Evaluation readEstimate(const Value &value, const Topology &topology)
{
    Evaluation e;
    Object o = value.object();
    e.valid = o.optional("valid").boolean(true);
    const Array errors = o.optional("errors").array(1u << 16);
    for (std::size_t i = 0; i < errors.size(); ++i)
        e.errors.push_back(errors.at(i).string(kMaxTextChars, true));
    e.iterationS = estimateNumber(o, "iteration_s");
    e.mfu = estimateNumber(o, "mfu");
    e.tokensPerS = estimateNumber(o, "tokens_per_s");
    const Value breakdown = o.optional("breakdown_s");
    if (breakdown.present()) {
        Object b = breakdown.object();
        for (const Phase phase : kBreakdownPhases)
            e.breakdown.*phaseField(phase) = estimateNumber(b, phaseName(phase));
    }
    const Array memory = o.optional("memory").array(std::size_t(kMaxGpus));
    for (std::size_t i = 0; i < memory.size(); ++i) {
        Object m = memory.at(i).object();
        GpuMemory g;
        g.gpu = readGpu(m.required("gpu"), topology);
        g.usedGiB = estimateNumber(m, "used_GiB");
        g.capacityGiB = estimateNumber(m, "capacity_GiB");
        e.memory.push_back(g);
    }
    if (o.has("cost_per_iteration_usd"))
        e.costPerIterationUsd = estimateNumber(o, "cost_per_iteration_usd");
    if (o.has("cost_per_million_tokens_usd"))
        e.costPerMillionTokensUsd = estimateNumber(o, "cost_per_million_tokens_usd");
    return e;
}

OrderedJson number(double x)
{
    return std::isfinite(x) ? OrderedJson(x) : OrderedJson(nullptr);
}

OrderedJson estimateJson(const Evaluation &e, const Topology &topology)
{
    OrderedJson j;
    j["iteration_s"] = number(e.iterationS);
    j["mfu"] = number(e.mfu);
    j["tokens_per_s"] = number(e.tokensPerS);
    OrderedJson &b = j["breakdown_s"];
    for (const Phase phase : kBreakdownPhases)
        b[std::string(phaseName(phase))] = number(e.breakdown.*phaseField(phase));
    OrderedJson &memory = j["memory"] = OrderedJson::array();
    for (const GpuMemory &m : e.memory) {
        assert(m.gpu >= 0 && m.gpu < topology.gpuCount());
        OrderedJson g;
        g["gpu"] = topology.gpu(m.gpu).name;
        g["used_GiB"] = number(m.usedGiB);
        g["capacity_GiB"] = number(m.capacityGiB);
        memory.push_back(std::move(g));
    }
    j["valid"] = e.valid;
    if (!e.errors.empty())
        j["errors"] = e.errors;
    if (e.costPerIterationUsd)
        j["cost_per_iteration_usd"] = number(*e.costPerIterationUsd);
    if (e.costPerMillionTokensUsd)
        j["cost_per_million_tokens_usd"] = number(*e.costPerMillionTokensUsd);
    return j;
}

} // namespace

Result<Plan> parsePlan(std::string_view text, std::string_view source, const Topology &topology)
{
    return readDocument(text, source, kPlanFormat, [&](Object &root) {
        Plan plan;
        plan.planner = root.optional("planner").string(kMaxNameChars, true);
        plan.costModel = root.optional("cost_model").string(kMaxNameChars, true);
        plan.cluster = root.required("cluster").string(kMaxNameChars);
        plan.model = root.required("model").string(kMaxNameChars);
        Object workload = root.required("workload").object();
        plan.workload = readWorkloadFields(workload);
        workload.finish();
        const Array pipelines = root.required("pipelines").array(std::size_t(kMaxGpus), 1);
        for (std::size_t i = 0; i < pipelines.size(); ++i)
            plan.pipelines.push_back(readPipeline(pipelines.at(i), topology));
        const Value estimate = root.optional("estimate");
        if (estimate.present())
            plan.estimate = readEstimate(estimate, topology);
        return plan;
    });
}

OrderedJson jsonio::planDocument(const Plan &plan, const Topology &topology)
{
    OrderedJson j;
    j["format"] = kPlanFormat;
    j["planner"] = plan.planner;
    j["cost_model"] = plan.costModel;
    j["cluster"] = plan.cluster;
    j["model"] = plan.model;
    writeWorkloadFields(j["workload"], plan.workload);
    OrderedJson &pipelines = j["pipelines"] = OrderedJson::array();
    for (const Pipeline &p : plan.pipelines) {
        OrderedJson pj;
        pj["micro_batch"] = p.microBatch;
        pj["micro_batches"] = p.microBatches;
        OrderedJson &stages = pj["stages"] = OrderedJson::array();
        for (const Stage &s : p.stages) {
            OrderedJson sj;
            OrderedJson &gpus = sj["gpus"] = OrderedJson::array();
            for (int g : s.gpus) {
                assert(g >= 0 && g < topology.gpuCount());
                gpus.push_back(topology.gpu(g).name);
            }
            sj["tp"] = s.tp;
            sj["dp"] = s.dp;
            sj["layers"] = {s.layerBegin, s.layerEnd};
            if (!s.dpSplit.empty())
                sj["dp_split"] = s.dpSplit;
            if (!s.transport.empty())
                sj["transport"] = transportJson(s.transport);
            stages.push_back(std::move(sj));
        }
        pipelines.push_back(std::move(pj));
    }
    if (plan.estimate)
        j["estimate"] = estimateJson(*plan.estimate, topology);
    return j;
}

std::string writePlan(const Plan &plan, const Topology &topology)
{
    return dumpPretty(jsonio::planDocument(plan, topology));
}

} // namespace hetplan
