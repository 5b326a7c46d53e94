#include "runtime/worker/job.h"

#include "core/io/catalog_json.h"
#include "core/io/files.h"
#include "core/io/formats.h"
#include "core/io/loaders.h"
#include "runtime/program/check.h"
#include "runtime/program/compile.h"

namespace hetplan::runtime {

Result<Job> loadJob(const JobSource &source)
{
    auto text = readTextFile(source.planPath);
    if (!text)
        return text.error();
    std::string clusterName = source.cluster.value_or("");
    if (clusterName.empty()) {
        auto named = planClusterName(*text, source.planPath);
        if (!named)
            return named.error();
        clusterName = *named;
    }
    auto cluster = loadCluster(clusterName);
    if (!cluster)
        return cluster.error();
    auto topology = Topology::build(*cluster, builtinGpuCatalog());
    if (!topology)
        return Error{topology.error().kind, clusterName + ": " + topology.error().message};
    auto plan = parsePlan(*text, source.planPath, *topology);
    if (!plan)
        return plan.error();
    if (plan->workload.mode != Mode::Train)
        return badInput(source.planPath + ": a serving plan; the runtime trains (mode train)");
    auto model = loadModel(source.model.value_or(plan->model));
    if (!model)
        return model.error();
    auto scaled = scaleModel(*model, plan->workload.train.seqLen, source.scale);
    if (!scaled)
        return Error{scaled.error().kind, source.planPath + ": " + scaled.error().message};
    auto program = compileProgram(*plan, *model, *topology,
                                  ProgramOptions{.scale = source.scale, .rank = source.rank});
    if (!program)
        return Error{program.error().kind, source.planPath + ": " + program.error().message};
    if (Status checked = source.rank ? okStatus() : checkProgram(*program); !checked)
        return Error{checked.error().kind, source.planPath + ": the compiled program cannot run: "
                                               + checked.error().message};
    Job job{std::move(plan).value(), std::move(topology).value(), std::move(model).value(),
            std::move(scaled).value(), std::move(program).value()};
    return job;
}

} // namespace hetplan::runtime
