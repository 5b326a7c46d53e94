// FlashFlex and HexGen arguments and the rank layout file (docs/export.md).
#include "core/io/plan_export.h"

#include "core/io/json_util.h"

namespace hetplan {

using jsonio::OrderedJson;

namespace {

std::string where(std::size_t p, std::size_t s)
{
    return "pipeline " + std::to_string(p) + " stage " + std::to_string(s);
}

// What both seeds' runtimes assume of every pipeline: one TP group per stage (HexiScale §3.1,
// HexGen §3.1), TP degrees that split the attention heads, and contiguous stages covering
// every layer of the model in order.
Status checkStages(const Plan &plan, const ModelSpec &model, std::string_view runtime)
{
    if (plan.pipelines.empty())
        return badInput("the plan has no pipelines; " + std::string(runtime)
                        + " needs at least one");
    for (std::size_t p = 0; p < plan.pipelines.size(); ++p) {
        const std::vector<Stage> &stages = plan.pipelines[p].stages;
        if (stages.empty())
            return badInput("pipeline " + std::to_string(p) + " has no stages");
        int nextLayer = 0;
        for (std::size_t s = 0; s < stages.size(); ++s) {
            const Stage &stage = stages[s];
            if (stage.dp != 1)
                return badInput(where(p, s) + " has dp " + std::to_string(stage.dp) + ": "
                                + std::string(runtime)
                                + " runs one TP group per stage, with no data parallelism "
                                  "inside a stage (a Metis-style plan); re-plan with a planner "
                                  "whose stages are single TP groups (hexiscale), or use "
                                  "--format ranks");
            if (model.heads % stage.tp != 0)
                return badInput(where(p, s) + " has tp " + std::to_string(stage.tp)
                                + ", which does not divide the " + std::to_string(model.heads)
                                + " attention heads of model '" + model.name + "'; "
                                + std::string(runtime) + " refuses it");
            if (stage.layerBegin != nextLayer || stage.layerEnd <= stage.layerBegin)
                return badInput(where(p, s) + " holds layers [" + std::to_string(stage.layerBegin)
                                + ", " + std::to_string(stage.layerEnd) + "); "
                                + std::string(runtime)
                                + " needs each pipeline's stages to hold consecutive, "
                                  "non-empty runs of layers starting at layer 0");
            nextLayer = stage.layerEnd;
        }
        if (nextLayer != model.layers)
            return badInput("pipeline " + std::to_string(p) + " holds layers 0-"
                            + std::to_string(nextLayer) + " of model '" + model.name
                            + "', which has " + std::to_string(model.layers) + "; "
                            + std::string(runtime) + " needs every layer in every pipeline");
    }
    return okStatus();
}

std::string joined(const std::vector<int> &values)
{
    std::string text;
    for (int v : values)
        text += (text.empty() ? "" : " ") + std::to_string(v);
    return text;
}

// Python list literals as FlashFlex evaluates them: "[[4,2],[2]]".
std::string pythonList(const OrderedJson &value)
{
    return value.dump(-1, ' ', false, OrderedJson::error_handler_t::replace);
}

} // namespace

Result<std::string> flashflexArguments(const Plan &plan, const ModelSpec &model,
                                       const std::vector<RankPlacement> &layout)
{
    if (plan.workload.mode != Mode::Train)
        return badInput("this is a serving plan: FlashFlex trains (forward, backward and "
                        "gradient sync per pipeline); use --format hexgen for a serving plan");
    if (Status ok = checkStages(plan, model, "FlashFlex"); !ok)
        return ok.error();
    OrderedJson gpusPerStage = OrderedJson::array();
    OrderedJson layersPerStage = OrderedJson::array();
    std::vector<std::vector<std::vector<int>>> ranksPerStage(plan.pipelines.size());
    for (std::size_t p = 0; p < plan.pipelines.size(); ++p)
        ranksPerStage[p].resize(plan.pipelines[p].stages.size());
    for (const RankPlacement &r : layout)
        ranksPerStage[std::size_t(r.pipeline)][std::size_t(r.stage)].push_back(r.rank);
    std::vector<int> batchPerPipeline;
    std::vector<int> microBatches;
    for (const Pipeline &pipe : plan.pipelines) {
        OrderedJson gpus = OrderedJson::array();
        OrderedJson layers = OrderedJson::array();
        for (const Stage &stage : pipe.stages) {
            gpus.push_back(stage.tp);
            layers.push_back(stage.layerCount());
        }
        gpusPerStage.push_back(std::move(gpus));
        layersPerStage.push_back(std::move(layers));
        // FlashFlex's global_bsz_size is one pipeline's sequences per iteration.
        batchPerPipeline.push_back(pipe.microBatch * pipe.microBatches);
        microBatches.push_back(pipe.microBatches);
    }
    return "--total-layer-num " + std::to_string(model.layers) + " \\\n--hetero_configs \""
           + pythonList(gpusPerStage) + "\" \\\n--layer_partitions \"" + pythonList(layersPerStage)
           + "\" \\\n--pp_layouts \"" + pythonList(OrderedJson(ranksPerStage))
           + "\" \\\n--global_bsz_size " + joined(batchPerPipeline) + " \\\n--chunks "
           + joined(microBatches) + "\n";
}

Result<std::vector<HexgenReplica>> hexgenArguments(const Plan &plan, const ModelSpec &model)
{
    if (plan.workload.mode != Mode::Infer)
        return badInput("this is a training plan: HexGen's runtime serves (no backward pass, "
                        "no gradient sync); use --format flashflex for a training plan");
    if (Status ok = checkStages(plan, model, "HexGen"); !ok)
        return ok.error();
    std::vector<HexgenReplica> replicas;
    int firstRank = 0;
    for (const Pipeline &pipe : plan.pipelines) {
        std::vector<int> tp;
        std::vector<int> layers;
        for (const Stage &stage : pipe.stages) {
            tp.push_back(stage.tp);
            layers.push_back(stage.layerCount());
        }
        int world = 0;
        for (int t : tp)
            world += t;
        replicas.push_back({firstRank, world,
                            "--hetero_config " + joined(tp) + " --pp_partition " + joined(layers)});
        firstRank += world;
    }
    return replicas;
}

std::string writeRankLayout(const Plan &plan, const std::vector<RankPlacement> &layout)
{
    OrderedJson j;
    j["format"] = kRanksFormat;
    j["cluster"] = plan.cluster;
    j["model"] = plan.model;
    j["mode"] = plan.workload.mode == Mode::Train ? "train" : "infer";
    j["world_size"] = layout.size();
    j["master_addr"] = layout.empty() ? std::string() : layout.front().host;
    OrderedJson &nodes = j["nodes"] = OrderedJson::array();
    for (const NodeRanks &node : nodesOf(layout)) {
        OrderedJson n;
        n["host"] = node.host;
        n["ranks"] = node.ranks;
        std::string visible;
        for (int gpu : node.gpuIndices)
            visible += (visible.empty() ? "" : ",") + std::to_string(gpu);
        if (node.singleMachine)
            n["cuda_visible_devices"] = visible;
        else
            n["cuda_visible_devices"] = nullptr;
        nodes.push_back(std::move(n));
    }
    OrderedJson &ranks = j["ranks"] = OrderedJson::array();
    for (const RankPlacement &r : layout) {
        OrderedJson o;
        o["rank"] = r.rank;
        o["host"] = r.host;
        o["local_rank"] = r.localRank;
        o["machine"] = r.machineName;
        o["gpu"] = r.gpuName;
        o["gpu_index"] = r.gpuIndex;
        o["pipeline"] = r.pipeline;
        o["stage"] = r.stage;
        o["replica"] = r.replica;
        o["tp_rank"] = r.tpRank;
        o["tp_size"] = r.tpSize;
        o["layers"] = OrderedJson::array({r.layerBegin, r.layerEnd});
        ranks.push_back(std::move(o));
    }
    return jsonio::dumpPretty(j);
}

} // namespace hetplan
