#include "runtime/cuda/call_site.h"

#include <array>
#include <string_view>

namespace hetplan::runtime::cuda {

std::string callSite(const char *file, int line)
{
    std::string_view path = file != nullptr ? file : "?";
    // Compilers record the path they were given, often absolute: keep it from the last
    // top-level folder of the repository on.
    for (std::string_view top : std::array<std::string_view, 3>{"/runtime/", "/tests/", "/app/"})
        if (const auto at = path.rfind(top); at != std::string_view::npos) {
            path.remove_prefix(at + 1);
            break;
        }
    std::string site(path);
    site += ':';
    site += std::to_string(line);
    return site;
}

std::string failedCall(std::string_view what, const char *file, int line, std::string_view words)
{
    std::string message(what);
    message += " failed at ";
    message += callSite(file, line);
    message += ": ";
    message += words;
    return message;
}

} // namespace hetplan::runtime::cuda
