#pragma once

// Importing what was measured (docs/import.md): probe files, nccl-tests logs, `nvidia-smi
// topo -m` matrices and nvbandwidth outputs become one Cluster whose `origin` names the file,
// line and method behind every imported figure.

#include "core/base/result.h"
#include "core/model/cluster.h"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hetplan {

enum class ImportKind { Probe, NcclTests, NvidiaTopo, Nvbandwidth };

std::string_view importKindName(ImportKind kind); // "probe file", "nccl-tests log", …

// Tells the kinds apart by content; the error names the file and the kinds accepted.
Result<ImportKind> detectImportKind(std::string_view text, std::string_view path);

struct ImportInput
{
    ImportInput(std::string named, std::string content, std::string canonical = {})
        : path(std::move(named))
        , text(std::move(content))
        , identity(std::move(canonical))
    {}

    std::string path; // as the user named it; messages and `origin` cite it
    std::string text;
    // The file itself (its canonical path), where known: a file named twice, or named and in a
    // named folder, is read once.
    std::string identity;
};

struct ImportOptions
{
    std::string clusterName = "imported";
    // The probe does not measure host memory; a CPU rank's device gets this much.
    double cpuMemoryGiB = 16;
    // What the network between machines is: the probe and nccl-tests measure speed, not kind.
    LinkKind network = LinkKind::Ethernet;
};

// One figure of the report: a field of the cluster file, its value, and where it came from.
struct ImportedFigure
{
    MeasuredFigure figure;
    std::string value; // as written in the cluster file: "180.3", "nvlink"
};

struct ImportResult
{
    Cluster cluster;
    std::vector<ImportedFigure> figures; // the measured ones, also in cluster.origin
    std::vector<std::string> notes;      // defaults taken, inputs skipped, choices made
};

// An input that is the same file as an earlier one, or a probe file or nccl-tests log of the
// same content (they name their hosts inside), is read once; a note says so.
// Refuses bad or inconsistent input with the file, the line (or JSON path) and what would
// be valid: a host in two probe files, a log whose devices disagree with the probe's, a topo
// matrix for a machine nothing else defines.
Result<ImportResult> importMeasurements(const std::vector<ImportInput> &inputs,
                                        const ImportOptions &options = {});

// What the import did, for a person: every figure with its value and origin, then the notes.
std::string importReport(const ImportResult &result);

// The files named: a file as itself, a folder as the files in it and below, sorted. Files in a
// folder that are of no import kind are left out (listed in `skipped`); a named file that
// cannot be read is an error. A file met again (the same canonical path) is not read again: its
// input has no text, and importMeasurements notes it as read once.
struct ImportFiles
{
    std::vector<ImportInput> inputs;
    std::vector<std::string> skipped;
};
Result<ImportFiles> readImportFiles(const std::vector<std::string> &paths);

} // namespace hetplan
