// The import's entry points: which kind each file is, in which order files are read (hosts
// first, then the per-host files that refer to them), and the report.
#include "core/import/import.h"

#include "core/import/import_evidence.h"
#include "core/import/text_lines.h"
#include "core/io/files.h"
#include "core/io/formats.h"

#include <algorithm>
#include <filesystem>
#include <system_error>
#include <unordered_map>
#include <unordered_set>

namespace hetplan {

using namespace importing;

std::string_view importKindName(ImportKind kind)
{
    switch (kind) {
    case ImportKind::Probe:
        return "probe file";
    case ImportKind::NcclTests:
        return "nccl-tests log";
    case ImportKind::NvidiaTopo:
        return "nvidia-smi topo -m matrix";
    case ImportKind::Nvbandwidth:
        return "nvbandwidth output";
    }
    return "file";
}

Result<ImportKind> detectImportKind(std::string_view text, std::string_view path)
{
    const std::string where(path);
    const std::string start = trimmed(text.substr(0, std::min<std::size_t>(text.size(), 4096)));
    if (start.starts_with("{")) {
        auto format = fileFormat(text, path);
        if (!format)
            return format.error();
        if (format->substr(0, format->find('/')) != kProbeFormat.substr(0, kProbeFormat.find('/')))
            return badInput(where + ": format: \"" + *format
                            + "\" is not a probe file; valid: " + std::string(kProbeFormat));
        return ImportKind::Probe;
    }
    if (looksLikeNcclTests(text))
        return ImportKind::NcclTests;
    if (looksLikeNvbandwidth(text))
        return ImportKind::Nvbandwidth;
    for (const std::string_view line : splitLines(start))
        if (!trimmed(line).empty())
            if (line.find("GPU0") != std::string::npos)
                return ImportKind::NvidiaTopo;
    return badInput(where
                    + ": not a file HetPlan imports; valid: a hetplan.probe/1 file, an "
                      "nccl-tests log (all_reduce_perf …), `nvidia-smi topo -m` output or "
                      "nvbandwidth output");
}

// What import reads, for the messages that find nothing to read.
constexpr const char *kWhatToImport = "name probe files, nccl-tests logs, topo matrices or "
                                      "nvbandwidth outputs, or folders of them";

Result<ImportResult> importMeasurements(const std::vector<ImportInput> &inputs,
                                        const ImportOptions &options)
{
    if (inputs.empty())
        return badInput(std::string("nothing to import: ") + kWhatToImport);
    struct Classified
    {
        const ImportInput *input;
        ImportKind kind;
    };
    Evidence evidence;
    evidence.options = options;
    std::vector<Classified> files;
    std::unordered_map<std::string_view, const ImportInput *> byFile;
    std::unordered_map<std::string_view, const ImportInput *> byContent;
    for (const ImportInput &input : inputs) {
        const std::string &file = input.identity.empty() ? input.path : input.identity;
        if (const auto [it, added] = byFile.emplace(file, &input); !added) {
            evidence.notes.push_back(input.path + ": the same file as " + it->second->path
                                     + "; read once");
            continue;
        }
        auto kind = detectImportKind(input.text, input.path);
        if (!kind)
            return kind.error();
        // A topo matrix or nvbandwidth output is about the host its file name gives: two hosts
        // may well print the same one.
        const bool namesItsHosts = *kind == ImportKind::Probe || *kind == ImportKind::NcclTests;
        if (namesItsHosts)
            if (const auto [it, added] = byContent.emplace(input.text, &input); !added) {
                evidence.notes.push_back(input.path + ": the same content as " + it->second->path
                                         + "; read once");
                continue;
            }
        files.push_back({&input, *kind});
    }
    // Files that define machines before those that refer to them.
    std::ranges::stable_sort(files, {}, [](const Classified &c) { return int(c.kind); });
    for (const Classified &f : files) {
        const std::string &path = f.input->path;
        const std::string &text = f.input->text;
        Status status = okStatus();
        switch (f.kind) {
        case ImportKind::Probe:
            if (auto probe = parseProbe(text, path); !probe)
                return probe.error();
            else
                status = addProbe(evidence, *probe, path);
            break;
        case ImportKind::NcclTests:
            if (auto log = parseNcclTests(text, path); !log)
                return log.error();
            else
                status = addNcclTests(evidence, *log, path);
            break;
        case ImportKind::NvidiaTopo:
            if (auto topo = parseNvidiaTopo(text, path); !topo)
                return topo.error();
            else
                status = addTopology(evidence, *topo, path);
            break;
        case ImportKind::Nvbandwidth:
            if (auto out = parseNvbandwidth(text, path); !out)
                return out.error();
            else
                status = addNvbandwidth(evidence, *out, path);
            break;
        }
        if (!status)
            return status.error();
    }
    return buildCluster(std::move(evidence));
}

std::string importReport(const ImportResult &result)
{
    const Cluster &c = result.cluster;
    int gpus = 0;
    for (const Machine &m : c.machines)
        gpus += m.count;
    std::string out
        = "Imported cluster \"" + c.name + "\" from " + std::to_string(c.origin.sources.size())
          + " file(s): " + std::to_string(c.machines.size()) + " machine(s), "
          + std::to_string(gpus) + " GPU(s), " + std::to_string(c.links.size()) + " link(s), "
          + std::to_string(c.pairOverrides.size()) + " pair override(s)\n";
    out += "\nMeasured figures (field = value: source; how):\n";
    for (const ImportedFigure &f : result.figures)
        out += "  " + f.figure.field + " = " + f.value + "\n      from " + f.figure.source
               + "\n      " + f.figure.how + "\n";
    if (!result.notes.empty()) {
        out += "\nNotes:\n";
        for (const std::string &note : result.notes)
            out += "  - " + note + "\n";
    }
    return out;
}

Result<ImportFiles> readImportFiles(const std::vector<std::string> &paths)
{
    namespace fs = std::filesystem;
    ImportFiles files;
    // A folder picked by mistake (a home folder) must not read gigabytes: beyond these, its
    // files are no measurement HetPlan reads.
    constexpr std::size_t kMaxFolderFiles = 10000;
    constexpr std::uintmax_t kMaxMeasurementBytes = 16u << 20;
    std::unordered_set<std::string> read; // canonical paths

    const auto add = [&](const std::string &path, bool named) -> Status {
        std::error_code sizeError;
        if (!named && fs::file_size(path, sizeError) > kMaxMeasurementBytes) {
            files.skipped.push_back(path);
            return okStatus();
        }
        std::error_code canonicalError;
        std::string identity = fs::weakly_canonical(path, canonicalError).string();
        if (canonicalError)
            identity.clear();
        if (!identity.empty() && !read.insert(identity).second) {
            files.inputs.push_back({path, {}, identity}); // the import notes it, reads it once
            return okStatus();
        }
        auto text = readTextFile(path);
        if (!text)
            return text.error();
        if (!named && !detectImportKind(*text, path)) {
            files.skipped.push_back(path);
            return okStatus();
        }
        files.inputs.emplace_back(path, std::move(text).value(), identity);
        return okStatus();
    };
    for (const std::string &path : paths) {
        std::error_code error;
        if (!fs::is_directory(path, error)) {
            if (auto status = add(path, true); !status)
                return status.error();
            continue;
        }
        std::vector<std::string> inside;
        fs::recursive_directory_iterator it(path, fs::directory_options::skip_permission_denied,
                                            error);
        for (; !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
            if (it->is_regular_file(error))
                inside.push_back(it->path().string());
            if (inside.size() > kMaxFolderFiles)
                return badInput(path + ": more than " + std::to_string(kMaxFolderFiles)
                                + " files; name the folder that holds the measurements");
        }
        if (error)
            return badInput(path + ": cannot list the folder: " + error.message());
        std::ranges::sort(inside);
        for (const std::string &file : inside)
            if (auto status = add(file, false); !status)
                return status.error();
    }
    if (files.inputs.empty()) {
        // Named folders that hold nothing importable: say which.
        std::string named;
        for (const std::string &path : paths)
            named += (named.empty() ? "" : ", ") + path;
        return badInput("nothing to import in " + named + ": " + kWhatToImport);
    }
    return files;
}

} // namespace hetplan
