#include "app/cli/output.h"

#include "core/io/files.h"

#include <iostream>

namespace hetplan::cli {

Result<std::optional<std::string>> outputFromArgs(const Args &args)
{
    const std::optional<std::string> path = args.value("out");
    if (!path || *path == kStandardOutput)
        return path;
    for (const char *input : {"cluster", "model", "workload", "plan", "warm-start", "hosts"}) {
        const std::optional<std::string> inputPath = args.value(input);
        if (inputPath && sameFile(*path, *inputPath))
            return badInput("--out " + *path + " is the --" + input
                            + " file of this command; refusing to overwrite an input (write "
                              "the plan elsewhere)");
    }
    if (Status writable = checkWritable(*path); !writable)
        return Error{ErrorKind::BadInput, "--out: " + writable.error().message};
    return path;
}

Status writeOutput(const std::string &path, std::string_view content)
{
    if (path != kStandardOutput)
        return writeFileAtomic(path, content);
    std::cout << content;
    std::cout.flush();
    if (!std::cout)
        return Error{ErrorKind::Internal, "--out -: cannot write to standard output"};
    return okStatus();
}

} // namespace hetplan::cli
