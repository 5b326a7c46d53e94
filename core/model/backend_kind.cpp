#include "core/model/backend_kind.h"

#include <string>

namespace hetplan {

Result<BackendKind> backendOption(std::string_view text)
{
    if (const auto kind = backendNamed(text, BackendSpelling::Option))
        return *kind;
    std::string valid;
    for (const BackendNames &n : kBackendNames) {
        if (!valid.empty())
            valid += " or ";
        valid += std::string(n.option) + " (" + std::string(n.runsOn) + ")";
    }
    return badInput("--backend " + std::string(text) + ": valid: " + valid);
}

} // namespace hetplan
