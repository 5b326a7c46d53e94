#pragma once

#include "core/base/enum_names.h"
#include "core/model/measured_layer.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hetplan {

// How two endpoints are joined. Intra-machine links are NVLink or PCIe; network links and
// NICs are Ethernet, InfiniBand or RoCE (the distinction Holmes builds on).
enum class LinkKind { NvLink, Pcie, Ethernet, InfiniBand, Roce };
enum class NicKind { Ethernet, InfiniBand, Roce };

// As the cluster file spells them (docs/formats.md).
inline constexpr EnumName<LinkKind> kLinkKindNames[] = {
    {"nvlink", LinkKind::NvLink},     {"pcie", LinkKind::Pcie},
    {"ethernet", LinkKind::Ethernet}, {"infiniband", LinkKind::InfiniBand},
    {"roce", LinkKind::Roce},
};
inline constexpr EnumName<NicKind> kNicKindNames[] = {
    {"ethernet", NicKind::Ethernet}, {"infiniband", NicKind::InfiniBand}, {"roce", NicKind::Roce}};

// The link between the GPUs of one machine.
struct IntraLink
{
    LinkKind kind = LinkKind::Pcie;
    double bandwidthGBps = 16; // per direction, 1e9 bytes/s
    double latencyUs = 10;

    bool operator==(const IntraLink &) const = default;
};

// One GPU model: catalog entry or a cluster's own custom type.
struct GpuType
{
    std::string name;
    double tflops = 0;                     // peak dense bf16/fp16 tensor FLOP/s, 1e12
    double memoryGiB = 0;                  // device memory, 2^30 bytes
    double memoryBandwidthGBps = 0;        // HBM/GDDR bandwidth, 1e9 bytes/s
    IntraLink typicalIntra;                // what a box of these usually has between GPUs
    double achievedFraction = 0.55;        // achieved / peak tensor FLOPS in training GEMMs
    std::optional<double> pricePerHourUsd; // rental price of one GPU-hour
    std::string accumulate;                // "fp32" or "fp16": which accumulate rate tflops is
    std::string source;                    // where the figures come from
    // Layers timed by hetplan-probe (import); compute where one matches a stage.
    std::vector<MeasuredLayerTable> measuredLayers;
    // How many times faster than its measured layer tables this type computes (calibration's
    // figure for a table's compute, docs/cost-models.md "Measured layers"); 1 as measured.
    double computeScale = 1;

    bool operator==(const GpuType &) const = default;
};

// The range of GpuType::computeScale, in the cluster file and in calibration.
inline constexpr double kMinComputeScale = 0.2;
inline constexpr double kMaxComputeScale = 5;

// `import` names the type of CPU ranks "CPU <cpu model>" (docs/import.md); a run on the CPU
// backend exercises these types only, a GPU run every other.
inline constexpr std::string_view kCpuTypePrefix = "CPU ";
inline bool isCpuType(const GpuType &type)
{
    return type.name.starts_with(kCpuTypePrefix);
}

} // namespace hetplan
