#pragma once

#include "core/model/calibration_record.h"
#include "core/model/gpu_type.h"
#include "core/model/transport_figures.h"

#include <optional>
#include <string>
#include <vector>

namespace hetplan {

// Where a node sits on the designer's canvas; not used by any computation.
struct CanvasPosition
{
    double x = 0;
    double y = 0;
    bool operator==(const CanvasPosition &) const = default;
};

struct Machine
{
    std::string name; // unique among machines and switches
    std::string gpu;  // GPU type name: a catalog entry or one of Cluster::gpuTypes
    int count = 1;    // GPUs in the machine; they are named "<name>:0" … "<name>:<count-1>"
    std::string host; // SSH host for launching; may be empty
    IntraLink intra;
    NicKind nic = NicKind::Ethernet;
    CanvasPosition position;

    bool operator==(const Machine &) const = default;
};

struct Switch
{
    std::string name;
    CanvasPosition position;
    bool operator==(const Switch &) const = default;
};

// A network link between two machines, two switches, or a machine and a switch.
struct Link
{
    std::string a;
    std::string b;
    LinkKind kind = LinkKind::Ethernet;
    double bandwidthGBps = 1;
    double latencyUs = 50;
    bool operator==(const Link &) const = default;
};

// A measured GPU pair (usually from a probe); wins over everything else for that pair.
struct PairOverride
{
    std::string a; // GPU name "machine:index"
    std::string b;
    double bandwidthGBps = 0;
    double latencyUs = 0;
    bool operator==(const PairOverride &) const = default;
};

// What measured a figure (docs/formats.md, Cluster, "origin"). Prediction intervals take their
// default width from it (docs/cost-models.md, "Prediction intervals").
enum class MeasuredBy {
    Unspecified, // written before the tool was recorded, or a tool without its own width
    Probe,       // hetplan-probe
    NcclTests,   // NCCL's collectives as nccl-tests logged them
    Calibration, // fitted by `hetplan-cli calibrate` to measured runs
};
inline constexpr EnumName<MeasuredBy> kMeasuredByNames[]
    = {{"unspecified", MeasuredBy::Unspecified},
       {"probe", MeasuredBy::Probe},
       {"nccl-tests", MeasuredBy::NcclTests},
       {"calibration", MeasuredBy::Calibration}};

// One figure of the cluster file that was measured rather than typed, and where it came from.
struct MeasuredFigure
{
    // JSON-pointer-like path in the cluster file: "/machines/A/intra/bandwidth_GBps",
    // "/gpu_types/X/achieved_fraction", "/links/A/B/latency_us" (nodes by name, not index).
    std::string field;
    std::string source; // "probe-a.json", "logs/all_reduce_perf.log:42"
    std::string how;    // "median of 10", "fit over sizes >= 64 MiB"
    MeasuredBy by = MeasuredBy::Unspecified;
    bool operator==(const MeasuredFigure &) const = default;
};

// How far a calibrated cluster's predictions stayed from the phase times it was fitted to, for
// one phase kind and what it ran on (docs/calibration.md, "Residuals"). Prediction intervals
// take their width from it (docs/cost-models.md, "Prediction intervals").
struct CalibrationResidual
{
    std::string phase;                // "compute", "tp_comm", "pp_comm", "dp_comm" or "bubble"
    std::string gpuType;              // compute: the stage's GPU type; else empty
    std::optional<LinkKind> linkKind; // communication: the link class it travelled; else empty
    double rmsLogError = 0;           // root mean square of ln(predicted / measured)
    int count = 0;                    // phase times it is taken over
    bool operator==(const CalibrationResidual &) const = default;
};

// What an imported or calibrated cluster was made from; empty for a drawn one.
struct ClusterOrigin
{
    std::vector<std::string> sources; // the files read, in order
    std::vector<MeasuredFigure> figures;
    std::vector<CalibrationResidual> residuals; // the last calibration's; empty before one
    bool empty() const { return sources.empty() && figures.empty() && residuals.empty(); }
    bool operator==(const ClusterOrigin &) const = default;
};

// The fleet as a person drew or imported it: plain data, exactly the cluster file's content.
// Derived facts (GPU list, pair bandwidths) live in Topology.
struct Cluster
{
    std::string name;
    std::string description; // free text, e.g. the paper section a reference cluster is from
    std::vector<Machine> machines;
    std::vector<Switch> switches;
    std::vector<Link> links;
    std::vector<GpuType> gpuTypes; // custom types; they shadow catalog entries of the same name
    std::vector<PairOverride> pairOverrides;
    // Per-kind figures of the `hetplan` model that replace the catalog's (calibration writes
    // them); at most one per kind.
    std::vector<TransportFigures> transports;
    ClusterOrigin origin;          // which figures were measured, and from what
    CalibrationRecord calibration; // the last calibration's uncertainties and residuals

    bool operator==(const Cluster &) const = default;
};

// Limits that keep hostile files from exhausting memory; readers reject anything beyond.
inline constexpr int kMaxGpusPerMachine = 1024;
inline constexpr int kMaxMachines = 2048; // machine-pair tables: 2048² cells, 64 MiB
// Path work Topology::build may do: machines × distinct widths × (nodes + links). Bounds the
// time a hostile network file can take to about a second; real fleets are far below it.
inline constexpr double kMaxPathWork = 4e8;
inline constexpr int kMaxGpus = 65536;

} // namespace hetplan
