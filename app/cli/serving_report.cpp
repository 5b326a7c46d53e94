#include "app/cli/serving_report.h"

#include "app/cli/measured_report.h"
#include "app/cli/report.h"
#include "core/cost/cost_model.h"
#include "core/plan/plan.h"

#include <cmath>
#include <iomanip>
#include <sstream>

namespace hetplan::cli {
namespace {

constexpr size_t kLabelColumns = 26;
constexpr size_t kFigureColumns = 12;
constexpr size_t kIntervalColumns = 22;

std::string percentText(double fraction)
{
    std::ostringstream text;
    text << std::fixed << std::setprecision(1) << fraction * 100 << " %";
    return text.str();
}

// A simulated figure with its 90 % interval beside the measured one; "*" marks a measured figure
// outside the interval.
void printRow(std::ostream &out, const std::string &label, const SimulatedBeside &row,
              bool seconds = true)
{
    const auto value = [seconds](double v) { return seconds ? formatSeconds(v) : percentText(v); };
    const std::string interval = seconds ? formatRange({row.low, row.high})
                                         : percentText(row.low) + "–" + percentText(row.high);
    out << padRight(label, kLabelColumns) << padLeft(value(row.simulated), kFigureColumns)
        << padLeft(interval, kIntervalColumns) << padLeft(value(row.measured), kFigureColumns)
        << padLeft(relativeErrorText(row.relativeError()), 11) << (row.measuredInside() ? "" : " *")
        << '\n';
}

} // namespace

void printServingPhases(std::ostream &out, const ServingPhases &phases)
{
    out << "\nPer replica, the phases of its latency (one prompt's prefill; one decode step "
           "per token;\nthe 90 % interval of the prefill and of one sequence's step):\n";
    const bool batched = phases.batch > 1;
    out << std::left << std::setw(12) << "" << std::right << std::setw(12) << "prefill"
        << std::setw(14) << "1 sequence";
    if (batched)
        out << std::setw(14) << (std::to_string(phases.batch) + " sequences");
    out << '\n';
    for (std::size_t i = 0; i < phases.replicas.size(); ++i) {
        const ReplicaPhases &r = phases.replicas[i];
        out << std::left << std::setw(12) << ("replica " + std::to_string(i)) << std::right;
        if (!r.fits || r.prefillS.empty() || r.decodeSPerToken.empty()) {
            out << std::setw(12) << "-"
                << "  (does not fit in memory)\n";
            continue;
        }
        out << std::setw(12) << formatSeconds(r.prefillS.front().second) << std::setw(14)
            << formatSeconds(r.decodeSPerToken.front());
        if (batched)
            out << std::setw(14) << formatSeconds(r.decodeSPerToken.back());
        const double prefillS = r.prefillS.front().second;
        const double decodeS = r.decodeSPerToken.front();
        out << "   90 %: " << formatRange({prefillS * r.lowFactor, prefillS * r.highFactor}) << ", "
            << formatRange({decodeS * r.lowFactor, decodeS * r.highFactor}) << '\n';
    }
}

void printServingInterval(std::ostream &out, const ServingFiguresInterval &interval)
{
    const ServingFigures &low = interval.low;
    const ServingFigures &high = interval.high;
    out << "    " << padRight("90 % interval", 26) << "latency p50 "
        << formatRange({low.p50S, high.p50S}) << ", p99 " << formatRange({low.p99S, high.p99S})
        << ", SLO attainment " << percentText(high.attainment) << "–" << percentText(low.attainment)
        << '\n';
}

void printServingComparison(std::ostream &out, const ServingMeasurement &measured,
                            const ServingComparison &comparison)
{
    const ServingRun &run = measured.run;
    const ServingSummary &summary = measured.summary;
    out << "\nThe serving run (" << backendName(run.backend, BackendSpelling::Measurement)
        << ", scale " << run.scale << ", batch " << run.batch << ", "
        << (run.traceFile.empty() ? "Poisson arrivals, seed " + std::to_string(run.seed)
                                  : "trace " + run.traceFile)
        << "), simulated beside measured for the same requests:\n";
    out << "  " << summary.requests << " requests: " << summary.completed << " completed, "
        << summary.failed << " failed; the first " << summary.warmup
        << " are warm-up, left out of the figures below\n";
    out << padRight("", kLabelColumns) << padLeft("simulated", kFigureColumns)
        << padLeft("90 % interval", kIntervalColumns) << padLeft("measured", kFigureColumns)
        << padLeft("error", 11) << '\n';
    for (const ReplicaServingComparison &r : comparison.replicas) {
        const std::string name = "replica " + std::to_string(r.replica);
        printRow(out, name + " prefill", r.prefillS);
        printRow(out, name + " per token", r.tpotS);
        printRow(out, name + " queueing", r.queueS);
    }
    printRow(out, "time to first token p50", comparison.ttftP50S);
    printRow(out, "time to first token p90", comparison.ttftP90S);
    printRow(out, "time to first token p99", comparison.ttftP99S);
    printRow(out, "per output token p50", comparison.tpotP50S);
    printRow(out, "per output token p90", comparison.tpotP90S);
    printRow(out, "per output token p99", comparison.tpotP99S);
    printRow(out, "latency p50", comparison.latencyP50S);
    printRow(out, "latency p90", comparison.latencyP90S);
    printRow(out, "latency p99", comparison.latencyP99S);
    printRow(out, "SLO attainment", comparison.attainment, false);
    out << "(90 % interval: the same requests with every replica's phases at the ends of their\n"
           " interval, docs/cost-models.md \"Prediction intervals\"; * marks a measured figure\n"
           " outside it)\n";
    for (const ServedReplica &r : measured.replicas)
        if (r.failed > 0)
            out << "replica " << r.replica << ": " << r.failed << " failed (" << r.failure << ")\n";
    if (run.backend == BackendKind::Gloo)
        out << "note: the run used CPU ranks; the errors mean something only with a cluster\n"
               "      file describing them (hetplan-cli import of a CPU probe, then calibrate).\n";
}

} // namespace hetplan::cli
