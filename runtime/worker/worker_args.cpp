#include "runtime/worker/worker_args.h"

namespace hetplan::runtime {

Result<WorkerArgs> parseWorkerArgs(const std::vector<std::string> &words)
{
    auto options = CommandOptions::parse(words, workerOptionSpec());
    if (!options)
        return options.error();
    WorkerArgs args;
    args.help = options->has("help");
    args.version = options->has("version");
    if (args.help || args.version)
        return args;
    auto command = readWorkerCommand(*options);
    if (!command)
        return command.error();
    static_cast<WorkerCommand &>(args) = std::move(command).value();
    return args;
}

JobSource jobSource(const WorkerCommand &command)
{
    return {command.plan, command.cluster, command.model, command.scale, std::nullopt};
}

StageRun stageRun(const Job &job, const WorkerCommand &command)
{
    return {job.plan.workload.train.seqLen, command.scale, command.seed, job.program.globalBatch,
            job.plan.workload.train.optimizer};
}

} // namespace hetplan::runtime
