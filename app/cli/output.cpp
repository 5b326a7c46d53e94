#include "app/cli/output.h"

#include "app/cli/terminal_output.h"
#include "core/io/files.h"

#include <filesystem>
#include <iostream>
#include <system_error>

namespace hetplan::cli {

namespace fs = std::filesystem;

namespace {

// The same file, or the same path where neither exists yet (two outputs named alike).
bool samePath(const std::string &a, const std::string &b)
{
    if (sameFile(a, b))
        return true;
    std::error_code ec;
    const fs::path first = fs::weakly_canonical(a, ec);
    if (ec)
        return false;
    const fs::path second = fs::weakly_canonical(b, ec);
    return !ec && first == second;
}

// A positional folder whose files the command reads, holding `path`.
bool insideFolder(const std::string &path, const std::string &folder)
{
    std::error_code ec;
    if (!fs::is_directory(folder, ec))
        return false;
    const fs::path parent = fs::weakly_canonical(fs::absolute(path, ec).parent_path(), ec);
    return !ec && fs::equivalent(parent, folder, ec) && !ec;
}

} // namespace

Result<std::optional<std::string>> outputFromArgs(const Args &args, const std::string &option)
{
    const std::optional<std::string> path = args.value(option);
    if (!path || *path == kStandardOutput)
        return path;
    const std::string flag = "--" + option;
    for (const auto &[name, values] : args.valuedOptions()) {
        if (name == option)
            continue;
        for (const std::string &other : values)
            if (other != kStandardOutput && samePath(*path, other))
                return badInput(flag + " " + *path + " is the --" + name
                                + " file of this command; refusing to overwrite it (write to "
                                  "another file)");
    }
    for (const std::string &word : args.positional()) {
        if (samePath(*path, word))
            return badInput(flag + " " + *path
                            + " is one of the files this command reads; refusing to "
                              "overwrite an input");
        if (insideFolder(*path, word))
            return badInput(flag + " " + *path + " is inside " + word
                            + ", a folder this command reads; write it elsewhere");
    }
    if (Status writable = checkWritable(*path); !writable)
        return Error{ErrorKind::BadInput, flag + ": " + writable.error().message};
    return path;
}

Status writeOutput(const std::string &path, std::string_view content)
{
    if (path != kStandardOutput)
        return writeFileAtomic(path, content);
    // The content as it would be in a file: a script's paths stay as they are.
    std::ostream out(unfilteredStandardOutput());
    out << content;
    out.flush();
    if (!out)
        return Error{ErrorKind::Internal, "--out -: cannot write to standard output"};
    return okStatus();
}

} // namespace hetplan::cli
