// hetplan.probe/1 (docs/formats.md, "Probe"): TFLOPS, GB/s (1e9 bytes/s), microseconds,
// bytes, MiB and GiB. Negative figures are refused; zero is accepted, since a measurement that
// read zero must stay in the file, flagged.
#include "core/io/json_util.h"
#include "core/io/probe_file.h"

#include <algorithm>

namespace hetplan {

using namespace jsonio;

namespace {

constexpr IntRange kRepetitions{1, 1 << 20};
constexpr IntRange kDimension{1, 1 << 24};
constexpr IntRange kIndex{0, 1 << 16};
constexpr IntRange kCores{1, 1 << 16};
constexpr IntRange kSweeps{1, 1 << 10};
const Range kFigure = Range::nonNegative();
const Range kBytes = Range::positive(1e15);

Spread readSpread(const Value &value)
{
    Spread s;
    Object o = value.object();
    s.repetitions = o.required("repetitions").integer(kRepetitions, 1);
    s.median = o.required("median").number(kFigure);
    s.min = o.required("min").number(kFigure);
    s.max = o.required("max").number(kFigure);
    if (!o.context().failed() && !(s.min <= s.median && s.median <= s.max))
        o.fail("min <= median <= max must hold; read min " + std::to_string(s.min) + ", median "
               + std::to_string(s.median) + ", max " + std::to_string(s.max));
    o.finish();
    return s;
}

OrderedJson spreadJson(const Spread &s)
{
    return OrderedJson{
        {"repetitions", s.repetitions}, {"median", s.median}, {"min", s.min}, {"max", s.max}};
}

std::vector<GemmFigure> readGemms(const Value &value)
{
    std::vector<GemmFigure> list;
    const Array array = value.array(64);
    for (std::size_t i = 0; i < array.size(); ++i) {
        Object o = array.at(i).object();
        GemmFigure g;
        g.label = o.required("label").string();
        g.m = o.required("m").integer(kDimension, 1);
        g.n = o.required("n").integer(kDimension, 1);
        g.k = o.required("k").integer(kDimension, 1);
        g.dtype = o.required("dtype").string();
        g.method = o.required("method").string();
        g.tflops = readSpread(o.required("tflops"));
        o.finish();
        list.push_back(std::move(g));
    }
    return list;
}

OrderedJson gemmsJson(const std::vector<GemmFigure> &list)
{
    OrderedJson array = OrderedJson::array();
    for (const GemmFigure &g : list)
        array.push_back(OrderedJson{{"label", g.label},
                                    {"m", g.m},
                                    {"n", g.n},
                                    {"k", g.k},
                                    {"dtype", g.dtype},
                                    {"method", g.method},
                                    {"tflops", spreadJson(g.tflops)}});
    return array;
}

std::optional<MemoryFigure> readMemory(const Value &value)
{
    if (!value.present())
        return std::nullopt;
    Object o = value.object();
    MemoryFigure m;
    m.method = o.required("method").string();
    m.bufferMiB = o.required("buffer_MiB").number(Range::positive(1e9));
    m.bandwidthGBps = readSpread(o.required("bandwidth_GBps"));
    o.finish();
    return m;
}

OrderedJson memoryJson(const MemoryFigure &m)
{
    return OrderedJson{{"method", m.method},
                       {"buffer_MiB", m.bufferMiB},
                       {"bandwidth_GBps", spreadJson(m.bandwidthGBps)}};
}

// Seconds of work, at most a day; 0 is accepted (a term too small for the clock), flagged.
const Range kSeconds = Range::nonNegative(86400);

Spread readSecondsSpread(const Value &value)
{
    const Spread s = readSpread(value);
    if (!value.context().failed() && s.max > kSeconds.max)
        value.fail("a time above " + std::to_string(int(kSeconds.max))
                   + " s is not a layer's; read max " + std::to_string(s.max));
    return s;
}

std::optional<LayerFigure> readLayer(const Value &value)
{
    if (!value.present())
        return std::nullopt;
    Object o = value.object();
    LayerFigure l;
    l.method = o.required("method").string();
    l.model = o.required("model").string(kMaxTextChars);
    l.modelShape = o.required("model_shape").string(kMaxTextChars);
    l.scale = o.required("scale").integer(kDimension, 1);
    l.seqLen = o.required("seq_len").integer(kDimension, 1);
    l.tp = o.required("tp").integer(kCores, 1);
    const Array points = o.required("micro_batches").array(64, 1);
    for (std::size_t i = 0; i < points.size(); ++i) {
        Object p = points.at(i).object();
        LayerPoint point;
        point.microBatch = p.required("micro_batch").integer(kDimension, 1);
        point.forwardS = readSecondsSpread(p.required("forward_s"));
        point.backwardS = readSecondsSpread(p.required("backward_s"));
        if (!p.context().failed() && i > 0 && point.microBatch <= l.points.back().microBatch)
            p.failField("micro_batch", "must be above " + std::to_string(l.points.back().microBatch)
                                           + ": micro-batches are listed in ascending order");
        p.finish();
        l.points.push_back(point);
    }
    l.optimizerSPerParam = readSecondsSpread(o.required("optimizer_s_per_param"));
    l.embeddingForwardSPerToken = readSecondsSpread(o.required("embedding_forward_s_per_token"));
    l.embeddingBackwardSPerToken = readSecondsSpread(o.required("embedding_backward_s_per_token"));
    l.headForwardSPerToken = readSecondsSpread(o.required("head_forward_s_per_token"));
    l.headBackwardSPerToken = readSecondsSpread(o.required("head_backward_s_per_token"));
    o.finish();
    return l;
}

OrderedJson layerJson(const LayerFigure &l)
{
    OrderedJson points = OrderedJson::array();
    for (const LayerPoint &p : l.points)
        points.push_back(OrderedJson{{"micro_batch", p.microBatch},
                                     {"forward_s", spreadJson(p.forwardS)},
                                     {"backward_s", spreadJson(p.backwardS)}});
    return OrderedJson{{"method", l.method},
                       {"model", l.model},
                       {"model_shape", l.modelShape},
                       {"scale", l.scale},
                       {"seq_len", l.seqLen},
                       {"tp", l.tp},
                       {"micro_batches", std::move(points)},
                       {"optimizer_s_per_param", spreadJson(l.optimizerSPerParam)},
                       {"embedding_forward_s_per_token", spreadJson(l.embeddingForwardSPerToken)},
                       {"embedding_backward_s_per_token", spreadJson(l.embeddingBackwardSPerToken)},
                       {"head_forward_s_per_token", spreadJson(l.headForwardSPerToken)},
                       {"head_backward_s_per_token", spreadJson(l.headBackwardSPerToken)}};
}

ProbedGpu readGpu(const Value &value)
{
    ProbedGpu g;
    Object o = value.object();
    g.index = o.required("index").integer(kIndex);
    g.name = o.required("name").string();
    g.catalog = o.optional("catalog").string();
    g.memoryGiB = o.required("memory_GiB").number(Range::positive(1e6));
    g.smCount = o.required("sm_count").integer(kCores, 1);
    g.gemm = readGemms(o.required("gemm"));
    g.memory = readMemory(o.optional("memory"));
    g.layer = readLayer(o.optional("layer"));
    o.finish();
    return g;
}

std::vector<TopoLink> readTopology(const Value &value)
{
    std::vector<TopoLink> links;
    const Array array = value.array(1 << 16);
    for (std::size_t i = 0; i < array.size(); ++i) {
        Object o = array.at(i).object();
        TopoLink l;
        l.a = o.required("a").string();
        l.b = o.required("b").string();
        l.link = o.required("link").string(16);
        o.finish();
        links.push_back(std::move(l));
    }
    return links;
}

ProbedHost readHost(const Value &value)
{
    ProbedHost h;
    Object o = value.object();
    h.name = o.required("name").string(kMaxNameChars * 2);
    h.rank = o.required("rank").integer(kIndex);
    h.backend = o.required("backend").oneOf<BackendKind>(backendNames(BackendSpelling::Probe),
                                                         BackendKind::Gloo, "probe backend");
    h.cpuModel = o.required("cpu_model").string(kMaxNameChars * 2, true);
    h.cpuCores = o.required("cpu_cores").integer(kCores, 1);
    h.blasThreads = o.required("blas_threads").integer(kCores, 1);
    h.cpuGemm = readGemms(o.required("cpu_gemm"));
    h.cpuMemory = readMemory(o.optional("cpu_memory"));
    h.cpuLayer = readLayer(o.optional("cpu_layer"));
    const Array gpus = o.required("gpus").array(1024);
    for (std::size_t i = 0; i < gpus.size(); ++i)
        h.gpus.push_back(readGpu(gpus.at(i)));
    h.noGpuReason = o.optional("no_gpu_reason").string(kMaxTextChars);
    if (o.has("topology"))
        h.topology = readTopology(o.required("topology"));
    o.finish();
    return h;
}

Endpoint readEndpoint(const Value &value)
{
    Endpoint e;
    Object o = value.object();
    e.host = o.required("host").string(kMaxNameChars * 2);
    if (o.has("gpu"))
        e.gpu = o.required("gpu").integer(kIndex);
    o.finish();
    return e;
}

OrderedJson endpointJson(const Endpoint &e)
{
    OrderedJson j{{"host", e.host}};
    if (e.gpu >= 0)
        j["gpu"] = e.gpu;
    return j;
}

ProbedPair readPair(const Value &value)
{
    ProbedPair p;
    Object o = value.object();
    p.a = readEndpoint(o.required("a"));
    p.b = readEndpoint(o.required("b"));
    p.method = o.required("method").string();
    p.bandwidthGBps = o.required("bandwidth_GBps").number(kFigure);
    p.latencyUs = o.required("latency_us").number(kFigure);
    p.sweeps = o.optional("sweeps").integer(kSweeps, 1);
    const Value sizesValue = o.required("sizes");
    const Array sizes = sizesValue.array(64, 1);
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        Object s = sizes.at(i).object();
        SizePoint point;
        point.bytes = s.required("bytes").number(kBytes);
        point.timeUs = readSpread(s.required("time_us"));
        point.bandwidthGBps = readSpread(s.required("bandwidth_GBps"));
        if (!s.context().failed() && i > 0 && point.bytes <= p.sizes.back().bytes)
            s.failField("bytes", "must be above " + std::to_string(p.sizes.back().bytes)
                                     + ": sizes are listed in ascending order");
        s.finish();
        p.sizes.push_back(point);
    }
    o.finish();
    return p;
}

ProbeSettings readSettings(const Value &value)
{
    ProbeSettings s;
    Object o = value.object();
    s.model = o.required("model").string(kMaxTextChars);
    s.microBatch = o.required("micro_batch").integer(kDimension, 1);
    s.seqLen = o.required("seq_len").integer(kDimension, 1);
    s.tp = o.required("tp").integer(kCores, 1);
    s.repetitions = o.required("repetitions").integer(kRepetitions, 1);
    s.quick = o.required("quick").boolean();
    o.finish();
    return s;
}

Probe readProbe(Object &root)
{
    Probe p;
    p.settings = readSettings(root.required("settings"));
    const Array hosts = root.required("hosts").array(1 << 16, 1);
    for (std::size_t i = 0; i < hosts.size(); ++i)
        p.hosts.push_back(readHost(hosts.at(i)));
    const Array pairs = root.required("pairs").array(1 << 20);
    for (std::size_t i = 0; i < pairs.size(); ++i)
        p.pairs.push_back(readPair(pairs.at(i)));
    const Array flags = root.required("flags").array(1 << 20);
    const std::vector<std::string_view> checks(std::begin(kPlausibilityChecks),
                                               std::end(kPlausibilityChecks));
    for (std::size_t i = 0; i < flags.size(); ++i) {
        Object o = flags.at(i).object();
        PlausibilityFlag f;
        f.path = o.required("path").string(kMaxTextChars);
        f.check = o.required("check").string();
        f.message = o.required("message").string(kMaxTextChars);
        if (!o.context().failed() && std::ranges::find(checks, f.check) == checks.end())
            o.failField("check", "\"" + f.check + "\" is not a known plausibility check; valid: "
                                     + joinNames(checks));
        o.finish();
        p.flags.push_back(std::move(f));
    }
    return p;
}

OrderedJson hostJson(const ProbedHost &h)
{
    OrderedJson j;
    j["name"] = h.name;
    j["rank"] = h.rank;
    j["backend"] = std::string(backendName(h.backend, BackendSpelling::Probe));
    j["cpu_model"] = h.cpuModel;
    j["cpu_cores"] = h.cpuCores;
    j["blas_threads"] = h.blasThreads;
    j["cpu_gemm"] = gemmsJson(h.cpuGemm);
    if (h.cpuMemory)
        j["cpu_memory"] = memoryJson(*h.cpuMemory);
    if (h.cpuLayer)
        j["cpu_layer"] = layerJson(*h.cpuLayer);
    OrderedJson &gpus = j["gpus"] = OrderedJson::array();
    for (const ProbedGpu &g : h.gpus) {
        OrderedJson o;
        o["index"] = g.index;
        o["name"] = g.name;
        if (!g.catalog.empty())
            o["catalog"] = g.catalog;
        o["memory_GiB"] = g.memoryGiB;
        o["sm_count"] = g.smCount;
        o["gemm"] = gemmsJson(g.gemm);
        if (g.memory)
            o["memory"] = memoryJson(*g.memory);
        if (g.layer)
            o["layer"] = layerJson(*g.layer);
        gpus.push_back(std::move(o));
    }
    if (!h.noGpuReason.empty())
        j["no_gpu_reason"] = h.noGpuReason;
    if (!h.topology.empty()) {
        OrderedJson &links = j["topology"] = OrderedJson::array();
        for (const TopoLink &l : h.topology)
            links.push_back(OrderedJson{{"a", l.a}, {"b", l.b}, {"link", l.link}});
    }
    return j;
}

OrderedJson pairJson(const ProbedPair &p)
{
    OrderedJson j;
    j["a"] = endpointJson(p.a);
    j["b"] = endpointJson(p.b);
    j["method"] = p.method;
    j["bandwidth_GBps"] = p.bandwidthGBps;
    j["latency_us"] = p.latencyUs;
    if (p.sweeps > 1)
        j["sweeps"] = p.sweeps;
    OrderedJson &sizes = j["sizes"] = OrderedJson::array();
    for (const SizePoint &s : p.sizes)
        sizes.push_back(OrderedJson{{"bytes", s.bytes},
                                    {"time_us", spreadJson(s.timeUs)},
                                    {"bandwidth_GBps", spreadJson(s.bandwidthGBps)}});
    return j;
}

} // namespace

Spread spreadOf(std::vector<double> samples)
{
    std::ranges::sort(samples);
    const std::size_t n = samples.size();
    const double median = n % 2 == 1 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
    return {int(n), median, samples.front(), samples.back()};
}

std::string endpointText(const Endpoint &e)
{
    std::string text = e.host;
    if (e.gpu >= 0)
        text += " GPU " + std::to_string(e.gpu);
    return text;
}

void summarizePair(ProbedPair &pair)
{
    if (pair.sizes.empty())
        return;
    pair.bandwidthGBps = pair.sizes.back().bandwidthGBps.median;
    pair.latencyUs = pair.sizes.front().timeUs.median;
}

Result<Probe> parseProbe(std::string_view text, std::string_view source)
{
    auto probe
        = readDocument(text, source, kProbeFormat, [](Object &root) { return readProbe(root); });
    if (probe)
        addPlausibilityFlags(*probe);
    return probe;
}

std::string writeProbe(const Probe &p)
{
    OrderedJson j;
    j["format"] = kProbeFormat;
    OrderedJson &s = j["settings"];
    s["model"] = p.settings.model;
    s["micro_batch"] = p.settings.microBatch;
    s["seq_len"] = p.settings.seqLen;
    s["tp"] = p.settings.tp;
    s["repetitions"] = p.settings.repetitions;
    s["quick"] = p.settings.quick;
    OrderedJson &hosts = j["hosts"] = OrderedJson::array();
    for (const ProbedHost &h : p.hosts)
        hosts.push_back(hostJson(h));
    OrderedJson &pairs = j["pairs"] = OrderedJson::array();
    for (const ProbedPair &pair : p.pairs)
        pairs.push_back(pairJson(pair));
    OrderedJson &flags = j["flags"] = OrderedJson::array();
    for (const PlausibilityFlag &f : p.flags)
        flags.push_back(OrderedJson{{"path", f.path}, {"check", f.check}, {"message", f.message}});
    return dumpPretty(j);
}

} // namespace hetplan
