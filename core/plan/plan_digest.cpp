#include "core/plan/plan_digest.h"

#include "core/model/topology.h"
#include "core/plan/transport.h"

#include <cstdint>
#include <optional>

namespace hetplan {
namespace {

void appendTransport(std::string &text, const char *group, const std::optional<Transport> &t)
{
    text += ' ';
    text += group;
    text += '=';
    text += t ? std::string(transportName(*t)) : std::string("-");
}

// One line per pipeline and per stage; every field is written, absent ones as "-".
std::string canonicalLayout(const Plan &plan, const Topology &topology)
{
    std::string text;
    for (const Pipeline &pipeline : plan.pipelines) {
        text += "pipeline micro_batch=";
        text += std::to_string(pipeline.microBatch);
        text += " micro_batches=";
        text += std::to_string(pipeline.microBatches);
        text += '\n';
        for (const Stage &stage : pipeline.stages) {
            text += "stage gpus=";
            for (const int gpu : stage.gpus) {
                text += gpu >= 0 && gpu < topology.gpuCount() ? topology.gpu(gpu).name
                                                              : std::to_string(gpu);
                text += ',';
            }
            text += " tp=";
            text += std::to_string(stage.tp);
            text += " dp=";
            text += std::to_string(stage.dp);
            text += " layers=";
            text += std::to_string(stage.layerBegin);
            text += '-';
            text += std::to_string(stage.layerEnd);
            text += " dp_split=";
            for (const int share : stage.dpSplit) {
                text += std::to_string(share);
                text += ',';
            }
            appendTransport(text, "tp_transport", stage.transport.tp);
            appendTransport(text, "pp_transport", stage.transport.pp);
            appendTransport(text, "dp_transport", stage.transport.dp);
            text += '\n';
        }
    }
    return text;
}

} // namespace

std::string planDigest(const Plan &plan, const Topology &topology)
{
    // FNV-1a, 64-bit: offset basis and prime of the published definition.
    std::uint64_t hash = 0xcbf29ce484222325ULL;
    for (const char ch : canonicalLayout(plan, topology)) {
        hash ^= static_cast<unsigned char>(ch);
        hash *= 0x100000001b3ULL;
    }
    static constexpr char kHex[] = "0123456789abcdef";
    std::string digest(16, '0');
    for (int i = 15; i >= 0; --i, hash >>= 4)
        digest[std::size_t(i)] = kHex[hash & 0xf];
    return digest;
}

} // namespace hetplan
