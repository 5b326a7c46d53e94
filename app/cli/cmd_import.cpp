// hetplan-cli import: measurement files (docs/import.md) to one cluster file, and a report of
// where every figure came from.
#include "app/cli/commands.h"
#include "app/cli/output.h"
#include "app/cli/setup.h"
#include "core/import/import.h"
#include "core/io/files.h"
#include "core/io/formats.h"

#include <algorithm>
#include <iostream>
#include <span>

namespace hetplan::cli {
namespace {

const Args::Spec kSpec{{"out", "report", "name", "cpu-memory-gib", "network"}, {}};

Result<ImportOptions> optionsFromArgs(const Args &args)
{
    ImportOptions options;
    if (auto name = args.value("name")) {
        if (name->empty())
            return badInput("--name: empty; the cluster needs a name");
        options.clusterName = *name;
    }
    auto memory = args.number("cpu-memory-gib", 0.001, 1e6);
    if (!memory)
        return memory.error();
    options.cpuMemoryGiB = memory->value_or(options.cpuMemoryGiB);
    if (auto network = args.value("network")) {
        const auto kinds = std::span(kLinkKindNames).subspan(2); // ethernet, infiniband, roce
        const auto kind = std::ranges::find(kinds, *network, &EnumName<LinkKind>::name);
        if (kind == kinds.end())
            return badInput("--network: '" + *network
                            + "' is not a network kind; valid: ethernet, infiniband, roce");
        options.network = kind->value;
    }
    return options;
}

} // namespace

int runImport(const std::vector<std::string> &words)
{
    auto args = Args::parse(words, kSpec);
    if (!args)
        return fail(args.error());
    if (args->positional().empty())
        return fail(badInput("import: name the files or folders to import (probe files, "
                             "nccl-tests logs, nvidia-smi topo -m or nvbandwidth outputs)"));
    if (!args->has("out"))
        return fail(args->required("out").error());
    auto out = outputFromArgs(*args, "out");
    if (!out)
        return fail(out.error());
    auto reportOut = outputFromArgs(*args, "report");
    if (!reportOut)
        return fail(reportOut.error());
    auto options = optionsFromArgs(*args);
    if (!options)
        return fail(options.error());
    auto files = readImportFiles(args->positional());
    if (!files)
        return fail(files.error());
    auto result = importMeasurements(files->inputs, *options);
    if (!result)
        return fail(result.error());
    for (const std::string &skipped : files->skipped)
        result->notes.push_back(skipped + ": skipped: not a file HetPlan imports");
    const std::string &clusterPath = **out;
    if (Status written = writeOutput(clusterPath, writeCluster(result->cluster)); !written)
        return fail(written.error());
    const std::string report = importReport(*result);
    const std::string reportPath = reportOut->value_or(kStandardOutput);
    if (reportPath == kStandardOutput) {
        // The cluster went to standard output: the report must not mix into it.
        (clusterPath == kStandardOutput ? std::cerr : std::cout) << report;
    } else if (Status written = writeFileAtomic(reportPath, report); !written) {
        return fail(written.error());
    }
    if (clusterPath != kStandardOutput)
        std::cerr << "wrote " << clusterPath << '\n';
    return 0;
}

} // namespace hetplan::cli
