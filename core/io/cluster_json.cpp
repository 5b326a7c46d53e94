// hetplan.cluster/1 (docs/formats.md) and the GPU type object it shares with the
// GPU catalog.
#include "core/cost/phase_key.h"
#include "core/io/calibration_record_json.h"
#include "core/io/catalog_json.h"
#include "core/io/format_objects.h"
#include "core/io/formats.h"
#include "core/model/transport_figures.h"

#include <limits>
#include <unordered_map>

namespace hetplan {

using namespace jsonio;

namespace {

constexpr std::size_t kMaxLinks = 1u << 20;
constexpr std::size_t kMaxGpuTypes = 4096;
// Canvas coordinates; generous, but finite so that the scene never sees 1e300.
constexpr Range kCanvasRange{-1e7, 1e7};

std::string nodeName(const Value &value, bool allowColon)
{
    std::string name = value.string(kMaxNameChars);
    if (!allowColon && name.find(':') != std::string::npos)
        value.fail("\"" + name
                   + "\" contains ':'; GPUs are named \"machine:index\", so machine "
                     "and switch names cannot contain it");
    return name;
}

CanvasPosition readPosition(const Value &value)
{
    CanvasPosition p;
    if (!value.present())
        return p;
    const Array xy = value.array(2, 2);
    p.x = xy.at(0).number(kCanvasRange);
    p.y = xy.at(1).number(kCanvasRange);
    return p;
}

// Where a node was first defined, for duplicate-name messages.
using NameIndex = std::unordered_map<std::string, std::string>;

void claimName(NameIndex &names, const std::string &name, const Value &where)
{
    const auto [it, inserted] = names.emplace(name, where.path());
    if (!inserted)
        where.fail("\"" + name + "\" is already the name of " + it->second
                   + "; names must be unique among machines and switches");
}

// The intra link a machine gets when its file gives none: its GPU type's typical one.
IntraLink defaultIntra(const Cluster &cluster, const std::string &gpu)
{
    for (const GpuType &t : cluster.gpuTypes)
        if (t.name == gpu)
            return t.typicalIntra;
    if (const GpuType *t = builtinGpuCatalog().find(gpu))
        return t->typicalIntra;
    return IntraLink{};
}

Machine readMachine(const Value &value, const Cluster &cluster, NameIndex &names,
                    long long &gpuTotal)
{
    Machine m;
    Object o = value.object();
    const Value name = o.required("name");
    m.name = nodeName(name, false);
    claimName(names, m.name, name);
    m.gpu = o.required("gpu").string(kMaxNameChars);
    const Value count = o.required("count");
    m.count = count.integer({1, kMaxGpusPerMachine}, 1);
    gpuTotal += m.count;
    if (gpuTotal > kMaxGpus)
        count.fail("the cluster would have more than " + std::to_string(kMaxGpus)
                   + " GPUs in total; HetPlan handles at most that many");
    m.host = o.optional("host").string(kMaxNameChars * 2, true);
    const Value intra = o.optional("intra");
    m.intra = intra.present() ? readIntraLink(intra) : defaultIntra(cluster, m.gpu);
    m.nic = o.optional("nic").oneOf<NicKind>(kNicKindNames, NicKind::Ethernet, "NIC kind");
    m.position = readPosition(o.optional("position"));
    o.finish();
    return m;
}

Switch readSwitch(const Value &value, NameIndex &names)
{
    Switch s;
    Object o = value.object();
    const Value name = o.required("name");
    s.name = nodeName(name, false);
    claimName(names, s.name, name);
    s.position = readPosition(o.optional("position"));
    o.finish();
    return s;
}

Link readLink(const Value &value, const NameIndex &names)
{
    Link l;
    Object o = value.object();
    const auto endpoint = [&](std::string_view key) {
        const Value v = o.required(key);
        std::string name = v.string(kMaxNameChars);
        if (!v.context().failed() && !names.contains(name))
            v.fail("\"" + name + "\" is neither a machine nor a switch of this cluster");
        return name;
    };
    l.a = endpoint("a");
    l.b = endpoint("b");
    if (!o.context().failed() && l.a == l.b)
        o.fail("links \"" + l.a + "\" to itself; a link joins two different nodes");
    l.kind = o.optional("kind").oneOf<LinkKind>(kLinkKindNames, LinkKind::Ethernet, "link kind");
    l.bandwidthGBps = o.required("bandwidth_GBps").number(Range::positive());
    l.latencyUs = o.optional("latency_us").number(Range::nonNegative(), Link{}.latencyUs);
    o.finish();
    return l;
}

// GPU count per machine name, for checking "machine:index" names.
using GpuCounts = std::unordered_map<std::string, int>;

// "A:2" must name machine A with at least 3 GPUs.
std::string gpuName(const Value &value, const GpuCounts &machines)
{
    std::string name = value.string(kMaxNameChars * 2);
    if (value.context().failed())
        return name;
    const std::size_t colon = name.rfind(':');
    const auto machine
        = colon == std::string::npos ? machines.end() : machines.find(name.substr(0, colon));
    if (machine == machines.end()) {
        value.fail("\"" + name
                   + R"(" is not a GPU of this cluster; GPUs are named "machine:index")");
        return name;
    }
    const std::string index = name.substr(colon + 1);
    const int count = machine->second;
    if (!index.empty() && index.size() <= 5
        && index.find_first_not_of("0123456789") == std::string::npos && std::stoi(index) < count)
        return name;
    const std::string &m = machine->first;
    value.fail("\"" + name + "\": machine " + m + " has GPUs " + m + ":0.." + m + ":"
               + std::to_string(count - 1));
    return name;
}

PairOverride readOverride(const Value &value, const GpuCounts &machines)
{
    PairOverride p;
    Object o = value.object();
    p.a = gpuName(o.required("a"), machines);
    p.b = gpuName(o.required("b"), machines);
    if (!o.context().failed() && p.a == p.b)
        o.fail("pairs \"" + p.a + "\" with itself");
    p.bandwidthGBps = o.required("bandwidth_GBps").number(Range::positive());
    p.latencyUs = o.required("latency_us").number(Range::nonNegative());
    o.finish();
    return p;
}

// One kind's `hetplan` transport figures; what the entry leaves out keeps the catalog's value.
TransportFigures readTransport(const Value &value, const Cluster &cluster)
{
    Object o = value.object();
    const Value kind = o.required("kind");
    const LinkKind linkKind = kind.oneOf<LinkKind>(kLinkKindNames, LinkKind::Ethernet, "link kind");
    TransportFigures t = transportFigures(Cluster{}, linkKind);
    t.source.clear();
    if (!kind.context().failed())
        for (const TransportFigures &earlier : cluster.transports)
            if (earlier.kind == linkKind)
                kind.fail("\"" + std::string(nameOf<LinkKind>(kLinkKindNames, linkKind))
                          + "\" is given twice; one entry per link kind");
    t.efficiency = o.optional("efficiency").number(Range::positive(10), t.efficiency);
    t.latencyUs = o.optional("latency_us").number(Range::nonNegative(), t.latencyUs);
    t.latencyFactor = o.optional("latency_factor").number(Range::positive(1000), t.latencyFactor);
    t.lossPerDoubling
        = o.optional("loss_per_doubling").number(Range::nonNegative(0.9), t.lossPerDoubling);
    t.ceilingGBps = o.optional("ceiling_GBps").number(Range::nonNegative(), t.ceilingGBps);
    t.source = o.optional("source").string(kMaxTextChars, true);
    o.finish();
    return t;
}

OrderedJson transportJson(const TransportFigures &t)
{
    OrderedJson o;
    o["kind"] = nameOf<LinkKind>(kLinkKindNames, t.kind);
    o["efficiency"] = t.efficiency;
    o["latency_us"] = t.latencyUs;
    o["latency_factor"] = t.latencyFactor;
    o["loss_per_doubling"] = t.lossPerDoubling;
    if (t.ceilingGBps > 0)
        o["ceiling_GBps"] = t.ceilingGBps;
    if (!t.source.empty())
        o["source"] = t.source;
    return o;
}

// Only the phases of an iteration have residuals, not the iteration as a whole.
constexpr EnumName<Phase> kResidualPhaseNames[] = {{"compute", Phase::Compute},
                                                   {"tp_comm", Phase::TpComm},
                                                   {"pp_comm", Phase::PpComm},
                                                   {"dp_comm", Phase::DpComm},
                                                   {"bubble", Phase::Bubble}};

CalibrationResidual readResidual(const Value &value)
{
    CalibrationResidual r;
    Object o = value.object();
    const Phase phase
        = o.required("phase").oneOf<Phase>(kResidualPhaseNames, Phase::Compute, "phase");
    r.phase = phaseName(phase);
    r.gpuType = o.optional("gpu_type").string(kMaxNameChars);
    const Value link = o.optional("link_kind");
    if (link.present())
        r.linkKind = link.oneOf<LinkKind>(kLinkKindNames, LinkKind::Ethernet, "link kind");
    r.rmsLogError = o.required("rms_log_error").number(Range::nonNegative(100));
    r.count = o.required("count").integer(IntRange{1, std::numeric_limits<int>::max()});
    o.finish();
    return r;
}

OrderedJson residualJson(const CalibrationResidual &r)
{
    OrderedJson o;
    o["phase"] = r.phase;
    if (!r.gpuType.empty())
        o["gpu_type"] = r.gpuType;
    if (r.linkKind)
        o["link_kind"] = nameOf<LinkKind>(kLinkKindNames, *r.linkKind);
    o["rms_log_error"] = r.rmsLogError;
    o["count"] = r.count;
    return o;
}

ClusterOrigin readOrigin(const Value &value)
{
    ClusterOrigin origin;
    if (!value.present())
        return origin;
    Object o = value.object();
    const Array sources = o.optional("sources").array(kMaxLinks);
    for (std::size_t i = 0; i < sources.size(); ++i)
        origin.sources.push_back(sources.at(i).string(kMaxTextChars));
    const Array figures = o.optional("figures").array(kMaxLinks);
    for (std::size_t i = 0; i < figures.size(); ++i) {
        Object f = figures.at(i).object();
        MeasuredFigure m;
        const Value field = f.required("field");
        m.field = field.string(kMaxTextChars);
        if (!field.context().failed() && m.field.front() != '/')
            field.fail("\"" + m.field
                       + "\" is not a path in the cluster file; valid: a path starting with '/', "
                         "e.g. \"/machines/A/intra/bandwidth_GBps\"");
        m.source = f.required("source").string(kMaxTextChars);
        m.how = f.optional("how").string(kMaxTextChars, true);
        m.by = f.optional("by").oneOf<MeasuredBy>(kMeasuredByNames, MeasuredBy::Unspecified,
                                                  "measuring tool");
        f.finish();
        origin.figures.push_back(std::move(m));
    }
    const Array residuals = o.optional("residuals").array(kMaxLinks);
    for (std::size_t i = 0; i < residuals.size(); ++i)
        origin.residuals.push_back(readResidual(residuals.at(i)));
    o.finish();
    return origin;
}

OrderedJson originJson(const ClusterOrigin &origin)
{
    OrderedJson j;
    j["sources"] = origin.sources;
    OrderedJson &figures = j["figures"] = OrderedJson::array();
    for (const MeasuredFigure &m : origin.figures) {
        OrderedJson f{{"field", m.field}, {"source", m.source}, {"how", m.how}};
        // Only when known, so files written before the tool was recorded stay as they were.
        if (m.by != MeasuredBy::Unspecified)
            f["by"] = nameOf<MeasuredBy>(kMeasuredByNames, m.by);
        figures.push_back(std::move(f));
    }
    if (!origin.residuals.empty()) {
        OrderedJson &residuals = j["residuals"] = OrderedJson::array();
        for (const CalibrationResidual &r : origin.residuals)
            residuals.push_back(residualJson(r));
    }
    return j;
}

} // namespace

namespace jsonio {

std::span<const Choice<LinkKind>> linkKinds()
{
    return kLinkKindNames;
}

IntraLink readIntraLink(const Value &value)
{
    IntraLink link;
    Object o = value.object();
    link.kind = o.required("kind").oneOf<LinkKind>(kLinkKindNames, link.kind, "link kind");
    link.bandwidthGBps = o.required("bandwidth_GBps").number(Range::positive());
    link.latencyUs = o.optional("latency_us").number(Range::nonNegative(), link.latencyUs);
    o.finish();
    return link;
}

OrderedJson intraLinkJson(const IntraLink &link)
{
    OrderedJson j;
    j["kind"] = nameOf<LinkKind>(kLinkKindNames, link.kind);
    j["bandwidth_GBps"] = link.bandwidthGBps;
    j["latency_us"] = link.latencyUs;
    return j;
}

// Seconds of one layer (above 0), optimizer or per-token term (0 or more): at most a day.
const Range kLayerSeconds{0, 86400, true};
const Range kTermSeconds = Range::nonNegative(86400);
const Range kComputeScaleRange{kMinComputeScale, kMaxComputeScale};

MeasuredLayerTable readMeasuredLayer(const Value &value)
{
    MeasuredLayerTable t;
    Object o = value.object();
    t.model = o.required("model").string(kMaxTextChars);
    t.modelShape = o.required("model_shape").string(kMaxTextChars);
    t.seqLen = o.required("seq_len").integer({1, 1 << 24}, 1);
    t.tp = o.required("tp").integer({1, 1 << 16}, 1);
    const Array points = o.required("micro_batches").array(64, 1);
    for (std::size_t i = 0; i < points.size(); ++i) {
        Object p = points.at(i).object();
        LayerTimes times;
        times.microBatch = p.required("micro_batch").integer({1, 1 << 24}, 1);
        times.forwardS = p.required("forward_s").number(kLayerSeconds);
        times.backwardS = p.required("backward_s").number(kLayerSeconds);
        if (!p.context().failed() && i > 0 && times.microBatch <= t.points.back().microBatch)
            p.failField("micro_batch", "must be above " + std::to_string(t.points.back().microBatch)
                                           + ": micro-batches are listed in ascending order");
        p.finish();
        t.points.push_back(times);
    }
    t.optimizerSPerParam = o.required("optimizer_s_per_param").number(kTermSeconds);
    t.embeddingForwardSPerToken = o.required("embedding_forward_s_per_token").number(kTermSeconds);
    t.embeddingBackwardSPerToken
        = o.required("embedding_backward_s_per_token").number(kTermSeconds);
    t.headForwardSPerToken = o.required("head_forward_s_per_token").number(kTermSeconds);
    t.headBackwardSPerToken = o.required("head_backward_s_per_token").number(kTermSeconds);
    t.achievedFraction = o.optional("achieved_fraction").number(Range::positive(1), 1.0);
    t.source = o.optional("source").string(kMaxTextChars, true);
    o.finish();
    return t;
}

OrderedJson measuredLayerJson(const MeasuredLayerTable &t)
{
    OrderedJson points = OrderedJson::array();
    for (const LayerTimes &p : t.points)
        points.push_back(OrderedJson{
            {"micro_batch", p.microBatch}, {"forward_s", p.forwardS}, {"backward_s", p.backwardS}});
    OrderedJson j{{"model", t.model},
                  {"model_shape", t.modelShape},
                  {"seq_len", t.seqLen},
                  {"tp", t.tp},
                  {"micro_batches", std::move(points)},
                  {"optimizer_s_per_param", t.optimizerSPerParam},
                  {"embedding_forward_s_per_token", t.embeddingForwardSPerToken},
                  {"embedding_backward_s_per_token", t.embeddingBackwardSPerToken},
                  {"head_forward_s_per_token", t.headForwardSPerToken},
                  {"head_backward_s_per_token", t.headBackwardSPerToken},
                  {"achieved_fraction", t.achievedFraction}};
    if (!t.source.empty())
        j["source"] = t.source;
    return j;
}

GpuType readGpuType(const Value &value)
{
    GpuType t;
    Object o = value.object();
    t.name = o.required("name").string(kMaxNameChars);
    t.tflops = o.required("tflops").number(Range::positive());
    t.memoryGiB = o.required("memory_GiB").number(Range::positive());
    t.memoryBandwidthGBps = o.required("membw_GBps").number(Range::positive());
    const Value intra = o.optional("intra");
    if (intra.present())
        t.typicalIntra = readIntraLink(intra);
    t.achievedFraction
        = o.optional("achieved_fraction").number(Range::positive(1), t.achievedFraction);
    t.computeScale = o.optional("compute_scale").number(kComputeScaleRange, t.computeScale);
    t.pricePerHourUsd = o.optional("price_per_hour_usd").optionalNumber(Range::nonNegative());
    static constexpr Choice<std::string_view> kAccumulate[] = {{"fp32", "fp32"}, {"fp16", "fp16"}};
    t.accumulate
        = o.optional("accumulate").oneOf<std::string_view>(kAccumulate, "", "accumulate precision");
    t.source = o.optional("source").string(kMaxTextChars, true);
    if (o.has("measured_layers")) {
        const Array layers = o.required("measured_layers").array(1024);
        for (std::size_t i = 0; i < layers.size(); ++i)
            t.measuredLayers.push_back(readMeasuredLayer(layers.at(i)));
    }
    o.finish();
    return t;
}

OrderedJson gpuTypeJson(const GpuType &type)
{
    OrderedJson j;
    j["name"] = type.name;
    j["tflops"] = type.tflops;
    j["memory_GiB"] = type.memoryGiB;
    j["membw_GBps"] = type.memoryBandwidthGBps;
    j["intra"] = intraLinkJson(type.typicalIntra);
    j["achieved_fraction"] = type.achievedFraction;
    if (type.computeScale != 1)
        j["compute_scale"] = type.computeScale;
    if (type.pricePerHourUsd)
        j["price_per_hour_usd"] = *type.pricePerHourUsd;
    if (!type.accumulate.empty())
        j["accumulate"] = type.accumulate;
    if (!type.source.empty())
        j["source"] = type.source;
    if (!type.measuredLayers.empty()) {
        OrderedJson &layers = j["measured_layers"] = OrderedJson::array();
        for (const MeasuredLayerTable &t : type.measuredLayers)
            layers.push_back(measuredLayerJson(t));
    }
    return j;
}

} // namespace jsonio

Result<Cluster> parseCluster(std::string_view text, std::string_view source)
{
    return readDocument(text, source, kClusterFormat, [&](Object &root) {
        Cluster c;
        c.name = root.required("name").string(kMaxNameChars);
        c.description = root.optional("description").string(kMaxTextChars, true);

        // GPU types first: a machine without "intra" takes its type's typical link.
        const Array types = root.optional("gpu_types").array(kMaxGpuTypes);
        for (std::size_t i = 0; i < types.size(); ++i) {
            const Value v = types.at(i);
            c.gpuTypes.push_back(readGpuType(v));
            for (std::size_t j = 0; j + 1 < c.gpuTypes.size(); ++j)
                if (c.gpuTypes[j].name == c.gpuTypes.back().name)
                    v.fail("\"" + c.gpuTypes.back().name + "\" is already defined by gpu_types["
                           + std::to_string(j) + "]");
        }

        NameIndex names;
        long long gpuTotal = 0;
        const Array machines = root.required("machines").array(kMaxMachines);
        for (std::size_t i = 0; i < machines.size(); ++i)
            c.machines.push_back(readMachine(machines.at(i), c, names, gpuTotal));
        const Array switches = root.optional("switches").array(kMaxMachines);
        for (std::size_t i = 0; i < switches.size(); ++i)
            c.switches.push_back(readSwitch(switches.at(i), names));
        const Array links = root.optional("links").array(kMaxLinks);
        for (std::size_t i = 0; i < links.size(); ++i)
            c.links.push_back(readLink(links.at(i), names));
        GpuCounts gpuCounts;
        for (const Machine &m : c.machines)
            gpuCounts.emplace(m.name, m.count);
        const Array overrides = root.optional("pair_overrides").array(kMaxLinks);
        for (std::size_t i = 0; i < overrides.size(); ++i)
            c.pairOverrides.push_back(readOverride(overrides.at(i), gpuCounts));
        const Array transports = root.optional("transports").array(std::size(kLinkKindNames));
        for (std::size_t i = 0; i < transports.size(); ++i)
            c.transports.push_back(readTransport(transports.at(i), c));
        c.origin = readOrigin(root.optional("origin"));
        c.calibration = jsonio::readCalibrationRecord(root.optional("calibration"));
        return c;
    });
}

OrderedJson jsonio::clusterDocument(const Cluster &cluster)
{
    OrderedJson j;
    j["format"] = kClusterFormat;
    j["name"] = cluster.name;
    if (!cluster.description.empty())
        j["description"] = cluster.description;
    OrderedJson &machines = j["machines"] = OrderedJson::array();
    for (const Machine &m : cluster.machines) {
        OrderedJson o;
        o["name"] = m.name;
        o["gpu"] = m.gpu;
        o["count"] = m.count;
        o["host"] = m.host;
        o["intra"] = intraLinkJson(m.intra);
        o["nic"] = nameOf<NicKind>(kNicKindNames, m.nic);
        o["position"] = {m.position.x, m.position.y};
        machines.push_back(std::move(o));
    }
    OrderedJson &switches = j["switches"] = OrderedJson::array();
    for (const Switch &s : cluster.switches)
        switches.push_back({{"name", s.name}, {"position", {s.position.x, s.position.y}}});
    OrderedJson &links = j["links"] = OrderedJson::array();
    for (const Link &l : cluster.links) {
        OrderedJson o;
        o["a"] = l.a;
        o["b"] = l.b;
        o["kind"] = nameOf<LinkKind>(kLinkKindNames, l.kind);
        o["bandwidth_GBps"] = l.bandwidthGBps;
        o["latency_us"] = l.latencyUs;
        links.push_back(std::move(o));
    }
    OrderedJson &types = j["gpu_types"] = OrderedJson::array();
    for (const GpuType &t : cluster.gpuTypes)
        types.push_back(gpuTypeJson(t));
    OrderedJson &overrides = j["pair_overrides"] = OrderedJson::array();
    for (const PairOverride &p : cluster.pairOverrides) {
        OrderedJson o;
        o["a"] = p.a;
        o["b"] = p.b;
        o["bandwidth_GBps"] = p.bandwidthGBps;
        o["latency_us"] = p.latencyUs;
        overrides.push_back(std::move(o));
    }
    // Only when present, so files without calibration stay as they were.
    if (!cluster.transports.empty()) {
        OrderedJson &transports = j["transports"] = OrderedJson::array();
        for (const TransportFigures &t : cluster.transports)
            transports.push_back(transportJson(t));
    }
    // Only imported or calibrated clusters carry one; drawn ones stay as they were.
    if (!cluster.origin.empty())
        j["origin"] = originJson(cluster.origin);
    if (!cluster.calibration.empty())
        j["calibration"] = jsonio::calibrationRecordJson(cluster.calibration);
    return j;
}

std::string writeCluster(const Cluster &cluster)
{
    return dumpPretty(jsonio::clusterDocument(cluster));
}

} // namespace hetplan
