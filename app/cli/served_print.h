#pragma once

// What `hetplan-cli run` and `hetplan-cli launch` share for a serving plan (docs/runtime.md,
// "Serving runs"): the serving options, and the run's end once the replicas' records are in
// (accounted for by runtime/worker/served_accounting.h): the summary, `--out DIR` and the
// comparison with the simulator.

#include "app/cli/args.h"
#include "core/base/result.h"
#include "runtime/worker/served_accounting.h"

#include <optional>
#include <string>
#include <vector>

namespace hetplan::cli {

// The serving options of a command line: --requests, --duration, --rate, --trace and
// --temperature; the stream's seed is `seed` (--seed).
struct ServeOptions
{
    runtime::RequestStreamOptions stream;
    double temperature = 0;
};
Result<ServeOptions> serveOptions(const Args &args, int seed);

// The stream and cost model of a serving run (runtime/worker/served_accounting.h).
using runtime::ServeSetup;
using runtime::serveSetup;

// The end of a serving run whose replicas' schedulers wrote `records`, every request accounted
// for as runtime::accountServed does it with `failure` and `hosts`. Prints the summary,
// writes `outDir`/serving-measurement.json when given and, after a run that did not fail, the
// comparison with the simulator. `hosts` are where the ranks ran (the measurement's run.hosts;
// empty: this machine). Returns the exit code: 0, 1 (the run failed) or 2.
int finishServed(const runtime::Job &job, const std::string &planPath, const ServeSetup &setup,
                 std::vector<ServedRequest> records, const std::string &failure,
                 const std::optional<std::string> &outDir,
                 const std::vector<std::string> &hosts = {});

} // namespace hetplan::cli
