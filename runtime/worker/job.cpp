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
    JobInput input{std::move(text).value(),
                   source.planPath,
                   std::move(cluster).value(),
                   clusterName,
                   std::nullopt,
                   source.scale,
                   source.rank};
    if (source.model) {
        auto model = loadModel(*source.model);
        if (!model)
            return model.error();
        input.model = std::move(model).value();
    }
    return loadJob(input);
}

namespace {

// A serving plan compiles as the training plan of its layout, each replica taking its batch:
// its ranks and groups are what a serving run connects (runtime/serve/serve_links.h).
Plan asCompiled(Plan plan)
{
    if (plan.workload.mode != Mode::Infer)
        return plan;
    plan.workload.train.globalBatch = 0;
    for (const Pipeline &p : plan.pipelines)
        plan.workload.train.globalBatch += p.microBatch * p.microBatches;
    plan.workload.train.seqLen = workloadSeqLen(plan.workload);
    return plan;
}

} // namespace

int workloadSeqLen(const Workload &workload)
{
    const InferWorkload &infer = workload.infer;
    return workload.mode == Mode::Infer ? infer.promptLen + infer.outputLen : workload.train.seqLen;
}

Result<Job> loadJob(const JobInput &input)
{
    const std::string &planName = input.planName;
    auto topology = Topology::build(input.cluster, builtinGpuCatalog());
    if (!topology)
        return Error{topology.error().kind, input.clusterName + ": " + topology.error().message};
    auto plan = parsePlan(input.planText, planName, *topology);
    if (!plan)
        return plan.error();
    auto model = input.model ? Result<ModelSpec>(*input.model) : loadModel(plan->model);
    if (!model)
        return Error{model.error().kind, planName + ": model: " + model.error().message};
    auto scaled = scaleModel(*model, workloadSeqLen(plan->workload), input.scale);
    if (!scaled)
        return Error{scaled.error().kind, planName + ": " + scaled.error().message};
    auto program = compileProgram(asCompiled(*plan), *model, *topology,
                                  ProgramOptions{.scale = input.scale, .rank = input.rank});
    if (!program)
        return Error{program.error().kind, planName + ": " + program.error().message};
    if (Status checked = input.rank ? okStatus() : checkProgram(*program); !checked)
        return Error{checked.error().kind,
                     planName + ": the compiled program cannot run: " + checked.error().message};
    Job job{std::move(plan).value(), std::move(topology).value(), std::move(model).value(),
            std::move(scaled).value(), std::move(program).value()};
    return job;
}

} // namespace hetplan::runtime
