#pragma once

// What `hetplan-cli run` and `hetplan-cli launch` share for a serving plan (docs/runtime.md,
// "Serving runs"): the serving options, the stream the ranks will serve with the plan's cost
// model, and the run's end once the replicas' records are in: every request accounted for,
// the summary, `--out DIR` and the comparison with the simulator.

#include "app/cli/args.h"
#include "core/base/result.h"
#include "core/cost/cost_model.h"
#include "core/serving/serving_request.h"
#include "runtime/serve/request_stream.h"
#include "runtime/worker/job.h"

#include <memory>
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

// The stream every rank makes from the same options (at the run's `scale`) and the plan's
// cost model, for the measurement and the comparison. Errors name `planPath` or the option.
struct ServeSetup
{
    runtime::RequestStreamOptions options;
    std::vector<ServingRequest> stream;
    std::unique_ptr<CostModel> costModel;
};
Result<ServeSetup> serveSetup(const runtime::Job &job, const std::string &planPath,
                              runtime::RequestStreamOptions options, int scale);

// The end of a serving run whose replicas' schedulers wrote `records` (all replicas'
// together; a replica may have written none). `failure` is why the run stopped early, as the
// run names it ("rank R ..." for a rank that failed), or empty when it did not. Every request of
// the stream gets a record: the ones no replica wrote fail with that reason, and the ones a
// stopped scheduler cancelled say whether their replica lost the rank. Prints the summary,
// writes `outDir`/serving-measurement.json when given and, after a run that did not fail, the
// comparison with the simulator. `hosts` are where the ranks ran (the measurement's run.hosts;
// empty: this machine). Returns the exit code: 0, 1 (the run failed) or 2.
int finishServed(const runtime::Job &job, const std::string &planPath, const ServeSetup &setup,
                 std::vector<ServedRequest> records, const std::string &failure,
                 const std::optional<std::string> &outDir,
                 const std::vector<std::string> &hosts = {});

} // namespace hetplan::cli
