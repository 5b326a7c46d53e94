#include "core/launch/preflight_report.h"

#include <algorithm>
#include <cstdio>

namespace hetplan {

namespace {

std::string membersText(const PreflightRow &row)
{
    if (row.isHop())
        return row.fromGpu + " -> " + row.toGpu;
    std::string text;
    for (const PreflightMember &m : row.members)
        text += (text.empty() ? "" : ",") + m.gpu;
    return text;
}

std::string printed(const char *format, double value)
{
    char text[64];
    std::snprintf(text, sizeof text, format, value);
    return text;
}

std::string gbpsText(std::optional<double> bytesPerS)
{
    return bytesPerS ? printed("%.4g GB/s", *bytesPerS / 1e9) : std::string("-");
}

std::string msText(std::optional<double> seconds)
{
    return seconds ? printed("%.3g ms", *seconds * 1e3) : std::string("-");
}

std::string bytesText(double bytes)
{
    if (bytes >= 1024.0 * 1024.0)
        return printed("%.3g MiB", bytes / (1024.0 * 1024.0));
    return printed("%.3g KiB", bytes / 1024.0);
}

std::string padded(std::string text, std::size_t width)
{
    if (text.size() < width)
        text.append(width - text.size(), ' ');
    return text + "  ";
}

} // namespace

const char *verdictName(PreflightVerdict verdict)
{
    switch (verdict) {
    case PreflightVerdict::Ok:
        return "ok";
    case PreflightVerdict::Slow:
        return "slow";
    case PreflightVerdict::Hung:
        return "hung";
    case PreflightVerdict::Failed:
        return "failed";
    }
    return "failed";
}

void judgeMeasured(PreflightRow &row)
{
    row.verdict = PreflightVerdict::Ok;
    row.slowBy = 1;
    if (!row.achievedBytesPerS || row.assumedBytesPerS <= 0)
        return;
    if (*row.achievedBytesPerS < kPreflightSlowFraction * row.assumedBytesPerS) {
        row.verdict = PreflightVerdict::Slow;
        row.slowBy = row.assumedBytesPerS / std::max(*row.achievedBytesPerS, 1.0);
    }
}

int preflightExitCode(const PreflightReport &report)
{
    bool slow = false;
    for (const PreflightRow &row : report.rows) {
        if (row.verdict == PreflightVerdict::Hung || row.verdict == PreflightVerdict::Failed)
            return kPreflightBrokenExit;
        slow = slow || row.verdict == PreflightVerdict::Slow;
    }
    if (!report.jobError.empty())
        return kPreflightBrokenExit;
    return slow ? kPreflightSlowExit : 0;
}

std::string verdictText(const PreflightRow &row)
{
    switch (row.verdict) {
    case PreflightVerdict::Ok:
        return "ok";
    case PreflightVerdict::Slow:
        return printed("slow by %.3g", row.slowBy) + "\u00d7";
    case PreflightVerdict::Hung:
        return "hung: " + row.detail;
    case PreflightVerdict::Failed:
        return "failed: " + row.detail;
    }
    return {};
}

std::string preflightTable(const PreflightReport &report)
{
    constexpr std::size_t kGroup = 22;
    constexpr std::size_t kKind = 4;
    constexpr std::size_t kMembers = 18;
    constexpr std::size_t kTransport = 9;
    constexpr std::size_t kNumber = 13;
    std::string text = padded("group", kGroup) + padded("kind", kKind) + padded("members", kMembers)
                       + padded("transport", kTransport) + padded("message", 10)
                       + padded("achieved", kNumber) + padded("latency", 10)
                       + padded("assumed", kNumber) + padded("assumed lat", 11) + "verdict\n";
    for (const PreflightRow &row : report.rows) {
        text += padded(row.group, kGroup) + padded(row.kind, kKind)
                + padded(membersText(row), kMembers)
                + padded(row.transport.empty() ? std::string("-") : row.transport, kTransport)
                + padded(bytesText(row.messageBytes), 10)
                + padded(gbpsText(row.achievedBytesPerS), kNumber)
                + padded(msText(row.latencyS), 10) + padded(gbpsText(row.assumedBytesPerS), kNumber)
                + padded(msText(row.assumedLatencyS), 11) + verdictText(row) + "\n";
    }
    text += printed("pre-flight took %.1f s", report.wallS);
    if (!report.jobError.empty())
        text += "; the job failed: " + report.jobError;
    return text + "\n";
}

} // namespace hetplan
