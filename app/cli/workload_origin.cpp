#include "app/cli/workload_origin.h"

#include <cstdio>
#include <nlohmann/json.hpp>

namespace hetplan::cli {
namespace {

std::string number(double value)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.6g", value);
    return text;
}

// Each field's value as text, in the order of workloadFields().
std::vector<std::string> valuesOf(const Workload &w)
{
    if (w.mode == Mode::Train) {
        std::string micro;
        for (int b : w.train.microBatchSizes)
            micro += (micro.empty() ? "" : ",") + std::to_string(b);
        return {std::to_string(w.train.globalBatch), micro, std::to_string(w.train.seqLen)};
    }
    const InferWorkload &i = w.infer;
    const std::string slo = i.sloS       ? number(*i.sloS) + " s"
                            : i.sloScale ? number(*i.sloScale) + " x reference"
                                         : "none";
    return {std::to_string(i.promptLen), std::to_string(i.outputLen),
            number(i.requestRatePerS) + "/s", slo, std::to_string(i.batch)};
}

} // namespace

std::vector<std::string> workloadFields(Mode mode)
{
    if (mode == Mode::Train)
        return {"global_batch", "micro_batch", "seq_len"};
    return {"prompt_len", "output_len", "request_rate", "slo", "batch"};
}

std::set<std::string> fieldsMissingFrom(const std::string &workloadText, Mode mode)
{
    const nlohmann::json json = nlohmann::json::parse(workloadText, nullptr, false);
    std::set<std::string> missing;
    for (const std::string &field : workloadFields(mode)) {
        // Fields with two spellings count as given when either is.
        const std::vector<std::string> spellings
            = field == "micro_batch" ? std::vector<std::string>{field, "micro_batch_candidates"}
              : field == "slo"       ? std::vector<std::string>{"slo_s", "slo_scale"}
                                     : std::vector<std::string>{field};
        bool given = false;
        for (const std::string &key : spellings)
            given = given || (json.is_object() && json.contains(key));
        if (!given)
            missing.insert(field);
    }
    return missing;
}

void printWorkload(std::ostream &out, const Workload &workload, const WorkloadOrigin &origin)
{
    out << "Workload (" << origin.source
        << "): " << (workload.mode == Mode::Train ? "train" : "infer");
    const std::vector<std::string> fields = workloadFields(workload.mode);
    const std::vector<std::string> values = valuesOf(workload);
    for (std::size_t f = 0; f < fields.size(); ++f)
        out << ", " << fields[f] << ' ' << values[f]
            << (origin.defaults.contains(fields[f]) ? " (default)" : "");
    out << '\n';
    for (const std::string &note : origin.notes)
        out << "  note: " << note << '\n';
}

nlohmann::json workloadToJson(const Workload &workload, const WorkloadOrigin &origin)
{
    nlohmann::json fields = nlohmann::json::object();
    const std::vector<std::string> names = workloadFields(workload.mode);
    const std::vector<std::string> values = valuesOf(workload);
    for (std::size_t f = 0; f < names.size(); ++f)
        fields[names[f]] = values[f];
    nlohmann::json defaults = nlohmann::json::array();
    for (const std::string &name : origin.defaults)
        defaults.push_back(name);
    return {{"mode", workload.mode == Mode::Train ? "train" : "infer"},
            {"source", origin.source},
            {"fields", fields},
            {"defaults", defaults},
            {"notes", origin.notes}};
}

} // namespace hetplan::cli
