#pragma once

// The end of a serving run, as `hetplan-cli run`, `hetplan-cli launch` and the app's Launch all
// account for it (docs/runtime.md, "Serving runs"): the stream every rank serves, and once the
// replicas' records are in, every request of that stream accounted for in the run's
// hetplan.serving-measurement/1. Printing it is the caller's.

#include "core/base/result.h"
#include "core/cost/cost_model.h"
#include "core/serving/serving_measurement.h"
#include "core/serving/serving_request.h"
#include "runtime/serve/request_stream.h"
#include "runtime/worker/job.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace hetplan {
struct HostsFile;
}

namespace hetplan::runtime {

// The stream every rank makes from the same options (at the run's `scale`) and the plan's
// cost model, for the measurement and the comparison. Errors name `planPath` or the option.
struct ServeSetup
{
    RequestStreamOptions options;
    std::vector<ServingRequest> stream;
    std::unique_ptr<CostModel> costModel;
};
Result<ServeSetup> serveSetup(const Job &job, const std::string &planPath,
                              RequestStreamOptions options, int scale);

// The measurement of `served` (every request of the stream, by id), run of `job` from
// `planPath` with `stream`'s options. The SLO is the workload's slo_s, else its slo_scale times
// the reference latency of the model at the run's scale (core/serving/plan_serving.h).
Result<ServingMeasurement> servedMeasurement(const Job &job, const std::string &planPath,
                                             const RequestStreamOptions &stream,
                                             const CostModel &costModel,
                                             std::vector<ServedRequest> served);

// The records the replicas' schedulers wrote, replica → text (runtime/serve/served_records.h),
// as one list.
Result<std::vector<ServedRequest>> replicaRecords(const std::map<int, std::string> &texts);

// Where a launched job's ranks ran: each machine's host, once, in rank order.
std::vector<std::string> jobHosts(const Job &job, const HostsFile &hosts);

// The measurement of a serving run whose replicas' schedulers wrote `records` (all replicas'
// together; a replica may have written none). `failure` is why the run stopped early, as the
// run names it ("rank R ..." for a rank that failed), or empty when it did not. Every request of
// the stream gets a record: the ones no replica wrote fail with that reason, and the ones a
// stopped scheduler cancelled say whether their replica lost the rank. `hosts` are where the
// ranks ran (run.hosts; empty: this machine).
Result<ServingMeasurement> accountServed(const Job &job, const std::string &planPath,
                                         const ServeSetup &setup,
                                         std::vector<ServedRequest> records,
                                         const std::string &failure,
                                         const std::vector<std::string> &hosts = {});

// Writes `dir`/serving-measurement.json (docs/formats.md, "Serving measurement"), creating
// `dir`.
Status writeServedMeasurement(const std::string &dir, const ServingMeasurement &measured);

} // namespace hetplan::runtime
