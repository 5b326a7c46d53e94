// `hetplan-cli launch` where the SSH launcher is not built (no libssh at build time).
#include "app/cli/commands.h"
#include "app/cli/setup.h"

namespace hetplan::cli {

int runLaunch(const std::vector<std::string> &)
{
    return fail(Error{ErrorKind::Unsupported,
                      "this hetplan-cli was built without the SSH launcher (libssh); install "
                      "libssh-dev and rebuild, or run the plan locally with `hetplan-cli run`"});
}

} // namespace hetplan::cli
