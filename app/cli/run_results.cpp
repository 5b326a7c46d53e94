#include "app/cli/run_results.h"

#include "core/io/files.h"
#include "core/io/measurement_json.h"

#include <iomanip>

namespace hetplan::cli {

Result<Measurement> mergeRankResults(const std::vector<std::string> &paths)
{
    std::vector<Measurement> parts;
    for (const std::string &path : paths) {
        auto text = readTextFile(path);
        if (!text)
            return Error{ErrorKind::Internal, "a rank left no result: " + text.error().message};
        auto part = parseMeasurement(*text, path);
        if (!part)
            return Error{ErrorKind::Internal, part.error().message};
        parts.push_back(std::move(part).value());
    }
    return mergeRankMeasurements(std::move(parts));
}

void printMeasurement(std::ostream &out, const Measurement &m)
{
    const auto flags = out.flags();
    out << std::fixed;
    for (std::size_t i = 0; i < m.iterations.size(); ++i) {
        const MeasuredIteration &it = m.iterations[i];
        out << "iteration " << i + 1 << ": loss " << std::setprecision(6) << it.loss << ", "
            << std::setprecision(4) << it.iterationS << " s, " << std::setprecision(0)
            << it.tokensPerS << " tokens/s\n";
    }
    const Breakdown &b = m.breakdown;
    out << std::setprecision(4) << "measured iteration " << m.iterationS << " s ("
        << std::setprecision(0) << m.tokensPerS << " tokens/s); compute " << std::setprecision(4)
        << b.computeS << " s, tp_comm " << b.tpCommS << " s, pp_comm " << b.ppCommS
        << " s, dp_comm " << b.dpCommS << " s, bubble " << b.bubbleS << " s\n";
    out.flags(flags);
}

Status writeMeasurementFile(const std::string &path, const Measurement &measurement)
{
    return writeFileAtomic(path, writeMeasurement(measurement));
}

} // namespace hetplan::cli
