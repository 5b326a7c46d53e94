// Plausibility of a probe's figures (docs/formats.md, "Probe") and the catalog type of a
// probed GPU.
#include "core/io/catalog_json.h"
#include "core/io/probe_file.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <vector>

namespace hetplan {
namespace {

// Measured figures scatter around the datasheet: clocks boost, datasheets round. Beyond this
// factor over the catalog a figure is a timing error, not a fast GPU.
constexpr double kPeakTolerance = 1.1;
// A larger message may take less time than a smaller one by noise (small messages on a busy
// host jitter by tens of percent); only a drop below half the smaller message's fastest
// repetition is flagged.
constexpr double kMonotoneTolerance = 0.5;

std::string number(double x)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.4g", x);
    return text;
}

class Checker
{
public:
    void positive(const std::string &path, const Spread &s)
    {
        if (s.min <= 0)
            add(path, "non-positive",
                "a repetition measured " + number(s.min) + "; every figure must be above 0");
    }

    void notAbove(const std::string &path, const Spread &s, double peak, std::string_view what)
    {
        if (s.median > kPeakTolerance * peak)
            add(path, "above-peak",
                "median " + number(s.median) + " is above " + number(kPeakTolerance) + "× the "
                    + std::string(what) + " (" + number(peak) + ")");
    }

    void gemms(const std::string &path, const std::vector<GemmFigure> &list, double peakTflops,
               const std::string &catalog)
    {
        for (std::size_t i = 0; i < list.size(); ++i) {
            const std::string at = path + "[" + std::to_string(i) + "].tflops";
            positive(at, list[i].tflops);
            if (peakTflops > 0)
                notAbove(at, list[i].tflops, peakTflops, "catalog's bf16 peak of " + catalog);
        }
    }

    void memory(const std::string &path, const std::optional<MemoryFigure> &m, double peakGBps,
                const std::string &catalog)
    {
        if (!m)
            return;
        positive(path + ".bandwidth_GBps", m->bandwidthGBps);
        if (peakGBps > 0)
            notAbove(path + ".bandwidth_GBps", m->bandwidthGBps, peakGBps,
                     "catalog's memory bandwidth of " + catalog);
    }

    void pair(const std::string &path, const ProbedPair &p)
    {
        for (std::size_t i = 0; i < p.sizes.size(); ++i) {
            const std::string at = path + ".sizes[" + std::to_string(i) + "]";
            positive(at + ".time_us", p.sizes[i].timeUs);
            positive(at + ".bandwidth_GBps", p.sizes[i].bandwidthGBps);
            if (i == 0)
                continue;
            const Spread &before = p.sizes[i - 1].timeUs;
            if (p.sizes[i].timeUs.median < kMonotoneTolerance * before.min)
                add(at + ".time_us", "not-monotone",
                    number(p.sizes[i].bytes) + " bytes took " + number(p.sizes[i].timeUs.median)
                        + " us, less than the fastest of " + number(p.sizes[i - 1].bytes)
                        + " bytes (" + number(before.min) + " us)");
        }
    }

    std::vector<PlausibilityFlag> flags;

private:
    void add(const std::string &path, std::string_view check, std::string message)
    {
        flags.push_back({path, std::string(check), std::move(message)});
    }
};

// A name in capitals without spaces and dashes ("RTX 4090" and "RTX4090" agree), and where a
// space or dash was taken out.
struct Squeezed
{
    std::string text;
    std::vector<bool> breakBefore; // per position of `text`, and one for its end

    explicit Squeezed(std::string_view name)
    {
        bool gap = false;
        for (char c : name) {
            if (std::isspace(static_cast<unsigned char>(c)) || c == '-') {
                gap = true;
                continue;
            }
            text += char(std::toupper(static_cast<unsigned char>(c)));
            breakBefore.push_back(gap);
            gap = false;
        }
        breakBefore.push_back(true);
    }

    // "A100" inside "NVIDIAA100SXM480GB", ending at a break or before a non-digit: "A10" is not
    // "A100", but "H100" is in "H100 80GB".
    bool names(const std::string &model) const
    {
        for (std::size_t at = text.find(model); at != std::string::npos;
             at = text.find(model, at + 1)) {
            const std::size_t end = at + model.size();
            if (breakBefore[end] || !std::isdigit(static_cast<unsigned char>(text[end])))
                return true;
        }
        return false;
    }
};

} // namespace

std::string catalogGpuFor(std::string_view deviceName, double memoryGiB)
{
    const Squeezed device(deviceName);
    const GpuType *best = nullptr;
    std::size_t bestModelChars = 0;
    double bestMemoryGap = 0;
    for (const GpuType &t : builtinGpuCatalog().all()) {
        const std::string model = Squeezed(t.name.substr(0, t.name.find('-'))).text;
        const std::string name = Squeezed(t.name).text;
        // Drivers report a little less than the nominal size (79.2 GiB for 80 GB).
        const double gap = std::abs(t.memoryGiB - memoryGiB) / t.memoryGiB;
        if (!device.names(model) || gap > 0.15)
            continue;
        const bool pcie = name.ends_with("PCIE");
        if (pcie && device.text.find("PCIE") == std::string::npos)
            continue;
        const std::size_t chars = model.size() + (pcie ? 4 : 0);
        if (!best || chars > bestModelChars || (chars == bestModelChars && gap < bestMemoryGap)) {
            best = &t;
            bestModelChars = chars;
            bestMemoryGap = gap;
        }
    }
    return best ? best->name : std::string();
}

std::vector<PlausibilityFlag> plausibilityFlags(const Probe &probe)
{
    Checker c;
    for (std::size_t h = 0; h < probe.hosts.size(); ++h) {
        const ProbedHost &host = probe.hosts[h];
        const std::string hostPath = "hosts[" + std::to_string(h) + "]";
        c.gemms(hostPath + ".cpu_gemm", host.cpuGemm, 0, {});
        c.memory(hostPath + ".cpu_memory", host.cpuMemory, 0, {});
        for (std::size_t g = 0; g < host.gpus.size(); ++g) {
            const ProbedGpu &gpu = host.gpus[g];
            const std::string gpuPath = hostPath + ".gpus[" + std::to_string(g) + "]";
            const GpuType *type
                = gpu.catalog.empty() ? nullptr : builtinGpuCatalog().find(gpu.catalog);
            c.gemms(gpuPath + ".gemm", gpu.gemm, type ? type->tflops : 0, gpu.catalog);
            c.memory(gpuPath + ".memory", gpu.memory, type ? type->memoryBandwidthGBps : 0,
                     gpu.catalog);
        }
    }
    for (std::size_t i = 0; i < probe.pairs.size(); ++i)
        c.pair("pairs[" + std::to_string(i) + "]", probe.pairs[i]);
    return c.flags;
}

std::vector<PlausibilityFlag> plausibilityFlags(const ProbedPair &pair, const std::string &path)
{
    Checker c;
    c.pair(path, pair);
    return c.flags;
}

void addPlausibilityFlags(Probe &probe)
{
    for (PlausibilityFlag &f : plausibilityFlags(probe)) {
        const bool known = std::ranges::any_of(probe.flags, [&](const PlausibilityFlag &g) {
            return g.path == f.path && g.check == f.check;
        });
        if (!known)
            probe.flags.push_back(std::move(f));
    }
}

} // namespace hetplan
