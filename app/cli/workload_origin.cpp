#include "app/cli/workload_origin.h"

namespace hetplan::cli {

void printWorkload(std::ostream &out, const Workload &workload, const WorkloadOrigin &origin)
{
    out << "Workload (" << origin.source
        << "): " << (workload.mode == Mode::Train ? "train" : "infer");
    const std::span<const WorkloadField> fields = workloadFields(workload.mode);
    const std::vector<std::string> values = workloadFieldTexts(workload);
    for (std::size_t f = 0; f < fields.size(); ++f)
        out << ", " << workloadFieldName(fields[f]) << ' ' << values[f]
            << (origin.defaults.contains(fields[f]) ? " (default)" : "");
    out << '\n';
    for (const std::string &note : origin.notes)
        out << "  note: " << note << '\n';
}

} // namespace hetplan::cli
