// hetplan.measurement/1 (docs/runtime.md). Seconds, GiB; null is not accepted: a run that
// measured nothing has no file.
#include "core/io/measurement_json.h"

#include "core/cost/phase_key.h"
#include "core/io/files.h"
#include "core/io/json_util.h"
#include "core/model/cluster.h"

#include <climits>

namespace hetplan {

using namespace jsonio;

namespace {

constexpr IntRange kIterations{1, 1 << 20};
constexpr IntRange kIndex{0, kMaxGpus};
constexpr IntRange kScale{1, 1 << 16};
constexpr IntRange kCount{1, 1 << 24};
constexpr IntRange kSeed{0, INT_MAX};
const Range kTimeS = Range::nonNegative(1e9);
const Range kMemoryGiB = Range::nonNegative(1e9);
constexpr Range kLoss{-1e9, 1e9};

// A Breakdown's or HopPhases' fields, one per phase, keyed by the phase's name.
template<class Phases, std::size_t N>
Phases readPhases(const Value &value, const Phase (&phases)[N], double Phases::*(*field)(Phase))
{
    Phases out;
    Object o = value.object();
    for (const Phase phase : phases)
        out.*field(phase) = o.required(phaseName(phase)).number(kTimeS);
    o.finish();
    return out;
}

template<class Phases, std::size_t N>
OrderedJson phasesJson(const Phases &in, const Phase (&phases)[N], double Phases::*(*field)(Phase))
{
    OrderedJson j;
    for (const Phase phase : phases)
        j[std::string(phaseName(phase))] = in.*field(phase);
    return j;
}

Breakdown readBreakdown(const Value &value)
{
    return readPhases<Breakdown>(value, kBreakdownPhases, phaseField);
}

OrderedJson breakdownJson(const Breakdown &b)
{
    return phasesJson(b, kBreakdownPhases, phaseField);
}

MeasurementRun readRun(const Value &value)
{
    MeasurementRun r;
    Object o = value.object();
    r.backend = o.required("backend").oneOf<BackendKind>(backendNames(BackendSpelling::Measurement),
                                                         BackendKind::Gloo, "measurement backend");
    r.planFile = o.required("plan").string(kMaxTextChars);
    r.planDigest = o.optional("plan_digest").string(kMaxNameChars, true);
    r.model = o.required("model").string();
    r.scale = o.required("scale").integer(kScale, 1);
    r.iterations = o.required("iterations").integer(kIterations, 1);
    r.seed = std::uint64_t(o.required("seed").integer(kSeed));
    r.globalBatch = o.required("global_batch").integer(kCount, 1);
    r.seqLen = o.required("seq_len").integer(kCount, 1);
    const Array hosts = o.required("hosts").array(std::size_t(kMaxGpus), 1);
    for (std::size_t i = 0; i < hosts.size(); ++i)
        r.hosts.push_back(hosts.at(i).string(kMaxNameChars * 2));
    o.finish();
    return r;
}

// A list that must have exactly `expected` entries (the run's iteration count).
Array countedArray(Object &o, std::string_view key, int expected)
{
    const Value v = o.required(key);
    return v.array(std::size_t(expected), std::size_t(expected));
}

MeasuredRank readRank(const Value &value, int iterations)
{
    MeasuredRank r;
    Object o = value.object();
    r.rank = o.required("rank").integer(kIndex);
    r.gpu = o.required("gpu").string(kMaxNameChars * 2);
    r.host = o.optional("host").string(kMaxNameChars * 2, true);
    r.pipeline = o.required("pipeline").integer(kIndex);
    r.stage = o.required("stage").integer(kIndex);
    r.replica = o.required("replica").integer(kIndex);
    r.tpIndex = o.required("tp_index").integer(kIndex);
    r.peakMemoryGiB = o.required("peak_memory_GiB").number(kMemoryGiB);
    r.predictedMemoryGiB
        = o.optional("predicted_memory_GiB").optionalNumber(kMemoryGiB).value_or(0);
    const Array list = countedArray(o, "iterations", iterations);
    for (std::size_t i = 0; i < list.size(); ++i) {
        Object it = list.at(i).object();
        RankIteration ri;
        ri.wallS = it.required("wall_s").number(kTimeS);
        ri.breakdown = readBreakdown(it.required("breakdown_s"));
        if (const Value hops = it.optional("hops_s"); hops.present())
            ri.hops = readPhases<HopPhases>(hops, kHopPhases, hopField);
        it.finish();
        r.iterations.push_back(ri);
    }
    o.finish();
    return r;
}

MeasuredStage readStage(const Value &value)
{
    MeasuredStage s;
    Object o = value.object();
    s.pipeline = o.required("pipeline").integer(kIndex);
    s.stage = o.required("stage").integer(kIndex);
    const Array ranks = o.required("ranks").array(std::size_t(kMaxGpus), 1);
    for (std::size_t i = 0; i < ranks.size(); ++i)
        s.ranks.push_back(ranks.at(i).integer(kIndex));
    s.breakdown = readBreakdown(o.required("breakdown_s"));
    s.peakMemoryGiB = o.required("peak_memory_GiB").number(kMemoryGiB);
    o.finish();
    return s;
}

Measurement readMeasurement(Object &root)
{
    Measurement m;
    m.run = readRun(root.required("run"));
    const int n = root.context().failed() ? 0 : m.run.iterations;
    m.iterationS = root.required("iteration_s").number(kTimeS);
    m.tokensPerS = root.required("tokens_per_s").number(Range::nonNegative(1e15));
    m.breakdown = readBreakdown(root.required("breakdown_s"));
    const Array loss = countedArray(root, "loss", n);
    for (std::size_t i = 0; i < loss.size(); ++i)
        m.loss.push_back(loss.at(i).number(kLoss));
    const Array iterations = countedArray(root, "iterations", n);
    for (std::size_t i = 0; i < iterations.size(); ++i) {
        Object o = iterations.at(i).object();
        MeasuredIteration it;
        it.iterationS = o.required("iteration_s").number(kTimeS);
        it.tokensPerS = o.required("tokens_per_s").number(Range::nonNegative(1e15));
        it.loss = o.required("loss").number(kLoss);
        it.breakdown = readBreakdown(o.required("breakdown_s"));
        o.finish();
        m.iterations.push_back(it);
    }
    const Array stages = root.required("stages").array(std::size_t(kMaxGpus), 1);
    for (std::size_t i = 0; i < stages.size(); ++i)
        m.stages.push_back(readStage(stages.at(i)));
    const Array ranks = root.required("ranks").array(std::size_t(kMaxGpus), 1);
    for (std::size_t i = 0; i < ranks.size(); ++i) {
        m.ranks.push_back(readRank(ranks.at(i), n));
        if (!root.context().failed() && i > 0 && m.ranks[i].rank <= m.ranks[i - 1].rank)
            ranks.at(i).object().failField("rank", "must be above "
                                                       + std::to_string(m.ranks[i - 1].rank)
                                                       + ": ranks are listed in ascending order");
    }
    return m;
}

OrderedJson rankJson(const MeasuredRank &r)
{
    OrderedJson j;
    j["rank"] = r.rank;
    j["gpu"] = r.gpu;
    j["host"] = r.host;
    j["pipeline"] = r.pipeline;
    j["stage"] = r.stage;
    j["replica"] = r.replica;
    j["tp_index"] = r.tpIndex;
    j["peak_memory_GiB"] = r.peakMemoryGiB;
    if (r.predictedMemoryGiB > 0)
        j["predicted_memory_GiB"] = r.predictedMemoryGiB;
    OrderedJson &list = j["iterations"] = OrderedJson::array();
    for (const RankIteration &ri : r.iterations) {
        OrderedJson it{{"wall_s", ri.wallS}, {"breakdown_s", breakdownJson(ri.breakdown)}};
        if (ri.hops)
            it["hops_s"] = phasesJson(*ri.hops, kHopPhases, hopField);
        list.push_back(std::move(it));
    }
    return j;
}

} // namespace

Result<Measurement> parseMeasurement(std::string_view text, std::string_view source)
{
    return readDocument(text, source, kMeasurementFormat,
                        [](Object &root) { return readMeasurement(root); });
}

std::string writeMeasurement(const Measurement &m)
{
    OrderedJson j;
    j["format"] = kMeasurementFormat;
    OrderedJson &run = j["run"];
    run["backend"] = std::string(backendName(m.run.backend, BackendSpelling::Measurement));
    run["plan"] = m.run.planFile;
    if (!m.run.planDigest.empty())
        run["plan_digest"] = m.run.planDigest;
    run["model"] = m.run.model;
    run["scale"] = m.run.scale;
    run["iterations"] = m.run.iterations;
    run["seed"] = m.run.seed;
    run["global_batch"] = m.run.globalBatch;
    run["seq_len"] = m.run.seqLen;
    run["hosts"] = m.run.hosts;
    j["iteration_s"] = m.iterationS;
    j["tokens_per_s"] = m.tokensPerS;
    j["breakdown_s"] = breakdownJson(m.breakdown);
    j["loss"] = m.loss;
    OrderedJson &iterations = j["iterations"] = OrderedJson::array();
    for (const MeasuredIteration &it : m.iterations) {
        OrderedJson o;
        o["iteration_s"] = it.iterationS;
        o["tokens_per_s"] = it.tokensPerS;
        o["loss"] = it.loss;
        o["breakdown_s"] = breakdownJson(it.breakdown);
        iterations.push_back(std::move(o));
    }
    OrderedJson &stages = j["stages"] = OrderedJson::array();
    for (const MeasuredStage &s : m.stages) {
        OrderedJson o;
        o["pipeline"] = s.pipeline;
        o["stage"] = s.stage;
        o["ranks"] = s.ranks;
        o["breakdown_s"] = breakdownJson(s.breakdown);
        o["peak_memory_GiB"] = s.peakMemoryGiB;
        stages.push_back(std::move(o));
    }
    OrderedJson &ranks = j["ranks"] = OrderedJson::array();
    for (const MeasuredRank &r : m.ranks)
        ranks.push_back(rankJson(r));
    return dumpPretty(j);
}

Result<Measurement> loadMeasurement(const std::string &path)
{
    auto text = readTextFile(path);
    if (!text)
        return text.error();
    return parseMeasurement(*text, path);
}

} // namespace hetplan
