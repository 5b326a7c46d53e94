#pragma once

// What the import gathers from each file before it decides (internal to core/import/):
// candidate figures for every field, each with its source and method and a priority by how
// directly it measures what the planner models (docs/import.md, "Which figure wins").

#include "core/base/result.h"
#include "core/import/import.h"
#include "core/import/nccl_tests.h"
#include "core/import/nvbandwidth.h"
#include "core/import/nvidia_topo.h"
#include "core/io/probe_file.h"

#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace hetplan::importing {

// Higher wins; figures of equal priority are combined by their median.
enum class Priority {
    TopoEstimate, // NV# × per-link bandwidth
    Nvbandwidth,  // copy-engine copies
    ProbeCopy,    // the probe's cuda-peer-copy
    ProbePair,    // the probe's gloo-tcp and nccl-sendrecv
    NcclTests,    // what NCCL collectives achieved
};

struct Candidate
{
    double value = 0;
    Priority priority = Priority::TopoEstimate;
    std::string source; // "logs/all_reduce_perf.log:42"
    std::string how;
};

// The candidates for one field.
struct Figures
{
    std::vector<Candidate> candidates;

    bool empty() const { return candidates.empty(); }
    void add(Candidate c) { candidates.push_back(std::move(c)); }
    // The highest priority's candidates combined: their median, their sources joined.
    std::optional<Candidate> chosen() const;
};

struct MachineDraft
{
    std::string name;
    std::string host;
    std::string gpu; // type name
    int count = 0;
    std::string definedBy; // the file that defined it, for messages
    // A probe's host entry ("node-a", "node-a#2") and CUDA device (−1: a CPU rank) → GPU index.
    std::map<std::pair<std::string, int>, int> devices;
    std::map<int, int> cudaDevices; // CUDA device index on the host → GPU index; empty: CPU ranks
    Figures intraBandwidthGBps;
    Figures intraLatencyUs;
    std::optional<std::pair<LinkKind, Candidate>> intraKind; // the candidate's value unused

    std::string gpuName(int index) const { return name + ":" + std::to_string(index); }
};

struct TypeDraft
{
    GpuType type;       // catalog entry copied, or a custom type being filled in
    bool custom = true; // not a catalog type
    Figures tflops;     // measured GEMM throughput
    Figures memoryGiB;
    Figures memoryBandwidthGBps;
    // Measured layers, one per probed host, each with where it came from (`value`: unused).
    std::vector<std::pair<MeasuredLayerTable, Candidate>> layers;
};

struct PairDraft
{
    Figures bandwidthGBps;
    Figures latencyUs;
};

using NamePair = std::pair<std::string, std::string>; // lower first

inline NamePair sortedPair(std::string a, std::string b)
{
    return a < b ? NamePair{std::move(a), std::move(b)} : NamePair{std::move(b), std::move(a)};
}

// One run over three or more machines (an nccl-tests log): its figure holds for every pair of
// them, and is kept once rather than once per pair (docs/import.md, "Links between machines").
struct RunDraft
{
    std::vector<std::size_t> machines; // indices into Evidence::machines, ascending
    PairDraft figures;

    bool holds(std::size_t machine) const;
};

struct Evidence
{
    ImportOptions options;
    std::vector<std::string> sources;
    // Until nameMachines: each machine's name is its host, so distinct hosts stay distinct.
    std::vector<MachineDraft> machines;
    std::vector<TypeDraft> types;
    std::map<NamePair, PairDraft> gpuPairs;     // "A:0", "A:1"
    std::map<NamePair, PairDraft> machinePairs; // "A", "B": pairs measured by themselves
    std::vector<RunDraft> runs;
    std::vector<std::string> notes;

    MachineDraft *machine(std::string_view name);
    const MachineDraft *machine(std::string_view name) const;
    std::size_t indexOf(const MachineDraft &m) const { return std::size_t(&m - machines.data()); }
    // The machine of a host as a file names it: the same host, or the one machine whose short
    // name ("node-a") is the host's first label ("node-a.example.org"), or the other way round.
    MachineDraft *host(std::string_view host);
    // Adds a machine named after its host; refused, naming `where`, beyond kMaxMachines.
    Result<MachineDraft *> addMachine(MachineDraft draft, const std::string &where);
    TypeDraft *type(std::string_view name);
    void reindex(); // after machines were renamed

private:
    static constexpr std::size_t kAmbiguous = std::size_t(-1);
    void index(std::size_t i);
    std::unordered_map<std::string, std::size_t> m_byName;
    // First label of a dotted name → its machine, kAmbiguous where several share it.
    std::unordered_map<std::string, std::size_t> m_byLabel;
};

// The host a probe's host entry or a log's rank is on: "node-a#2" (a second CPU rank) is
// node-a.
std::string hostOf(std::string_view name);
// A host's name up to its first '.'; an IPv4 address whole.
std::string firstLabel(std::string_view host);

// Gives each machine its name in the cluster file (docs/import.md, "Machine names"): the host
// up to its first '.', more of the domain where that is not unique, "-2" where nothing else
// is; notes say how each name that is not the host itself was made.
void nameMachines(Evidence &evidence);

// Each adds what one file says; errors name the file and line or JSON path.
Status addProbe(Evidence &evidence, const Probe &probe, const std::string &source);
Status addNcclTests(Evidence &evidence, const NcclTestsLog &log, const std::string &source);
Status addTopology(Evidence &evidence, const NvidiaTopology &topo, const std::string &source);
Status addNvbandwidth(Evidence &evidence, const NvbandwidthOutput &out, const std::string &source);
// A host's `nvidia-smi topo -m` cells (from a topo file or a probe's host): the intra link
// kind, and NV# × the per-NVLink bandwidth as an estimate for each NVLink pair.
void addTopoLinks(Evidence &evidence, MachineDraft &machine, const std::vector<TopoLink> &links,
                  const std::string &source);

// The machine a per-host file (topo matrix, nvbandwidth) is about: the one its file name
// starts with ("node-a.topo.txt"), or the only machine.
Result<MachineDraft *> machineForFile(Evidence &evidence, const std::string &source);

// Decides every field and writes the cluster with its origin.
Result<ImportResult> buildCluster(Evidence evidence);

} // namespace hetplan::importing
