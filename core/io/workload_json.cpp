// Workload files (docs/formats.md): training or inference, "format" optional.
#include "core/io/format_objects.h"
#include "core/io/formats.h"
#include "core/io/workload_origin.h"

namespace hetplan {

using namespace jsonio;

namespace {

constexpr Choice<Mode> kModes[] = {{"train", Mode::Train}, {"infer", Mode::Infer}};
constexpr Choice<Precision> kPrecisions[]
    = {{"bf16", Precision::Bf16}, {"fp16", Precision::Fp16}, {"fp32", Precision::Fp32}};
constexpr Choice<Recompute> kRecomputes[]
    = {{"none", Recompute::None}, {"selective", Recompute::Selective}, {"full", Recompute::Full}};
constexpr Choice<Optimizer> kOptimizers[] = {{"adam", Optimizer::Adam}, {"sgd", Optimizer::Sgd}};

constexpr IntRange kBatch{1, 1 << 24};
constexpr IntRange kMicroBatch{1, 1 << 20};
constexpr IntRange kTokens{1, 1 << 24};
constexpr std::size_t kMaxCandidates = 64;

// docs/formats.md's example writes "recompute": true; true means full, false none.
Recompute readRecompute(const Value &value)
{
    if (value.is(Json::value_t::boolean))
        return value.boolean() ? Recompute::Full : Recompute::None;
    return value.oneOf<Recompute>(kRecomputes, Recompute::Full, "recompute setting",
                                  "true (= full), false (= none)");
}

TrainWorkload readTrain(Object &o, std::set<WorkloadField> &defaulted)
{
    TrainWorkload t;
    t.globalBatch = o.required("global_batch").integer(kBatch, 1);
    const Value single = o.optional("micro_batch");
    const Value candidates = o.optional("micro_batch_candidates");
    if (single.present() && candidates.present()) {
        candidates.fail("give either micro_batch or micro_batch_candidates, not both");
    } else if (single.present()) {
        t.microBatchSizes = {single.integer(kMicroBatch, 1)};
    } else if (candidates.present()) {
        const Array list = candidates.array(kMaxCandidates, 1);
        t.microBatchSizes.clear();
        for (std::size_t i = 0; i < list.size(); ++i)
            t.microBatchSizes.push_back(list.at(i).integer(kMicroBatch, 1));
    } else {
        defaulted.insert(WorkloadField::MicroBatch);
    }
    t.seqLen = o.required("seq_len").integer(kTokens, 1);
    t.precision
        = o.optional("precision").oneOf<Precision>(kPrecisions, Precision::Bf16, "precision");
    t.recompute = readRecompute(o.optional("recompute"));
    t.optimizer
        = o.optional("optimizer").oneOf<Optimizer>(kOptimizers, Optimizer::Adam, "optimizer");
    t.shardOptimizer = o.optional("shard_optimizer").boolean(false);
    return t;
}

InferWorkload readInfer(Object &o, std::set<WorkloadField> &defaulted)
{
    InferWorkload w;
    w.promptLen = o.required("prompt_len").integer(kTokens, 1);
    w.outputLen = o.required("output_len").integer(kTokens, 1);
    w.requestRatePerS = o.required("request_rate").number(Range::positive(1e9), 1);
    const Value slo = o.optional("slo_s");
    const Value scale = o.optional("slo_scale");
    if (slo.present() && scale.present())
        scale.fail("give either slo_s or slo_scale, not both");
    w.sloS = slo.optionalNumber(Range::positive(1e9));
    w.sloScale = scale.optionalNumber(Range::positive(1e9));
    if (!slo.present() && !scale.present())
        defaulted.insert(WorkloadField::Slo);
    const Value batch = o.optional("batch");
    if (!batch.present())
        defaulted.insert(WorkloadField::Batch);
    w.batch = batch.integer(kMicroBatch, 1);
    w.precision
        = o.optional("precision").oneOf<Precision>(kPrecisions, Precision::Fp16, "precision");
    return w;
}

} // namespace

namespace jsonio {

Workload readWorkloadFields(Object &o, std::set<WorkloadField> *defaulted)
{
    std::set<WorkloadField> ignored;
    std::set<WorkloadField> &left = defaulted ? *defaulted : ignored;
    Workload w;
    const Value format = o.optional("format");
    if (format.present())
        checkFormat(format, kWorkloadFormat);
    w.mode = o.required("mode").oneOf<Mode>(kModes, Mode::Train, "mode");
    if (w.mode == Mode::Train)
        w.train = readTrain(o, left);
    else
        w.infer = readInfer(o, left);
    return w;
}

void writeWorkloadFields(OrderedJson &j, const Workload &w)
{
    j["mode"] = nameOf<Mode>(kModes, w.mode);
    if (w.mode == Mode::Train) {
        const TrainWorkload &t = w.train;
        j["global_batch"] = t.globalBatch;
        if (t.microBatchSizes.size() == 1)
            j["micro_batch"] = t.microBatchSizes.front();
        else
            j["micro_batch_candidates"] = t.microBatchSizes;
        j["seq_len"] = t.seqLen;
        j["precision"] = nameOf<Precision>(kPrecisions, t.precision);
        j["recompute"] = nameOf<Recompute>(kRecomputes, t.recompute);
        j["optimizer"] = nameOf<Optimizer>(kOptimizers, t.optimizer);
        j["shard_optimizer"] = t.shardOptimizer;
        return;
    }
    const InferWorkload &i = w.infer;
    j["prompt_len"] = i.promptLen;
    j["output_len"] = i.outputLen;
    j["request_rate"] = i.requestRatePerS;
    if (i.sloS)
        j["slo_s"] = *i.sloS;
    if (i.sloScale)
        j["slo_scale"] = *i.sloScale;
    j["batch"] = i.batch;
    j["precision"] = nameOf<Precision>(kPrecisions, i.precision);
}

} // namespace jsonio

Result<Workload> parseWorkload(std::string_view text, std::string_view source)
{
    return readDocument(text, source, {}, [](Object &root) { return readWorkloadFields(root); });
}

Result<WorkloadFile> parseWorkloadFile(std::string_view text, std::string_view source)
{
    return readDocument(text, source, {}, [](Object &root) {
        WorkloadFile file;
        file.workload = readWorkloadFields(root, &file.defaulted);
        return file;
    });
}

std::string writeWorkload(const Workload &workload)
{
    OrderedJson j;
    j["format"] = kWorkloadFormat;
    writeWorkloadFields(j, workload);
    return dumpPretty(j);
}

} // namespace hetplan
