// The sbatch script of `hetplan-cli export --slurm` (docs/export.md, "Slurm").
#include "core/io/slurm_script.h"

#include "core/base/shell_quote.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace hetplan {
namespace {

bool slurmNodeName(const std::string &host)
{
    return !host.empty() && host.front() != '-'
           && std::all_of(host.begin(), host.end(), [](unsigned char c) {
                  return std::isalnum(c) || c == '.' || c == '_' || c == '-';
              });
}

// Nodes with the same number of ranks form one component of the job, since sbatch asks for
// tasks and GPUs per node alike across a component (heterogeneous jobs, `#SBATCH hetjob`).
std::vector<std::vector<const NodeRanks *>> componentsOf(const std::vector<NodeRanks> &nodes)
{
    std::map<std::size_t, std::size_t> indexOfCount;
    std::vector<std::vector<const NodeRanks *>> components;
    for (const NodeRanks &node : nodes) {
        auto [it, added] = indexOfCount.try_emplace(node.ranks.size(), components.size());
        if (added)
            components.emplace_back();
        components[it->second].push_back(&node);
    }
    return components;
}

std::string directives(const std::vector<std::vector<const NodeRanks *>> &components,
                       const std::string &jobName)
{
    std::string text = "#SBATCH --job-name=" + jobName + "\n";
    for (std::size_t c = 0; c < components.size(); ++c) {
        const auto &nodes = components[c];
        const std::string perNode = std::to_string(nodes.front()->ranks.size());
        std::string list;
        for (const NodeRanks *node : nodes)
            list += (list.empty() ? "" : ",") + node->host;
        if (c > 0)
            text += "#SBATCH hetjob\n";
        text += "#SBATCH --nodes=" + std::to_string(nodes.size())
                + "\n#SBATCH --ntasks=" + std::to_string(nodes.size() * nodes.front()->ranks.size())
                + "\n#SBATCH --ntasks-per-node=" + perNode + "\n#SBATCH --gpus-per-node=" + perNode
                + "\n#SBATCH --nodelist=" + list + "\n";
    }
    return text;
}

// The rendezvous directory must be one every node sees; HETPLAN_RENDEZVOUS may name a
// redis://HOST:PORT store instead. Gloo needs an address the other nodes reach.
std::string workerCommand(const SlurmOptions &o)
{
    WorkerCommand command = o.worker;
    // Stand-ins for what the task's shell supplies, so that the options are written.
    command.comm.rendezvous = command.comm.listenAddress = command.out = "$";
    if (command.backend == BackendKind::Cuda)
        command.device = 0;
    return workerShellCommand(
        "\"$worker\"", command,
        {{"rank", "\"$RANK\""},
         {"world", "\"$WORLD_SIZE\""},
         {"device", "\"$LOCAL_RANK\""},
         {"rendezvous", "\"${HETPLAN_RENDEZVOUS:-$HETPLAN_RUN_DIR/rendezvous}\""},
         {"listen-address", "\"${HETPLAN_LISTEN_ADDRESS:-$(hostname -I | awk '{print $1}')}\""},
         {"out", "\"$HETPLAN_RUN_DIR/rank-$RANK.json\""}},
        {"rendezvous", "listen-address", "out"});
}

std::string taskScript(const std::vector<NodeRanks> &nodes, const SlurmOptions &o)
{
    const bool worker = o.command.empty();
    std::string text = "set -euo pipefail\ncase \"$SLURMD_NODENAME\" in\n";
    for (const NodeRanks &node : nodes) {
        std::string ranks;
        for (int r : node.ranks)
            ranks += (ranks.empty() ? "" : " ") + std::to_string(r);
        text += "    " + node.host + ") ranks=(" + ranks + ")";
        if (worker) {
            const auto own = o.workerOfHost.find(node.host);
            text += " worker="
                    + shellQuote(own == o.workerOfHost.end() ? o.workerExecutable : own->second);
        }
        text += " ;;\n";
    }
    return text
           + "    *) echo \"hetplan: node $SLURMD_NODENAME holds no rank of the plan\" >&2; exit 1 "
             ";;\nesac\n"
             "if (( SLURM_LOCALID >= ${#ranks[@]} )); then\n"
             "    echo \"hetplan: node $SLURMD_NODENAME has ${#ranks[@]} ranks, not task "
             "$SLURM_LOCALID\" >&2\n    exit 1\nfi\n"
             "export RANK=\"${ranks[$SLURM_LOCALID]}\" LOCAL_RANK=\"$SLURM_LOCALID\" "
             "LOCAL_WORLD_SIZE=\"${#ranks[@]}\"\n"
           + (worker ? workerCommand(o) : o.command) + "\n";
}

} // namespace

Result<std::string> slurmScript(const std::vector<RankPlacement> &layout,
                                const SlurmOptions &options)
{
    if (layout.empty())
        return badInput("the plan has no ranks to start");
    for (const RankPlacement &r : layout)
        if (!slurmNodeName(r.host))
            return badInput("machine '" + r.machineName + "' maps to host '" + r.host
                            + "', which is not a Slurm node name; valid: letters, digits, '.', "
                              "'_' and '-' (give --hosts with each machine's node name)");
    if (!slurmNodeName(options.jobName))
        return badInput("--job-name '" + options.jobName
                        + "': valid: letters, digits, '.', '_' and '-'");
    if (std::any_of(options.command.begin(), options.command.end(),
                    [](unsigned char c) { return c < 0x20 || c == 0x7f; }))
        return badInput("--command: contains a newline or another control character; valid: "
                        "one line of shell (put longer work into a script and run that)");
    const std::vector<NodeRanks> nodes = nodesOf(layout);
    const auto components = componentsOf(nodes);
    const bool worker = options.command.empty();
    std::string text = "#!/bin/bash\n"
                       "# Written by hetplan-cli export --slurm (docs/export.md, \"Slurm\"): "
                       + std::to_string(layout.size()) + " ranks on " + std::to_string(nodes.size())
                       + " nodes, one task per rank.\n# Each task finds its rank by its node "
                         "name and SLURM_LOCALID, whatever order Slurm numbers tasks in.\n"
                       + directives(components, options.jobName) + "\nset -euo pipefail\n"
                       + "export WORLD_SIZE=" + std::to_string(layout.size())
                       + "\nexport MASTER_ADDR=" + layout.front().host + " # the node of rank 0\n"
                       + "export MASTER_PORT=\"${MASTER_PORT:-" + std::to_string(options.masterPort)
                       + "}\"\n";
    if (worker)
        text += "export HETPLAN_RUN_DIR=\"${HETPLAN_RUN_DIR:-$SLURM_SUBMIT_DIR/"
                "hetplan-$SLURM_JOB_ID}\"\nmkdir -p \"$HETPLAN_RUN_DIR/rendezvous\"\n";
    // A function, not a heredoc: a value (a path may hold a newline) can then end nothing but
    // its own single-quoted word, and `declare -f` hands srun's bash the same words.
    text += "\n# What every task runs; srun's bash defines it from this script (declare -f).\n"
            "hetplan_task() {\n"
            + taskScript(nodes, options)
            + "}\n\n# One failed rank ends the step, as `hetplan-cli run` "
              "stops every rank. The ranks\n# rendezvous by themselves (no PMI); srun starts a "
              "step across the components of a\n# heterogeneous job with --mpi=none even where "
              "heterogeneous steps are not enabled.\nsrun --kill-on-bad-exit=1 --mpi=none";
    if (components.size() > 1)
        text += " --het-group=0-" + std::to_string(components.size() - 1);
    text += " bash -c \"$(declare -f hetplan_task); hetplan_task\"\n";
    if (worker)
        text += "echo \"hetplan: per-rank measurements in $HETPLAN_RUN_DIR\"\n";
    return text;
}

} // namespace hetplan
