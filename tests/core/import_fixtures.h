#pragma once

// Measurement outputs the import tests read, generated here in the documented formats
// (docs/import.md) from chosen link figures, so each test knows what the import must recover:
// nccl-tests logs in the current and the old column layout, with -I statistics columns or a
// timestamp column; nvbandwidth matrices; `nvidia-smi topo -m` matrices; probe files.

#include "core/import/nccl_tests.h"
#include "core/io/probe_file.h"

#include <cstdio>
#include <string>
#include <vector>

namespace hetplan::fixtures {

enum class LogLayout {
    Current,    // root and #wrong columns (nccl-tests 2.13 and later)
    Old,        // no root, "error" instead of #wrong, rank lines without Group
    Statistics, // -I: per-iteration statistics columns after each time
    Timestamps, // a timestamp column after the in-place group
};

struct LogRank
{
    std::string host;
    int device = 0;
    std::string name = "NVIDIA H100 80GB HBM3";
};

struct LogSpec
{
    std::string collective = "all_reduce"; // as in "<collective>_perf"
    std::vector<LogRank> ranks;
    double busBwGBps = 100; // the link's bandwidth
    double latencyUs = 5;   // per ring step
    LogLayout layout = LogLayout::Current;
    double minBytes = 8;
    double maxBytes = 1 << 30;
    bool startLine = true; // "# Collective test starting: …"
};

inline std::string printed(const char *format, double value)
{
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, format, value);
    return buffer;
}

inline std::string padded(const std::string &text, std::size_t width)
{
    return text.size() >= width ? " " + text : std::string(width - text.size(), ' ') + text;
}

// One row's placement: time, (statistics), algbw, busbw, wrong.
inline std::string placement(const LogSpec &spec, double bytes, double factor, int steps,
                             double slowdown)
{
    const double timeUs
        = (steps * spec.latencyUs + bytes * factor / (spec.busBwGBps * 1e3)) * slowdown;
    const double algBw = bytes / timeUs / 1e3;
    std::string out = padded(printed("%.2f", timeUs), 9);
    if (spec.layout == LogLayout::Statistics)
        out += padded(printed("%.2f", timeUs * 0.97), 9) + padded(printed("%.2f", timeUs * 1.05), 9)
               + padded(printed("%.3f", 0.012), 7);
    out += padded(printed("%.2f", algBw), 8) + padded(printed("%.2f", algBw * factor), 8);
    out += spec.layout == LogLayout::Old ? padded("0e+00", 7) : padded("0", 7);
    return out;
}

inline std::string ncclLog(const LogSpec &spec)
{
    const int n = int(spec.ranks.size());
    const std::string perf = spec.collective + "_perf";
    const double factor
        = busBwFactor(spec.collective == "all_gather"       ? NcclCollective::AllGather
                      : spec.collective == "reduce_scatter" ? NcclCollective::ReduceScatter
                      : spec.collective == "sendrecv"       ? NcclCollective::SendRecv
                      : spec.collective == "broadcast"      ? NcclCollective::Broadcast
                      : spec.collective == "alltoall"       ? NcclCollective::AllToAll
                                                            : NcclCollective::AllReduce,
                      n);
    const int steps = spec.collective == "all_reduce"                                  ? 2 * (n - 1)
                      : spec.collective == "sendrecv" || spec.collective == "alltoall" ? 1
                                                                                       : n - 1;
    const bool old = spec.layout == LogLayout::Old;
    std::string log;
    if (!old)
        log += "# nccl-tests version 2.19.6 nccl-headers=22703 nccl-library=22703\n";
    if (spec.startLine && !old)
        log += "# Collective test starting: " + perf + "\n";
    log += "# nThread 1 nGpus 1 minBytes " + printed("%.0f", spec.minBytes) + " maxBytes "
           + printed("%.0f", spec.maxBytes)
           + " step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n";
    log += "#\n# Using devices\n";
    for (int r = 0; r < n; ++r) {
        const LogRank &rank = spec.ranks[std::size_t(r)];
        char line[256];
        if (old)
            std::snprintf(line, sizeof line,
                          "#   Rank %2d Pid %6d on %10s device %2d [0x%02x] %s\n", r, 4000 + r,
                          rank.host.c_str(), rank.device, 0x10 + rank.device, rank.name.c_str());
        else
            std::snprintf(line, sizeof line,
                          "#  Rank %2d Group  0 Pid %6d on %10s device %2d [%04x:%02x:%02x] %s\n",
                          r, 4000 + r, rank.host.c_str(), rank.device, 0, 0x10 + rank.device, 0,
                          rank.name.c_str());
        log += line;
        if (!old && r == 0)
            log += "gpu-noise:4000:4000 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n";
    }
    log += "#\n";
    const std::string stats
        = spec.layout == LogLayout::Statistics ? "      min      max     cv" : "";
    const std::string wrong = old ? "  error" : " #wrong";
    const std::string group = "     time" + stats + "   algbw   busbw" + wrong;
    log += "#                                                 out-of-place                 "
           "      in-place\n";
    log += "#       size         count      type   redop" + std::string(old ? "" : "    root")
           + group + group + (spec.layout == LogLayout::Timestamps ? "  timestamp" : "") + "\n";
    log += "#        (B)    (elements)                  " + std::string(old ? "" : "        ")
           + "     (us)  (GB/s)  (GB/s)\n";
    int row = 0;
    for (double bytes = spec.minBytes; bytes <= spec.maxBytes; bytes *= 2, ++row) {
        std::string line = padded(printed("%.0f", bytes), 12)
                           + padded(printed("%.0f", bytes / 4), 14) + padded("float", 10)
                           + padded("sum", 8);
        if (!old)
            line += padded("-1", 8);
        line += placement(spec, bytes, factor, steps, 1.0);
        line += placement(spec, bytes, factor, steps, 1.01);
        if (spec.layout == LogLayout::Timestamps)
            line += "  2026-11-25T03:00:" + printed("%02.0f", double(row % 60));
        log += line + "\n";
    }
    log += "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 42.0\n#\n";
    if (!old)
        log += "# Collective test concluded: " + perf + "\n";
    return log;
}

// nvbandwidth's one-way device-to-device read test over `gbps[i][j]` (negative: N/A).
inline std::string nvbandwidthOutput(const std::vector<std::vector<double>> &gbps,
                                     const std::string &device = "NVIDIA H100 80GB HBM3")
{
    std::string out = "nvbandwidth Version: v0.7\nBuilt from Git version: v0.7\n\n"
                      "CUDA Runtime Version: 12040\nCUDA Driver Version: 12040\n"
                      "Driver Version: 550.54.15\n\n";
    for (std::size_t i = 0; i < gbps.size(); ++i)
        out += "Device " + std::to_string(i) + ": " + device
               + " (00000000:" + std::to_string(17 + i) + ":00)\n";
    const auto matrix = [&](const std::string &testcase, const std::string &title) {
        std::string m = "\nRunning " + testcase + ".\n" + title + "\n          ";
        for (std::size_t j = 0; j < gbps.size(); ++j)
            m += padded(std::to_string(j), 10);
        m += "\n";
        double sum = 0;
        for (std::size_t i = 0; i < gbps.size(); ++i) {
            m += padded(std::to_string(i), 10);
            for (std::size_t j = 0; j < gbps.size(); ++j) {
                const double v = gbps[i][j];
                m += padded(i == j || v < 0 ? std::string("N/A") : printed("%.2f", v), 10);
                sum += i == j || v < 0 ? 0 : v;
            }
            m += "\n";
        }
        return m + "\nSUM " + testcase + " " + printed("%.2f", sum) + "\n";
    };
    out += matrix("device_to_device_memcpy_read_ce",
                  "memcpy CE GPU(row) <- GPU(column) bandwidth (GB/s)");
    out += matrix("device_to_device_bidirectional_memcpy_read_ce",
                  "memcpy CE GPU(row) <-> GPU(column) bandwidth (GB/s)");
    return out;
}

// `nvidia-smi topo -m` over `cells` (a square GPU matrix, "X" on the diagonal) and one NIC
// next to GPU0, tab-separated as the tool prints it.
inline std::string topoMatrix(const std::vector<std::vector<std::string>> &cells)
{
    const std::size_t n = cells.size();
    std::string out = "\t";
    for (std::size_t i = 0; i < n; ++i)
        out += "GPU" + std::to_string(i) + "\t";
    out += "NIC0\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n";
    for (std::size_t i = 0; i < n; ++i) {
        out += "GPU" + std::to_string(i);
        for (const std::string &cell : cells[i])
            out += "\t " + cell;
        out += "\t ";
        out += i == 0 ? "PIX" : "SYS";
        out += "\t0-31\t0\t\tN/A\n";
    }
    out += "NIC0";
    for (std::size_t i = 0; i < n; ++i) {
        out += "\t ";
        out += i == 0 ? "PIX" : "SYS";
    }
    out += "\t X\n\nLegend:\n\n  X    = Self\n  SYS  = Connection traversing PCIe as well as the "
           "SMP interconnect between NUMA nodes (e.g., QPI/UPI)\n  NV#  = Connection traversing "
           "a bonded set of # NVLinks\n\nNIC Legend:\n\n  NIC0: mlx5_0\n";
    return out;
}

inline Spread spread(double median)
{
    return {10, median, median * 0.95, median * 1.05};
}

// A sweep between two endpoints that t(S) = latency + S / bandwidth describes.
inline ProbedPair probedPair(Endpoint a, Endpoint b, std::string method, double bandwidthGBps,
                             double latencyUs)
{
    ProbedPair p;
    p.a = std::move(a);
    p.b = std::move(b);
    p.method = std::move(method);
    for (double bytes : {4.0, 65536.0, 16777216.0, 67108864.0}) {
        const double t = latencyUs + bytes / (bandwidthGBps * 1e3);
        p.sizes.push_back({bytes, spread(t), spread(bytes / t / 1e3)});
    }
    summarizePair(p);
    return p;
}

inline std::vector<GemmFigure> layerGemms(std::string dtype, std::string method, double tflops)
{
    return {{"qkv", 1024, 12288, 4096, dtype, method, spread(tflops)},
            {"mlp_up", 1024, 22016, 4096, dtype, method, spread(tflops)}};
}

// A CPU rank of the probe (Gloo), and a GPU host (CUDA) of H100s; a probe file of them.
inline ProbedHost cpuRank(const std::string &name, int rank, double tflops)
{
    ProbedHost h;
    h.name = name;
    h.rank = rank;
    h.backend = BackendKind::Gloo;
    h.cpuModel = "Intel Xeon Gold 6348";
    h.cpuCores = 8;
    h.blasThreads = 1;
    h.cpuGemm = layerGemms("fp32", "openblas-sgemm", tflops);
    h.cpuMemory = MemoryFigure{"cpu-triad", 128, spread(20)};
    h.noGpuReason = "built without CUDA";
    return h;
}

inline ProbedHost gpuHost(const std::string &name, int rank, int gpus, double tflops)
{
    ProbedHost h = cpuRank(name, rank, 0.2);
    h.backend = BackendKind::Cuda;
    h.noGpuReason.clear();
    for (int i = 0; i < gpus; ++i) {
        ProbedGpu g;
        g.index = i;
        g.name = "NVIDIA H100 80GB HBM3";
        g.catalog = "H100-80G";
        g.memoryGiB = 79.1;
        g.smCount = 132;
        g.gemm = layerGemms("bf16", "cublas-gemmex", tflops);
        g.memory = MemoryFigure{"cuda-triad", 256, spread(3000)};
        h.gpus.push_back(g);
    }
    return h;
}

inline Probe probeOf(std::vector<ProbedHost> hosts, std::vector<ProbedPair> pairs)
{
    Probe p;
    p.settings = {"llama2-7b", 1, 1024, 1, 10, false};
    p.hosts = std::move(hosts);
    p.pairs = std::move(pairs);
    return p;
}

} // namespace hetplan::fixtures
