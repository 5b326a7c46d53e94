// nccl-tests logs, `nvidia-smi topo -m` matrices and nvbandwidth outputs as evidence
// (docs/import.md): which link each measures, and the figure it gives that link.
#include "core/import/import_evidence.h"
#include "core/import/text_lines.h"
#include "core/io/catalog_json.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace hetplan::importing {
namespace {

// One NVLink's bandwidth per direction: 25 GB/s on NVLink 2, 3 and 4 (V100, A100, H100
// datasheets: 300, 600 and 900 GB/s both ways over 6, 12 and 18 links).
constexpr double kNvlinkGBpsPerLink = 25;
// Sizes whose times the latency fit reads, and the plateau the bandwidth is read on.
constexpr double kSmallBytes = 64 * 1024;
constexpr double kPlateauFraction = 1.0 / 8;

// The catalog type an nccl-tests device name is ("NVIDIA A100-SXM4-80GB"): by the memory the
// name states, else the one type the name fits whatever the memory.
std::string catalogTypeOf(const std::string &deviceName)
{
    for (std::size_t at = deviceName.find("GB"); at != std::string::npos;
         at = deviceName.find("GB", at + 2)) {
        std::size_t begin = at;
        while (begin > 0 && std::isdigit(static_cast<unsigned char>(deviceName[begin - 1])))
            --begin;
        if (begin < at && at - begin <= 4)
            return catalogGpuFor(deviceName, std::stod(deviceName.substr(begin, at - begin)));
    }
    std::set<std::string> fits;
    for (const GpuType &t : builtinGpuCatalog().all())
        if (std::string name = catalogGpuFor(deviceName, t.memoryGiB); !name.empty())
            fits.insert(name);
    return fits.size() == 1 ? *fits.begin() : std::string();
}

std::string lineOf(const std::string &source, int line)
{
    return source + ":" + std::to_string(line);
}

class LogReader
{
public:
    LogReader(Evidence &evidence, const NcclTestsLog &log, const std::string &source)
        : m_evidence(evidence)
        , m_log(log)
        , m_source(source)
    {}

    Status read()
    {
        m_evidence.sources.push_back(m_source);
        std::vector<std::size_t> machines; // indices: adding a machine moves the others
        for (const NcclRank &r : m_log.ranks) {
            auto machine = machineOf(r);
            if (!machine)
                return machine.error();
            machines.push_back(m_evidence.indexOf(**machine));
        }
        std::ranges::sort(machines);
        machines.erase(std::unique(machines.begin(), machines.end()), machines.end());
        const int n = int(m_log.ranks.size());
        if (n < 2) {
            m_evidence.notes.push_back(m_source + ": one rank measures no link; left out");
            return okStatus();
        }
        const Candidate bandwidth = bandwidthFigure(n);
        const Candidate latency = latencyFigure(n);
        if (machines.size() == 1) {
            MachineDraft &only = m_evidence.machines[machines.front()];
            only.intraBandwidthGBps.add(bandwidth);
            only.intraLatencyUs.add(latency);
            return okStatus();
        }
        // Across machines a ring runs at its slowest inter-machine hop: that is what busBw
        // measures, and every machine pair of the run gets at least it. Two machines are one
        // measured pair; more are one run, kept once and not once per pair.
        PairDraft *figures = nullptr;
        if (machines.size() == 2) {
            figures = &m_evidence.machinePairs[sortedPair(m_evidence.machines[machines[0]].name,
                                                          m_evidence.machines[machines[1]].name)];
        } else {
            m_evidence.runs.push_back({std::move(machines), {}});
            figures = &m_evidence.runs.back().figures;
        }
        figures->bandwidthGBps.add(bandwidth);
        figures->latencyUs.add(latency);
        return okStatus();
    }

private:
    Error at(int line, const std::string &what) const
    {
        return badInput(lineOf(m_source, line) + ": " + what);
    }

    Result<MachineDraft *> machineOf(const NcclRank &r)
    {
        MachineDraft *m = m_evidence.host(r.host);
        if (!m) {
            const std::string type = catalogTypeOf(r.deviceName);
            if (type.empty())
                return at(r.line, "\"" + r.deviceName
                                      + "\" is no GPU type of the catalog; "
                                        "import a probe file of "
                                      + r.host
                                      + " with this log, which "
                                        "measures its GPUs");
            MachineDraft draft;
            draft.host = r.host;
            draft.gpu = type;
            draft.definedBy = m_source;
            auto added = m_evidence.addMachine(std::move(draft), lineOf(m_source, r.line));
            if (!added)
                return added.error();
            m = *added;
        }
        if (m->definedBy == m_source && !m->cudaDevices.contains(r.device)) {
            if (m->count >= kMaxGpusPerMachine)
                return at(r.line, "rank " + std::to_string(r.rank) + " would be GPU "
                                      + std::to_string(m->count + 1) + " of " + r.host
                                      + "; a machine holds at most "
                                      + std::to_string(kMaxGpusPerMachine));
            m->cudaDevices[r.device] = m->count;
            m->devices[{m->host, r.device}] = m->count++;
        }
        if (m->cudaDevices.empty())
            return at(r.line, "rank " + std::to_string(r.rank) + " is on a GPU of " + r.host
                                  + ", which " + m->definedBy + " measured as CPU ranks");
        if (!m->cudaDevices.contains(r.device))
            return at(r.line, "rank " + std::to_string(r.rank) + " is on device "
                                  + std::to_string(r.device) + " of " + r.host + ", which "
                                  + m->definedBy
                                  + " does not list; valid devices: " + deviceList(*m));
        return m;
    }

    static std::string deviceList(const MachineDraft &m)
    {
        std::string list;
        for (const auto &[device, index] : m.cudaDevices)
            list += (list.empty() ? "" : ", ") + std::to_string(device);
        return list;
    }

    std::string runText(int n) const
    {
        return m_log.collectiveName + " over " + std::to_string(n) + " ranks";
    }

    // busBw is the link bandwidth (the factor has turned algBw into it). On the sizes near the
    // largest, t(S) = α + S·factor/B: the slope of a least-squares line gives B without the
    // fixed cost α, which would otherwise still lower busBw by a percent or two.
    Candidate bandwidthFigure(int n) const
    {
        double largest = 0;
        for (const NcclRow &r : m_log.rows)
            largest = std::max(largest, r.bytes);
        std::vector<const NcclRow *> plateau;
        for (const NcclRow &r : m_log.rows)
            if (r.bytes >= largest * kPlateauFraction)
                plateau.push_back(&r);
        std::ranges::sort(plateau, {}, &NcclRow::busBwGBps);
        const NcclRow &median = *plateau[plateau.size() / 2];
        const double factor = busBwFactor(m_log.collective, n);
        const std::string sizes
            = std::to_string(plateau.size()) + " sizes >= " + figureText(largest * kPlateauFraction)
              + " bytes of " + runText(n) + " (busBw = algBw × " + figureText(factor) + ")";
        const Line line = fit(plateau);
        if (line.slope > 0 && factor > 0)
            return {factor / (line.slope * 1e3), Priority::NcclTests, lineOf(m_source, median.line),
                    "busBw from the least-squares slope of time over " + sizes};
        return {median.busBwGBps, Priority::NcclTests, lineOf(m_source, median.line),
                "median out-of-place busBw over " + sizes};
    }

    struct Line
    {
        double intercept = 0;
        double slope = 0; // us per byte; 0 when the rows do not determine one
    };

    // Least squares of out-of-place time over size.
    static Line fit(const std::vector<const NcclRow *> &rows)
    {
        double sx = 0;
        double sy = 0;
        double sxx = 0;
        double sxy = 0;
        for (const NcclRow *r : rows) {
            sx += r->bytes;
            sy += r->timeUs;
            sxx += r->bytes * r->bytes;
            sxy += r->bytes * r->timeUs;
        }
        const double k = double(rows.size());
        const double denominator = k * sxx - sx * sx;
        if (rows.size() < 2 || denominator <= 0)
            return {};
        return {(sy * sxx - sx * sxy) / denominator, (k * sxy - sx * sy) / denominator};
    }

    // t(S) = α + S/B by least squares over the small sizes; α is the ring's latency, spread
    // over its sequential steps.
    Candidate latencyFigure(int n) const
    {
        std::vector<const NcclRow *> small;
        for (const NcclRow &r : m_log.rows)
            if (r.bytes <= kSmallBytes)
                small.push_back(&r);
        const NcclRow *smallest = &*std::ranges::min_element(m_log.rows, {}, &NcclRow::bytes);
        double alpha = smallest->timeUs;
        std::string how = "time of the smallest size (" + figureText(smallest->bytes) + " bytes)";
        if (const Line line = fit(small); line.slope != 0 && line.intercept > 0) {
            alpha = line.intercept;
            how = "least-squares intercept of time over " + std::to_string(small.size())
                  + " sizes <= " + figureText(kSmallBytes) + " bytes";
        }
        const int steps = latencySteps(m_log.collective, n);
        return {alpha / steps, Priority::NcclTests, lineOf(m_source, smallest->line),
                how + " / " + std::to_string(steps) + " sequential steps of " + runText(n)};
    }

    Evidence &m_evidence;
    const NcclTestsLog &m_log;
    const std::string &m_source;
};

std::optional<int> gpuIndexOf(const MachineDraft &m, std::string_view device)
{
    if (!device.starts_with("GPU"))
        return std::nullopt;
    const auto index = parseWordNumber(device.substr(3));
    if (!index || *index < 0 || *index != int(*index))
        return std::nullopt;
    if (m.cudaDevices.empty())
        return *index < m.count ? std::optional<int>(int(*index)) : std::nullopt;
    const auto it = m.cudaDevices.find(int(*index));
    return it == m.cudaDevices.end() ? std::nullopt : std::optional<int>(it->second);
}

} // namespace

Status addNcclTests(Evidence &evidence, const NcclTestsLog &log, const std::string &source)
{
    return LogReader(evidence, log, source).read();
}

void addTopoLinks(Evidence &evidence, MachineDraft &machine, const std::vector<TopoLink> &links,
                  const std::string &source)
{
    int nvlinkPairs = 0;
    int pairs = 0;
    std::map<std::string, int> classes;
    for (const TopoLink &l : links) {
        const auto a = gpuIndexOf(machine, l.a);
        const auto b = gpuIndexOf(machine, l.b);
        if (!a || !b || *a == *b)
            continue;
        ++pairs;
        ++classes[l.link];
        if (const int count = nvlinkCount(l.link); count > 0) {
            ++nvlinkPairs;
            PairDraft &pair
                = evidence.gpuPairs[sortedPair(machine.gpuName(*a), machine.gpuName(*b))];
            pair.bandwidthGBps.add(
                {count * kNvlinkGBpsPerLink, Priority::TopoEstimate, source,
                 l.link + " × " + figureText(kNvlinkGBpsPerLink) + " GB/s per NVLink"});
        }
    }
    if (pairs == 0 || machine.intraKind)
        return;
    std::string counts;
    for (const auto &[cls, n] : classes)
        counts += (counts.empty() ? "" : ", ") + cls + " on " + std::to_string(n);
    const LinkKind kind = 2 * nvlinkPairs >= pairs ? LinkKind::NvLink : LinkKind::Pcie;
    machine.intraKind
        = {kind,
           {0, Priority::TopoEstimate, source,
            "the class of most GPU pairs (" + counts + " of " + std::to_string(pairs) + ")"}};
}

Status addTopology(Evidence &evidence, const NvidiaTopology &topo, const std::string &source)
{
    evidence.sources.push_back(source);
    auto machine = machineForFile(evidence, source);
    if (!machine)
        return machine.error();
    MachineDraft &m = **machine;
    std::size_t gpus = 0;
    for (std::size_t d = 0; d < topo.devices.size(); ++d)
        gpus += topo.isGpu(d) ? 1 : 0;
    if (int(gpus) != m.count)
        return badInput(source + ": " + std::to_string(gpus) + " GPUs, but " + m.definedBy
                        + " gives " + m.name + " " + std::to_string(m.count)
                        + "; the matrix must be of the same host");
    addTopoLinks(evidence, m, topoLinks(topo), source);
    return okStatus();
}

Status addNvbandwidth(Evidence &evidence, const NvbandwidthOutput &out, const std::string &source)
{
    evidence.sources.push_back(source);
    auto machine = machineForFile(evidence, source);
    if (!machine)
        return machine.error();
    MachineDraft &m = **machine;
    int used = 0;
    for (const NvbandwidthMatrix &matrix : out.matrices) {
        if (!matrix.isPairBandwidth())
            continue;
        ++used;
        for (std::size_t r = 0; r < matrix.rows.size(); ++r)
            for (std::size_t c = 0; c < matrix.columns.size(); ++c) {
                const auto &cell = matrix.cells[r][c];
                const std::string rowName = "GPU" + std::to_string(matrix.rows[r]);
                const std::string columnName = "GPU" + std::to_string(matrix.columns[c]);
                const auto a = gpuIndexOf(m, rowName);
                const auto b = gpuIndexOf(m, columnName);
                if (!a || !b)
                    return badInput(lineOf(source, matrix.line) + ": " + matrix.testcase
                                    + " measures device " + std::to_string(matrix.rows[r]) + " and "
                                    + std::to_string(matrix.columns[c]) + ", but " + m.definedBy
                                    + " gives " + m.name + " " + std::to_string(m.count) + " GPUs");
                if (*a == *b || !cell || *cell <= 0)
                    continue;
                evidence.gpuPairs[sortedPair(m.gpuName(*a), m.gpuName(*b))].bandwidthGBps.add(
                    {*cell, Priority::Nvbandwidth, lineOf(source, matrix.line),
                     matrix.testcase + ", " + rowName + " and " + columnName});
            }
    }
    if (used == 0)
        evidence.notes.push_back(source
                                 + ": no one-way device-to-device bandwidth matrix; "
                                   "nothing taken from it");
    return okStatus();
}

} // namespace hetplan::importing
