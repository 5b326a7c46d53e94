#include "app/cli/measured_report.h"

#include "app/cli/report.h"

#include <cmath>
#include <iomanip>
#include <sstream>

namespace hetplan::cli {

std::string relativeErrorText(double relative)
{
    if (!std::isfinite(relative))
        return "-";
    std::ostringstream text;
    text << std::showpos << std::fixed << std::setprecision(0) << relative * 100 << " %";
    return text.str();
}

void printComparison(std::ostream &out, const Measurement &measured,
                     const std::vector<Comparison> &rows)
{
    out << "\nThe run as it trained ("
        << backendName(measured.run.backend, BackendSpelling::Measurement) << ", scale "
        << measured.run.scale << ", sequence " << measured.run.seqLen
        << "), predicted beside measured (mean of the timed iterations):\n";
    out << std::left << std::setw(18) << "" << std::right << std::setw(12) << "predicted"
        << std::setw(12) << "measured" << std::setw(10) << "error" << '\n';
    for (const Comparison &row : rows)
        out << std::left << std::setw(18) << labelOf(row.key) << std::right << std::setw(12)
            << formatSeconds(row.predicted) << std::setw(12) << formatSeconds(row.measured)
            << std::setw(10) << relativeErrorText(row.relativeError()) << '\n';
    if (measured.run.backend == BackendKind::Gloo)
        out << "note: the run used CPU ranks; the errors mean something only with a cluster\n"
               "      file describing them (hetplan-cli import of a CPU probe, then calibrate).\n";
}

} // namespace hetplan::cli
