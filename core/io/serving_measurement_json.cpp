// hetplan.serving-measurement/1 (docs/formats.md). Seconds from the stream's start on one clock.
#include "core/io/serving_measurement_json.h"

#include "core/io/files.h"
#include "core/io/json_util.h"
#include "core/model/cluster.h"
#include "core/serving/serving_stream.h"

#include <cassert>
#include <climits>
#include <cmath>

namespace hetplan {

using namespace jsonio;

namespace {

constexpr IntRange kIndex{0, kMaxGpus};
constexpr IntRange kReplicaOrNone{-1, kMaxGpus};
constexpr IntRange kScale{1, 1 << 16};
constexpr IntRange kTokens{1, kMaxRequestTokens};
constexpr IntRange kGenerated{0, kMaxRequestTokens};
constexpr IntRange kCount{0, kMaxStreamRequests};
constexpr IntRange kSeed{0, INT_MAX};
const Range kTimeS = Range::nonNegative(1e9);
const Range kFraction = Range::nonNegative(1);
const Range kRatePerS = Range::nonNegative(1e9);

ServingRun readRun(const Value &value)
{
    ServingRun r;
    Object o = value.object();
    r.backend = o.required("backend").oneOf<BackendKind>(backendNames(BackendSpelling::Measurement),
                                                         BackendKind::Gloo, "measurement backend");
    r.planFile = o.required("plan").string(kMaxTextChars);
    r.planDigest = o.required("plan_digest").string(kMaxNameChars);
    r.model = o.required("model").string();
    r.scale = o.required("scale").integer(kScale, 1);
    r.promptTokens = o.required("prompt_tokens").integer(kTokens, 1);
    r.outputTokens = o.required("output_tokens").integer(kTokens, 1);
    r.batch = o.required("batch").integer(IntRange{1, 1 << 16}, 1);
    r.traceFile = o.optional("trace").string(kMaxTextChars);
    r.seed = std::uint64_t(o.required("seed").integer(kSeed));
    r.requestRatePerS = o.required("request_rate").number(kRatePerS);
    r.sloS = o.required("slo_s").number(Range::positive(1e9));
    r.warmupRequests = o.required("warmup_requests").integer(kCount);
    const Array window = o.required("window_s").array(2, 2);
    r.windowBeginS = window.at(0).number(kTimeS);
    r.windowEndS = window.at(1).number(kTimeS);
    if (!o.context().failed() && r.windowEndS < r.windowBeginS)
        o.failField("window_s", "ends before it begins; valid: [begin_s, end_s], begin ≤ end");
    const Array hosts = o.required("hosts").array(std::size_t(kMaxGpus), 1);
    for (std::size_t i = 0; i < hosts.size(); ++i)
        r.hosts.push_back(hosts.at(i).string(kMaxNameChars * 2));
    o.finish();
    return r;
}

LatencyStats readStats(const Value &value)
{
    LatencyStats s;
    Object o = value.object();
    s.meanS = o.required("mean").number(kTimeS);
    s.p50S = o.required("p50").number(kTimeS);
    s.p90S = o.required("p90").number(kTimeS);
    s.p99S = o.required("p99").number(kTimeS);
    o.finish();
    return s;
}

OrderedJson statsJson(const LatencyStats &s)
{
    return OrderedJson{{"mean", s.meanS}, {"p50", s.p50S}, {"p90", s.p90S}, {"p99", s.p99S}};
}

ServingSummary readSummary(const Value &value)
{
    ServingSummary s;
    Object o = value.object();
    s.requests = o.required("requests").integer(kCount);
    s.warmup = o.required("warmup").integer(kCount);
    s.completed = o.required("completed").integer(kCount);
    s.failed = o.required("failed").integer(kCount);
    s.ttft = readStats(o.required("ttft_s"));
    s.tpot = readStats(o.required("tpot_s"));
    s.latency = readStats(o.required("latency_s"));
    s.attainment = o.required("attainment").number(kFraction);
    s.outputTokensPerS = o.required("output_tokens_per_s").number(kRatePerS);
    o.finish();
    return s;
}

ServedReplica readReplica(const Value &value)
{
    ServedReplica r;
    Object o = value.object();
    r.replica = o.required("replica").integer(kIndex);
    const Array gpus = o.required("gpus").array(std::size_t(kMaxGpus), 1);
    for (std::size_t i = 0; i < gpus.size(); ++i)
        r.gpus.push_back(gpus.at(i).string());
    const Array ranks = o.required("ranks").array(std::size_t(kMaxGpus), 1);
    for (std::size_t i = 0; i < ranks.size(); ++i)
        r.ranks.push_back(ranks.at(i).integer(kIndex));
    if (!o.context().failed() && r.ranks.size() != r.gpus.size())
        o.failField("ranks", "lists " + std::to_string(r.ranks.size()) + " ranks for "
                                 + std::to_string(r.gpus.size())
                                 + " GPUs; valid: one rank per GPU");
    r.requests = o.required("requests").integer(kCount);
    r.completed = o.required("completed").integer(kCount);
    r.failed = o.required("failed").integer(kCount);
    r.meanPrefillS = o.required("mean_prefill_s").number(kTimeS);
    r.meanTpotS = o.required("mean_tpot_s").number(kTimeS);
    r.meanQueueS = o.required("mean_queue_s").number(kTimeS);
    r.failure = o.optional("failure").string(kMaxTextChars);
    o.finish();
    return r;
}

ServedRequest readRequest(const Value &value)
{
    ServedRequest r;
    Object o = value.object();
    r.id = o.required("id").integer(kCount);
    r.replica = o.required("replica").integer(kReplicaOrNone);
    r.arrivalS = o.required("arrival_s").number(kTimeS);
    r.admittedS = o.required("admitted_s").number(kTimeS);
    r.firstTokenS = o.required("first_token_s").number(kTimeS);
    r.finishS = o.required("finish_s").number(kTimeS);
    r.promptTokens = o.required("prompt_tokens").integer(kTokens, 1);
    r.outputTokens = o.required("output_tokens").integer(kGenerated);
    r.warmup = o.required("warmup").boolean();
    r.completed = o.required("completed").boolean();
    r.failure = o.optional("failure").string(kMaxTextChars);
    if (o.context().failed())
        return r;
    if (r.completed && !r.failure.empty())
        o.failField("failure", "is given for a completed request; valid: absent when completed");
    else if (!r.completed && r.failure.empty())
        o.failField("failure", "missing for a request that did not complete; say why");
    else if (r.completed && r.outputTokens < 1)
        o.failField("output_tokens", "is 0 for a completed request; valid: 1 or more");
    else if (r.completed && r.admittedS < r.arrivalS)
        o.failField("admitted_s", "is before arrival_s; valid: arrival ≤ admitted ≤ first token "
                                  "≤ finish");
    else if (r.completed && r.firstTokenS < r.admittedS)
        o.failField("first_token_s", "is before admitted_s; valid: arrival ≤ admitted ≤ first "
                                     "token ≤ finish");
    else if (r.completed && r.finishS < r.firstTokenS)
        o.failField("finish_s", "is before first_token_s; valid: arrival ≤ admitted ≤ first "
                                "token ≤ finish");
    o.finish();
    return r;
}

std::string countMismatch(std::string_view what, int inFile, int counted)
{
    std::string text = "says ";
    text += std::to_string(inFile);
    text += ", the requests list ";
    text += std::to_string(counted);
    text += ' ';
    text += what;
    text += "; every request is accounted for";
    return text;
}

// The counts of the summary and of each replica against the requests themselves.
void checkCounts(Object &root, const ServingMeasurement &m)
{
    if (root.context().failed())
        return;
    const ServingSummary counted
        = summarizeServed(m.requests, m.run.sloS, m.run.windowEndS - m.run.windowBeginS);
    const std::pair<std::string_view, std::pair<int, int>> totals[] = {
        {"requests", {m.summary.requests, counted.requests}},
        {"warmup", {m.summary.warmup, counted.warmup}},
        {"completed", {m.summary.completed, counted.completed}},
        {"failed", {m.summary.failed, counted.failed}},
    };
    for (const auto &[key, counts] : totals)
        if (counts.first != counts.second) {
            root.context().fail(root.childPath("summary") + "." + std::string(key),
                                countMismatch(key, counts.first, counts.second));
            return;
        }
    const std::vector<ServedReplica> replicas = servedReplicas(m.requests, int(m.replicas.size()));
    for (std::size_t i = 0; i < replicas.size(); ++i) {
        const ServedReplica &file = m.replicas[i];
        const std::string path = root.childPath("replicas") + "[" + std::to_string(i) + "]";
        if (file.replica != int(i)) {
            root.context().fail(path + ".replica", "is " + std::to_string(file.replica)
                                                       + "; valid: " + std::to_string(i)
                                                       + ", replicas are listed in order");
            return;
        }
        const std::pair<std::string_view, std::pair<int, int>> each[] = {
            {"requests", {file.requests, replicas[i].requests}},
            {"completed", {file.completed, replicas[i].completed}},
            {"failed", {file.failed, replicas[i].failed}},
        };
        for (const auto &[key, counts] : each)
            if (counts.first != counts.second) {
                root.context().fail(path + "." + std::string(key),
                                    countMismatch(key, counts.first, counts.second));
                return;
            }
    }
}

ServingMeasurement readServingMeasurement(Object &root)
{
    ServingMeasurement m;
    m.run = readRun(root.required("run"));
    m.summary = readSummary(root.required("summary"));
    const Array replicas = root.required("replicas").array(std::size_t(kMaxGpus), 1);
    for (std::size_t i = 0; i < replicas.size(); ++i)
        m.replicas.push_back(readReplica(replicas.at(i)));
    const Array requests = root.required("requests").array(std::size_t(kMaxStreamRequests), 1);
    for (std::size_t i = 0; i < requests.size() && !root.context().failed(); ++i) {
        m.requests.push_back(readRequest(requests.at(i)));
        const ServedRequest &r = m.requests.back();
        if (root.context().failed())
            break;
        if (r.id != int(i))
            requests.at(i).object().failField("id", "is " + std::to_string(r.id)
                                                        + "; valid: " + std::to_string(i)
                                                        + ", requests are listed by id from 0");
        else if (r.replica >= int(m.replicas.size()))
            requests.at(i).object().failField(
                "replica", "is " + std::to_string(r.replica) + "; valid: -1 (never dispatched) to "
                               + std::to_string(m.replicas.size() - 1) + ", a listed replica");
    }
    checkCounts(root, m);
    return m;
}

OrderedJson requestJson(const ServedRequest &r)
{
    OrderedJson j;
    j["id"] = r.id;
    j["replica"] = r.replica;
    j["arrival_s"] = r.arrivalS;
    j["admitted_s"] = r.admittedS;
    j["first_token_s"] = r.firstTokenS;
    j["finish_s"] = r.finishS;
    j["prompt_tokens"] = r.promptTokens;
    j["output_tokens"] = r.outputTokens;
    j["warmup"] = r.warmup;
    j["completed"] = r.completed;
    if (!r.failure.empty())
        j["failure"] = r.failure;
    return j;
}

OrderedJson replicaJson(const ServedReplica &r)
{
    OrderedJson j;
    j["replica"] = r.replica;
    j["gpus"] = r.gpus;
    j["ranks"] = r.ranks;
    j["requests"] = r.requests;
    j["completed"] = r.completed;
    j["failed"] = r.failed;
    j["mean_prefill_s"] = r.meanPrefillS;
    j["mean_tpot_s"] = r.meanTpotS;
    j["mean_queue_s"] = r.meanQueueS;
    if (!r.failure.empty())
        j["failure"] = r.failure;
    return j;
}

Json besideJson(const SimulatedBeside &b)
{
    Json j{{"simulated", b.simulated},
           {"measured", b.measured},
           {"interval", Json::array({b.low, b.high})}};
    const double error = b.relativeError();
    j["relative_error"] = std::isfinite(error) ? Json(error) : Json(nullptr);
    return j;
}

Json comparisonJson(const ServingComparison &c)
{
    Json out;
    Json &replicas = out["replicas"] = Json::array();
    for (const ReplicaServingComparison &r : c.replicas)
        replicas.push_back(Json{{"replica", r.replica},
                                {"requests", r.requests},
                                {"prefill_s", besideJson(r.prefillS)},
                                {"tpot_s", besideJson(r.tpotS)},
                                {"queue_s", besideJson(r.queueS)}});
    out["ttft_p50_s"] = besideJson(c.ttftP50S);
    out["ttft_p90_s"] = besideJson(c.ttftP90S);
    out["ttft_p99_s"] = besideJson(c.ttftP99S);
    out["tpot_p50_s"] = besideJson(c.tpotP50S);
    out["tpot_p90_s"] = besideJson(c.tpotP90S);
    out["tpot_p99_s"] = besideJson(c.tpotP99S);
    out["latency_p50_s"] = besideJson(c.latencyP50S);
    out["latency_p90_s"] = besideJson(c.latencyP90S);
    out["latency_p99_s"] = besideJson(c.latencyP99S);
    out["attainment"] = besideJson(c.attainment);
    out["simulated_completed"] = c.simulated.completed;
    out["simulated_failed"] = c.simulated.failed;
    return out;
}

} // namespace

std::string withServingReport(const std::string &reportJson, const ServingPhases &phases,
                              const ServingComparison *comparison,
                              const ServingFiguresInterval *interval)
{
    Json report = Json::parse(reportJson, nullptr, false);
    assert(report.is_object() && "evaluateReportJson writes an object");
    Json &phasesJson = report["serving_phases"] = Json::array();
    for (std::size_t i = 0; i < phases.replicas.size(); ++i) {
        const ReplicaPhases &r = phases.replicas[i];
        phasesJson.push_back(Json{{"replica", i},
                                  {"fits", r.fits},
                                  {"prefill_s", r.prefillS.empty() ? 0.0 : r.prefillS[0].second},
                                  {"decode_s_per_token", r.decodeSPerToken},
                                  {"interval_factors", Json::array({r.lowFactor, r.highFactor})}});
    }
    if (interval)
        report["serving_interval"] = Json{
            {"latency_p50_s", Json::array({interval->low.p50S, interval->high.p50S})},
            {"latency_p99_s", Json::array({interval->low.p99S, interval->high.p99S})},
            {"attainment", Json::array({interval->high.attainment, interval->low.attainment})}};
    if (comparison)
        report["serving_comparison"] = comparisonJson(*comparison);
    return report.dump(2);
}

Result<ServingMeasurement> parseServingMeasurement(std::string_view text, std::string_view source)
{
    return readDocument(text, source, kServingMeasurementFormat,
                        [](Object &root) { return readServingMeasurement(root); });
}

std::string writeServingMeasurement(const ServingMeasurement &m)
{
    OrderedJson j;
    j["format"] = kServingMeasurementFormat;
    OrderedJson &run = j["run"];
    run["backend"] = std::string(backendName(m.run.backend, BackendSpelling::Measurement));
    run["plan"] = m.run.planFile;
    run["plan_digest"] = m.run.planDigest;
    run["model"] = m.run.model;
    run["scale"] = m.run.scale;
    run["prompt_tokens"] = m.run.promptTokens;
    run["output_tokens"] = m.run.outputTokens;
    run["batch"] = m.run.batch;
    if (!m.run.traceFile.empty())
        run["trace"] = m.run.traceFile;
    run["seed"] = m.run.seed;
    run["request_rate"] = m.run.requestRatePerS;
    run["slo_s"] = m.run.sloS;
    run["warmup_requests"] = m.run.warmupRequests;
    run["window_s"] = {m.run.windowBeginS, m.run.windowEndS};
    run["hosts"] = m.run.hosts;
    OrderedJson &summary = j["summary"];
    summary["requests"] = m.summary.requests;
    summary["warmup"] = m.summary.warmup;
    summary["completed"] = m.summary.completed;
    summary["failed"] = m.summary.failed;
    summary["ttft_s"] = statsJson(m.summary.ttft);
    summary["tpot_s"] = statsJson(m.summary.tpot);
    summary["latency_s"] = statsJson(m.summary.latency);
    summary["attainment"] = m.summary.attainment;
    summary["output_tokens_per_s"] = m.summary.outputTokensPerS;
    OrderedJson &replicas = j["replicas"] = OrderedJson::array();
    for (const ServedReplica &r : m.replicas)
        replicas.push_back(replicaJson(r));
    OrderedJson &requests = j["requests"] = OrderedJson::array();
    for (const ServedRequest &r : m.requests)
        requests.push_back(requestJson(r));
    return dumpPretty(j);
}

Result<ServingMeasurement> loadServingMeasurement(const std::string &path)
{
    auto text = readTextFile(path);
    if (!text)
        return text.error();
    return parseServingMeasurement(*text, path);
}

} // namespace hetplan
