#include "core/io/warm_start.h"

#include "core/io/formats.h"
#include "core/model/topology.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace hetplan {

Result<Plan> parseWarmStart(std::string_view text, std::string_view source,
                            const Topology &topology, const std::vector<int> &offline)
{
    using Json = nlohmann::json;
    Json json = Json::parse(text, nullptr, false);
    if (json.is_discarded() || !json.is_object() || !json.contains("pipelines")
        || !json["pipelines"].is_array())
        return parsePlan(text, source, topology); // its reader names what is wrong
    const auto present = [&](const Json &name) {
        if (!name.is_string())
            return true; // left for the reader to reject
        const std::optional<int> gpu = topology.findGpu(name.get<std::string>());
        return gpu && std::find(offline.begin(), offline.end(), *gpu) == offline.end();
    };
    json.erase("estimate");
    Json pipelines = Json::array();
    for (Json pipeline : json["pipelines"]) {
        if (!pipeline.is_object() || !pipeline.contains("stages")
            || !pipeline["stages"].is_array()) {
            pipelines.push_back(pipeline);
            continue;
        }
        Json stages = Json::array();
        for (Json stage : pipeline["stages"]) {
            if (!stage.is_object() || !stage.contains("gpus") || !stage["gpus"].is_array()) {
                stages.push_back(stage);
                continue;
            }
            Json kept = Json::array();
            for (const Json &name : stage["gpus"])
                if (present(name))
                    kept.push_back(name);
            if (kept.empty())
                continue;
            if (kept.size() != stage["gpus"].size()) {
                stage["tp"] = kept.size();
                stage["dp"] = 1;
                stage.erase("dp_split");
            }
            stage["gpus"] = std::move(kept);
            stages.push_back(std::move(stage));
        }
        if (stages.empty())
            continue;
        pipeline["stages"] = std::move(stages);
        pipelines.push_back(std::move(pipeline));
    }
    if (pipelines.empty())
        return Plan{}; // every GPU it used is gone: the search starts from the cluster alone
    json["pipelines"] = std::move(pipelines);
    return parsePlan(json.dump(), source, topology);
}

} // namespace hetplan
