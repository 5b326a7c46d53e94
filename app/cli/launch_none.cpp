// `hetplan-cli launch` and `probe --hosts` where the SSH launcher is not built (no libssh at build
// time).
#include "app/cli/commands.h"
#include "app/cli/setup.h"

namespace hetplan::cli {

namespace {

int withoutLauncher()
{
    return fail(Error{ErrorKind::Unsupported,
                      "this hetplan-cli was built without the SSH launcher (libssh); install "
                      "libssh-dev and rebuild, or run locally (`hetplan-cli run`, hetplan-probe)"});
}

} // namespace

int runLaunch(const std::vector<std::string> &)
{
    return withoutLauncher();
}

int runProbeHosts(const std::vector<std::string> &)
{
    return withoutLauncher();
}

} // namespace hetplan::cli
