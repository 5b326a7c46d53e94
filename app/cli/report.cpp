#include "app/cli/report.h"

#include "core/base/text.h"
#include "core/cost/prediction_interval.h"
#include "core/cost/problem.h"
#include "core/plan/estimate.h"
#include "core/plan/plan.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace hetplan::cli {
namespace {

std::string format(const char *fmt, double value)
{
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, fmt, value);
    return buffer;
}

std::string gpuList(const Problem &problem, const std::vector<int> &gpus)
{
    std::string text;
    for (int g : gpus) {
        if (!text.empty())
            text += ' ';
        text += g >= 0 && g < problem.topology.gpuCount() ? problem.topology.gpu(g).name : "?";
    }
    return text;
}

// How formatSeconds writes a duration of this size: the printf format and the unit.
struct TimeUnit
{
    double perS;
    const char *fmt;
    const char *name;
};

TimeUnit unitOf(double seconds)
{
    const double magnitude = std::abs(seconds);
    if (magnitude >= 1 || magnitude == 0)
        return {1, "%.3f", "s"};
    if (magnitude >= 1e-3)
        return {1e3, "%.2f", "ms"};
    return {1e6, "%.2f", "us"};
}

void printBreakdownRow(std::ostream &out, const char *name, double seconds, double total,
                       const PredictionInterval *interval, Phase phase)
{
    const double share = total > 0 ? 100.0 * seconds / total : 0;
    out << "    " << padRight(name, 10) << padRight(formatSeconds(seconds), 12)
        << format("%5.1f %%", share);
    if (interval && seconds > 0)
        out << "   " << formatRange(phaseInterval(*interval, phase));
    out << '\n';
}

std::string joinedNames(const std::vector<std::string> &names)
{
    std::string text;
    for (const std::string &name : names)
        text += (text.empty() ? "" : ", ") + name;
    return text;
}

} // namespace

namespace {

size_t terminalColumns(const std::string &text)
{
    return size_t(std::count_if(text.begin(), text.end(), [](char c) {
        return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    }));
}

} // namespace

std::string padRight(std::string text, size_t width)
{
    const size_t columns = terminalColumns(text);
    if (columns < width)
        text.append(width - columns, ' ');
    return text;
}

std::string padLeft(std::string text, size_t width)
{
    const size_t columns = terminalColumns(text);
    if (columns < width)
        text.insert(0, width - columns, ' ');
    return text;
}

std::vector<std::string> firstLines(const std::vector<std::string> &lines)
{
    if (lines.size() <= kShownErrors)
        return lines;
    std::vector<std::string> shown(lines.begin(), lines.begin() + std::ptrdiff_t(kShownErrors));
    shown.push_back("... and " + std::to_string(lines.size() - kShownErrors) + " more");
    return shown;
}

std::string formatSeconds(double seconds)
{
    if (!std::isfinite(seconds))
        return "inf";
    const double magnitude = std::abs(seconds);
    if (magnitude >= 1e6)
        return format("%.3g s", seconds); // no wall of digits for an absurd figure
    const TimeUnit unit = unitOf(seconds);
    std::string text = format(unit.fmt, seconds * unit.perS);
    text += ' ';
    text += unit.name;
    return text;
}

std::string formatRange(const TimeInterval &interval)
{
    const TimeUnit unit = unitOf(interval.hiS);
    std::string text = format(unit.fmt, interval.loS * unit.perS);
    text += "–";
    text += format(unit.fmt, interval.hiS * unit.perS);
    text += ' ';
    text += unit.name;
    return text;
}

std::string formatWithInterval(double centreS, const PredictionInterval &interval)
{
    std::string text = formatSeconds(centreS);
    if (!std::isfinite(centreS) || std::abs(centreS) >= 1e6)
        return text;
    const TimeInterval &range = interval.iteration;
    const double upS = range.hiS - centreS;
    const double downS = centreS - range.loS;
    const std::string level = format("%.0f %%", 100 * interval.confidence);
    // Within a tenth of each other, the larger side stands for both.
    if (std::abs(upS - downS) <= 0.1 * std::max(upS, downS)) {
        const TimeUnit unit = unitOf(centreS);
        text += " ± ";
        text += format(unit.fmt, std::max(upS, downS) * unit.perS);
        text += " (" + level + ")";
        return text;
    }
    text += " (";
    text += level;
    text += ": ";
    text += formatRange(range);
    text += ")";
    return text;
}

std::string extrapolationText(const PredictionInterval &interval)
{
    std::string text;
    if (!interval.extrapolatedGpuTypes.empty())
        text += (interval.extrapolatedGpuTypes.size() == 1 ? "GPU type " : "GPU types ")
                + joinedNames(interval.extrapolatedGpuTypes);
    if (!interval.extrapolatedLinks.empty()) {
        text += text.empty() ? "" : "; ";
        text += (interval.extrapolatedLinks.size() == 1 ? "link class " : "link classes ")
                + joinedNames(interval.extrapolatedLinks);
    }
    return text;
}

void printPlan(std::ostream &out, const Problem &problem, const Plan &plan)
{
    const bool training = plan.workload.mode == Mode::Train;
    out << "Plan: " << plan.model << " on " << plan.cluster << "  (planner " << plan.planner
        << ", cost model " << plan.costModel << ")\n";
    for (size_t p = 0; p < plan.pipelines.size(); ++p) {
        const Pipeline &pipeline = plan.pipelines[p];
        out << "\n  " << (training ? "Pipeline " : "Replica ") << p;
        if (training)
            out << ": " << pipeline.microBatches << " micro-batches of " << pipeline.microBatch;
        else
            out << ": batch " << pipeline.microBatch;
        out << "\n    " << padRight("", 9) << padRight("layers", 22) << padRight("TP", 4)
            << padRight("DP", 4) << "GPUs\n";
        for (size_t s = 0; s < pipeline.stages.size(); ++s) {
            const Stage &stage = pipeline.stages[s];
            out << "    " << padRight(stageLabel(int(s)), 9)
                << padRight(layerRangeText(stage.layerBegin, stage.layerEnd), 22)
                << padRight(std::to_string(stage.tp), 4) << padRight(std::to_string(stage.dp), 4)
                << gpuList(problem, stage.gpus) << '\n';
        }
    }
}

void printEvaluation(std::ostream &out, const Problem &problem, const Evaluation &evaluation)
{
    const bool training = problem.workload.mode == Mode::Train;
    const PredictionInterval *interval = evaluation.interval ? &*evaluation.interval : nullptr;
    out << '\n'
        << (training ? "Iteration " : "Latency (slowest replica) ")
        << (interval ? formatWithInterval(evaluation.iterationS, *interval)
                     : formatSeconds(evaluation.iterationS))
        << "   MFU " << format("%.1f %%", 100 * evaluation.mfu) << "   "
        << format("%.0f", evaluation.tokensPerS) << " tokens/s";
    if (evaluation.costPerIterationUsd)
        out << "   " << format("$%.4f", *evaluation.costPerIterationUsd)
            << (training ? " per iteration" : " per batch");
    if (evaluation.costPerMillionTokensUsd)
        out << "   " << format("$%.2f", *evaluation.costPerMillionTokensUsd) << " per 1M tokens";
    out << "\n\n  Breakdown" << (training ? " (critical pipeline)" : " (slowest replica)") << '\n';
    const Breakdown &b = evaluation.breakdown;
    const double total = b.totalS();
    printBreakdownRow(out, "compute", b.computeS, total, interval, Phase::Compute);
    printBreakdownRow(out, "TP comm", b.tpCommS, total, interval, Phase::TpComm);
    printBreakdownRow(out, "PP comm", b.ppCommS, total, interval, Phase::PpComm);
    if (training) {
        printBreakdownRow(out, "DP comm", b.dpCommS, total, interval, Phase::DpComm);
        printBreakdownRow(out, "bubble", b.bubbleS, total, interval, Phase::Bubble);
    }
    if (interval && interval->extrapolates())
        out << "\n  Extrapolates: " << extrapolationText(*interval)
            << " (catalog figures only, nothing measured); the interval is the catalog's wide "
               "default (docs/cost-models.md, \"Prediction intervals\")\n";

    const auto gpuName = [&problem](int gpu) {
        return gpu >= 0 && gpu < problem.topology.gpuCount() ? problem.topology.gpu(gpu).name
                                                             : std::string("?");
    };
    size_t nameWidth = 12; // "machine:index" of long machine names needs more
    for (const GpuMemory &m : evaluation.memory)
        nameWidth = std::max(nameWidth, gpuName(m.gpu).size() + 2);
    out << "\n  Memory per GPU\n    " << padRight("GPU", nameWidth) << padRight("used", 12)
        << "capacity\n";
    for (const GpuMemory &m : evaluation.memory) {
        out << "    " << padRight(gpuName(m.gpu), nameWidth)
            << padRight(format("%.1f GiB", m.usedGiB), 12) << format("%.1f GiB", m.capacityGiB)
            << (m.fits() ? "" : "   OVER CAPACITY") << '\n';
    }
    for (const std::string &error : firstLines(evaluation.errors))
        out << "  ! " << error << '\n';
    if (evaluation.serving)
        printServing(out, *evaluation.serving);
}

void printServing(std::ostream &out, const ServingFigures &s)
{
    out << "\n  Serving (Poisson arrivals at " << format("%g", s.requestRatePerS)
        << " requests/s, SLO " << formatSeconds(s.sloS);
    if (s.referenceLatencyS > 0)
        out << " = " << format("%g", s.sloS / s.referenceLatencyS) << " x "
            << formatSeconds(s.referenceLatencyS) << " on 4x A100-40G";
    out << ")\n";
    out << "    " << padRight("SLO attainment", 26) << format("%.1f %%", 100 * s.attainment)
        << '\n';
    out << "    " << padRight("latency p50 / p99", 26) << formatSeconds(s.p50S) << " / "
        << formatSeconds(s.p99S) << '\n';
    out << "    " << padRight("max sustainable rate", 26) << format("%.3f", s.maxRatePerS)
        << " requests/s at " << format("%.0f %%", 100 * s.targetAttainment) << " attainment\n";
}

} // namespace hetplan::cli
