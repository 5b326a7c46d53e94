#include "app/cli/help.h"

#include "core/planners/planner.h"

#include <array>

namespace hetplan::cli {
namespace {

constexpr const char *kUsage
    = R"(usage: hetplan-cli COMMAND [options]      (COMMAND --help: its options)

Commands:
  plan      --cluster FILE|EXAMPLE --model NAME|FILE [--planner NAME] [--cost-model NAME]
            [--workload FILE] [--mode train|infer] [--global-batch N] [--micro-batch N]
            [--seq-len N] [--prompt-len N] [--output-len N] [--request-rate R] [--slo S]
            [--seed N] [--time-limit S] [--knob NAME=V,...] [--out FILE|-] [--json]
            [--warm-start FILE] [--remove-gpus A:0,A:1]   (hexgen re-planning, §5.3)
  evaluate  --plan FILE [--cluster FILE|EXAMPLE] [--model NAME|FILE] [--cost-model NAME] [--json]
            [--measured MEASUREMENT]   (predicted beside what `run` measured)
  compare   --cluster ... --model ... [--planners a,b,...] [--rank-by mean|p90]
            [--time-limit S] [--json]
  sweep     --cluster ... --model ... (--link A-B | --inter | --intra) --bandwidth 0.5,1,2,5
            [--time-limit S] [--json]
  validate  FILE...
  catalog   gpus|models|examples [--json]
  run       --plan FILE [--cluster FILE|EXAMPLE] [--model NAME|FILE] [--scale K]
            [--iterations I] [--seed S] [--timeout-s T] [--out MEASUREMENT] [--dump-weights DIR]
            [--backend gloo|cuda] [--max-ranks N]; a serving plan: (--requests N | --duration S)
            [--rate R] [--trace FILE] [--temperature T] [--weights DIR] [--out DIR]
  export    --plan FILE (--format flashflex|hexgen|ranks | --slurm [--command CMD])
            [--hosts HOSTS] [--out FILE]   (for other runtimes and Slurm, docs/export.md)
  launch    --plan FILE --hosts FILE [--known-hosts FILE] [--accept-new-host-keys] [run's
            options] [--command WORD...]   (the ranks on other hosts over SSH)
  import    FILE|DIR... --out CLUSTER [--report FILE|-] [--name NAME] [--network KIND]
            [--cpu-memory-gib G]   (probe files, nccl-tests logs, topo -m, nvbandwidth)
  calibrate --cluster FILE --measured M [--measured M2 ...] --out CLUSTER [--plan P1,P2,...]
            [--model NAME|FILE] [--json]
            (fit the cluster's figures to measured runs)
  calibrate --design --cluster FILE --model NAME [workload options] --out DIR
            (the plans of a calibration job that identifies every figure)
  --version print the version

Cost models: hetplan (default), hexiscale-paper, hexgen-paper.
Exit codes: 0 ok, 1 internal error, 2 bad input, invalid plan or a planner that does not
handle the request, 3 no plan fits, 130 / 143 stopped by SIGINT / SIGTERM (the best plan so
far is written where --out was given).
)";

constexpr const char *kProblemOptions = R"(
Problem:
  --cluster FILE|EXAMPLE  a cluster file or a bundled example (a local file of the same
                          name wins); `hetplan-cli catalog examples` lists them
  --model NAME|FILE       a catalog model or a model file
  --cost-model NAME       hetplan (default), hexiscale-paper, hexgen-paper
  --workload FILE         else the example's bundled workload, else defaults; the output
                          says which, and marks every field that took its default
  single fields:          --mode train|infer --global-batch N --micro-batch N --seq-len N
                          --prompt-len N --output-len N --request-rate R --slo S
)";

constexpr const char *kSearchOptions = R"(
Search:
  --seed N                same seed, same plan
  --time-limit S          stop after S seconds and keep the best plan found so far
  --knob NAME=V[,...]     planner parameters (below); unknown names and values out of
                          range are errors
  --json                  machine-readable output
)";

std::string plannerParameterHelp()
{
    std::string text = "\nPlanner parameters (name=default):\n";
    constexpr std::array kinds{PlannerKind::HexiScale, PlannerKind::Metis, PlannerKind::Holmes,
                               PlannerKind::HexGen, PlannerKind::Exhaustive};
    for (PlannerKind kind : kinds)
        text += "  " + std::string(plannerName(kind)) + ":\n" + parameterHelp(kind, "    ");
    return text + "  megatron: none\n";
}

} // namespace

std::string usage()
{
    return kUsage;
}

std::optional<std::string> commandHelp(const std::string &command)
{
    if (command == "plan")
        return std::string(
                   R"(usage: hetplan-cli plan --cluster FILE|EXAMPLE --model NAME|FILE [options]

Plans one workload on one cluster and prints the plan, its estimate and the workload used.
  --planner NAME          hexiscale, metis, holmes, megatron, exhaustive (training);
                          hexgen (inference); default: the mode's own
  --out FILE|-            write the plan file (checked before planning starts; a link is
                          written through, a device or FIFO written in place, an input file
                          or a read-only file refused); - writes it to standard output and
                          the report to standard error
  --warm-start FILE       start from this plan and search locally (HexGen §5.3); GPUs it
                          names that the cluster no longer has are dropped from it
  --remove-gpus LIST      GPUs that left, e.g. A:0,A:1 (hexgen only): they stay in the
                          cluster file but the plan never uses them
)") + kProblemOptions
               + kSearchOptions + plannerParameterHelp() + R"(
Inference (hexgen): the search trace's best_s is 1 - SLO attainment; the estimate adds
the serving simulation (attainment, p50/p99 latency, highest sustainable rate).
On SIGINT / SIGTERM the search stops, the best plan so far is written where --out was
given, and the exit code is 130 / 143.
)";
    if (command == "evaluate")
        return std::string(R"(usage: hetplan-cli evaluate --plan FILE [options]

Evaluates a plan file: its estimate, memory and validity, with the workload used (the plan
file's own unless overridden).
  --plan FILE             the plan to evaluate (its cluster, model and workload are the
                          defaults for the options below)
)") + kProblemOptions
               + R"(  --measured MEASUREMENT  a hetplan.measurement/1 file that `run` or `launch` wrote for
                          this plan: each phase predicted for the run as it trained (its
                          --scale, sequence length and precision) beside what it measured;
                          a measurement of another plan (run.plan_digest) is refused;
                          of an infer plan, a hetplan.serving-measurement/1 file: the
                          same requests simulated beside it, per replica and latency
                          percentiles
  --json                  machine-readable output
)";
    if (command == "compare")
        return std::string(R"(usage: hetplan-cli compare --cluster ... --model ... [options]

Runs several planners on one problem and prints one row per planner.
  --planners a,b,...      default: every planner of the workload's mode
  --rank-by mean|p90      print the plans best first, by predicted time (mean) or by the
                          90th percentile of its interval (p90, the pessimistic choice);
                          default: in the order the planners ran
)") + kProblemOptions
               + kSearchOptions + plannerParameterHelp();
    if (command == "sweep")
        return std::string(
                   R"(usage: hetplan-cli sweep --cluster ... --model ... TARGET --bandwidth LIST [options]

Re-evaluates and re-plans at each bandwidth of one part of the cluster.
  --link A-B | --inter | --intra   the links between two nodes, every network link, or
                                   every machine's intra link
  --bandwidth 0.5,1,2,5            GB/s values
  --planner NAME                   as for plan
)") + kProblemOptions
               + kSearchOptions;
    if (command == "validate")
        return std::string(
            R"(usage: hetplan-cli validate FILE... [--cluster FILE|EXAMPLE] [--model NAME|FILE] [--cost-model NAME]

Checks cluster, model, workload and plan files; prints "FILE: ok" or each problem.
Exit code 0 when every file is valid, 2 otherwise.
)");
    if (command == "catalog")
        return std::string(R"(usage: hetplan-cli catalog gpus|models|examples [--json]

Lists the built-in GPU types, the model catalog or the bundled examples.
)");
    if (command == "run")
        return std::string(R"(usage: hetplan-cli run --plan FILE [options]

Trains the plan's model for real on this machine: one hetplan-worker process per rank of the
plan (CPU and Gloo, or GPU and NCCL with --backend cuda), their output prefixed with the
rank; Ctrl-C or the first failing rank stops every rank. The plan is compiled and checked
before any process starts (exit 2 when it cannot run). docs/runtime.md describes the
program and the measurement file.
  --plan FILE             the plan to run
  --cluster FILE|EXAMPLE  the cluster the plan names, when it is not a bundled example
  --model NAME|FILE       the model the plan names, when it is not in the catalog
  --scale K               divide head dimension, FFN width, vocabulary and sequence length by K
  --iterations I          training iterations (default 3)
  --seed S                initial weights and synthetic data (default 0)
  --timeout-s T           every blocking collective gives up after T seconds (default 60)
  --out MEASUREMENT       write the merged hetplan.measurement/1 file
  --dump-weights DIR      every rank writes its final weights there, for comparisons
                          (gloo only)
  --backend gloo|cuda     gloo (default): the CPU model over Gloo; cuda: each rank on a GPU of
                          this machine (the rank's index among the plan's ranks on its machine)
                          with NCCL; docs/gpu-host.md
  --max-ranks N           refuse a plan of more than N ranks, one process each (default 256)

A serving plan (mode infer) serves a request stream instead (--backend gloo or cuda), and
prints every request's fate, the latency percentiles and the serving simulator's prediction
for the same requests (docs/runtime.md, "Serving runs"):
  --requests N            serve N requests, or
  --duration S            every request that arrives in S seconds
  --rate R                Poisson arrivals per second (default: the workload's request_rate)
  --trace FILE            arrivals and lengths, one "ARRIVAL_S PROMPT OUTPUT" line each
  --temperature T         sample at temperature T, seeded by --seed (default 0: greedy)
  --weights DIR           serve a training run's --dump-weights DIR (default: the initial ones)
  --out DIR               write DIR/serving-measurement.json (hetplan.serving-measurement/1)
)");
    if (command == "export")
        return std::string(R"(usage: hetplan-cli export --plan FILE (--format F | --slurm) [options]

Writes a plan for other launchers and runtimes (docs/export.md). Ranks are numbered as
`hetplan-cli run` numbers them.
  --format flashflex      FlashFlex's llama_train.py arguments (training plans)
  --format hexgen         HexGen's --hetero_config and --pp_partition, one job per pipeline
                          (serving plans); --pipeline N prints only pipeline N's
  --format ranks          the rank layout as JSON (hetplan.ranks/1), for your own trainer
  --slurm                 an sbatch script starting one srun task per rank: hetplan-worker,
                          or --command CMD (one line of shell) with RANK, WORLD_SIZE,
                          LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR and MASTER_PORT set;
                          --job-name NAME, --master-port PORT (default 29500); for
                          hetplan-worker: --backend cuda|gloo (default cuda), --scale K,
                          --iterations I, as `run` takes them
  --hosts HOSTS           a hosts file (hetplan.hosts/1): each machine's host, the node its
                          ranks start on (default: the cluster's host, else the machine name)
  --cluster FILE|EXAMPLE  the cluster the plan names, when it is not a bundled example
  --model NAME|FILE       the model the plan names, when it is not in the catalog
  --out FILE              write there (atomically) instead of to standard output
)");
    if (command == "launch")
        return launchHelp();
    if (command == "probe")
        return probeHostsHelp();
    if (command == "import")
        return std::string(R"(usage: hetplan-cli import FILE|DIR... --out CLUSTER [options]

Builds a cluster file from what was measured: hetplan-probe files, nccl-tests logs
(all_reduce_perf, all_gather_perf, sendrecv_perf, ...), `nvidia-smi topo -m` output and
nvbandwidth output, each recognised by its content; a folder is read with everything below
it, leaving out files of no such kind. Prints every imported figure with the file, line and
method it came from (docs/import.md); the cluster file records the same in "origin".
  --out CLUSTER|-         the cluster file, written atomically (- : standard output, and the
                          report goes to standard error)
  --report FILE|-         where the report goes (default: standard output)
  --name NAME             the cluster's name (default: imported)
  --network KIND          ethernet (default), infiniband or roce: the kind of the links
                          between machines, which measurements do not tell
  --cpu-memory-gib G      memory of each CPU rank's device (default 16; the probe does not
                          measure host memory)
)");
    if (command == "calibrate")
        return std::string(
            R"(usage: hetplan-cli calibrate --cluster FILE --measured M [--measured M2 ...] --out CLUSTER
                            [options]

Fits the figures the hetplan cost model reads from the cluster to runs of plans on it
(hetplan.measurement/1 files of `run`): each GPU type's achieved fraction (its compute scale
where its compute rests on a measured layer table) and each link kind's transport efficiency
and per-hop latency, by least squares over ln(predicted /
measured) of the per-stage compute, TP, PP and DP times. Each run is predicted as it trained
(its --scale, sequence length and backend precision). Prints every figure before and after
with its standard uncertainty and the runs that identify it; a figure the runs cannot tell
apart from another, that did not run (CPU ranks standing in for GPUs), or whose fit ends at
a bound of its range is kept as it was and flagged (docs/calibration.md). The calibrated
cluster records in "origin" what it was fitted from, and in "calibration" the figures'
uncertainties and the residuals. A measurement of another plan than its own
(run.plan_digest) is refused. Serving runs (hetplan.serving-measurement/1 files of `run` or
`launch --out DIR`) fit each GPU type's achieved fraction and memory bandwidth to every
replica's mean prefill and time per output token instead (docs/calibration.md, "Serving runs").
  --cluster FILE          the cluster the runs ran on (a file or a bundled example)
  --measured M            a measurement file; give it once per run (several runs of
                          different shapes identify more figures)
  --plan P1,P2,...        the plan of each measurement, in order (default: the plan each
                          measurement names in run.plan, as given or beside the file)
  --model NAME|FILE       the model every run trained (default: the one each plan names)
  --out CLUSTER|-         the calibrated cluster, written atomically
  --accept-bound          apply a figure whose fit ends at a bound of its range (refused
                          by default)
  --json                  the report as JSON

hetplan-cli calibrate --design --cluster FILE --model NAME|FILE [--global-batch N]
                      [--micro-batch N] [--seq-len N] [--workload FILE] --out DIR
writes the plans of a calibration job into DIR: per GPU type, one GPU alone at the
micro-batch and twice it; per link kind, its fastest and slowest pair as a two-stage
pipeline and as two data-parallel replicas. Launch each, then fit them together.
)");
    return std::nullopt;
}

} // namespace hetplan::cli
