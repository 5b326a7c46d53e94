#include "core/io/workload_origin.h"

#include "core/base/enum_names.h"

#include <cstdio>

namespace hetplan {
namespace {

constexpr EnumName<WorkloadField> kFieldNames[] = {{"global_batch", WorkloadField::GlobalBatch},
                                                   {"micro_batch", WorkloadField::MicroBatch},
                                                   {"seq_len", WorkloadField::SeqLen},
                                                   {"prompt_len", WorkloadField::PromptLen},
                                                   {"output_len", WorkloadField::OutputLen},
                                                   {"request_rate", WorkloadField::RequestRate},
                                                   {"slo", WorkloadField::Slo},
                                                   {"batch", WorkloadField::Batch}};

constexpr WorkloadField kTrainFields[]
    = {WorkloadField::GlobalBatch, WorkloadField::MicroBatch, WorkloadField::SeqLen};
constexpr WorkloadField kInferFields[]
    = {WorkloadField::PromptLen, WorkloadField::OutputLen, WorkloadField::RequestRate,
       WorkloadField::Slo, WorkloadField::Batch};

std::string number(double value)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.6g", value);
    return text;
}

} // namespace

std::span<const WorkloadField> workloadFields(Mode mode)
{
    if (mode == Mode::Train)
        return kTrainFields;
    return kInferFields;
}

std::string_view workloadFieldName(WorkloadField field)
{
    return nameOf<WorkloadField>(kFieldNames, field);
}

std::vector<std::string> workloadFieldTexts(const Workload &w)
{
    if (w.mode == Mode::Train) {
        std::string micro;
        for (int b : w.train.microBatchSizes) {
            if (!micro.empty())
                micro += ',';
            micro += std::to_string(b);
        }
        return {std::to_string(w.train.globalBatch), micro, std::to_string(w.train.seqLen)};
    }
    const InferWorkload &i = w.infer;
    std::string slo = "none";
    if (i.sloS) {
        slo = number(*i.sloS);
        slo += " s";
    } else if (i.sloScale) {
        slo = number(*i.sloScale);
        slo += " x reference";
    }
    std::string rate = number(i.requestRatePerS);
    rate += "/s";
    return {std::to_string(i.promptLen), std::to_string(i.outputLen), rate, slo,
            std::to_string(i.batch)};
}

} // namespace hetplan
