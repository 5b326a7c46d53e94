#include "app/cli/report.h"

#include "core/base/text.h"
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

// Pads to `width` characters as a terminal shows them: UTF-8 continuation bytes take no
// column (layer ranges carry an en dash).
std::string padRight(std::string text, size_t width)
{
    const auto columns = size_t(std::count_if(text.begin(), text.end(), [](char c) {
        return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    }));
    if (columns < width)
        text.append(width - columns, ' ');
    return text;
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

void printBreakdownRow(std::ostream &out, const char *name, double seconds, double total)
{
    const double share = total > 0 ? 100.0 * seconds / total : 0;
    out << "    " << padRight(name, 10) << padRight(formatSeconds(seconds), 12)
        << format("%5.1f %%", share) << '\n';
}

} // namespace

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
    if (magnitude >= 1 || magnitude == 0)
        return format("%.3f s", seconds);
    if (magnitude >= 1e-3)
        return format("%.2f ms", seconds * 1e3);
    return format("%.2f us", seconds * 1e6);
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
    out << '\n'
        << (training ? "Iteration " : "Latency (slowest replica) ")
        << formatSeconds(evaluation.iterationS) << "   MFU "
        << format("%.1f %%", 100 * evaluation.mfu) << "   " << format("%.0f", evaluation.tokensPerS)
        << " tokens/s";
    if (evaluation.costPerIterationUsd)
        out << "   " << format("$%.4f", *evaluation.costPerIterationUsd)
            << (training ? " per iteration" : " per batch");
    if (evaluation.costPerMillionTokensUsd)
        out << "   " << format("$%.2f", *evaluation.costPerMillionTokensUsd) << " per 1M tokens";
    out << "\n\n  Breakdown" << (training ? " (critical pipeline)" : " (slowest replica)") << '\n';
    const Breakdown &b = evaluation.breakdown;
    const double total = b.totalS();
    printBreakdownRow(out, "compute", b.computeS, total);
    printBreakdownRow(out, "TP comm", b.tpCommS, total);
    printBreakdownRow(out, "PP comm", b.ppCommS, total);
    if (training) {
        printBreakdownRow(out, "DP comm", b.dpCommS, total);
        printBreakdownRow(out, "bubble", b.bubbleS, total);
    }

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
