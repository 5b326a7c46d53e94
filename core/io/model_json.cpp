// hetplan.model/1 (docs/formats.md); the model catalog holds the same objects.
#include "core/io/format_objects.h"
#include "core/io/formats.h"

namespace hetplan {

using namespace jsonio;

namespace {

constexpr Choice<MlpKind> kMlpKinds[] = {{"swiglu", MlpKind::SwiGlu}, {"gelu", MlpKind::Gelu}};

// Beyond every published decoder-only model by an order of magnitude, and small enough that
// parameter and FLOP counts stay far from overflow.
constexpr IntRange kLayers{1, 1000};
constexpr IntRange kHidden{1, 1 << 17};
constexpr IntRange kFfnHidden{1, 1 << 20};
constexpr IntRange kVocab{1, 1 << 24};
constexpr IntRange kSeqLen{1, 1 << 24};

} // namespace

namespace jsonio {

ModelSpec readModelFields(Object &o)
{
    ModelSpec m;
    m.name = o.required("name").string(kMaxNameChars);
    m.layers = o.required("layers").integer(kLayers, 1);
    m.hidden = o.required("hidden").integer(kHidden, 1);
    m.ffnHidden = o.required("ffn_hidden").integer(kFfnHidden, 1);
    const Value heads = o.required("heads");
    m.heads = heads.integer({1, kHidden.max}, 1);
    if (!o.context().failed() && m.hidden % m.heads != 0)
        heads.fail(std::to_string(m.heads) + " does not divide hidden (" + std::to_string(m.hidden)
                   + "); every head has hidden / heads dimensions");
    const Value kvHeads = o.optional("kv_heads");
    m.kvHeads = kvHeads.integer({1, kHidden.max}, m.heads);
    if (!o.context().failed() && (m.kvHeads > m.heads || m.heads % m.kvHeads != 0))
        kvHeads.fail(std::to_string(m.kvHeads) + " does not divide heads ("
                     + std::to_string(m.heads)
                     + "); grouped-query attention shares each KV "
                       "head among heads / kv_heads query heads");
    m.vocab = o.required("vocab").integer(kVocab, 1);
    m.maxSeqLen = o.required("max_seq_len").integer(kSeqLen, 1);
    m.mlp = o.optional("mlp").oneOf<MlpKind>(kMlpKinds, MlpKind::SwiGlu, "MLP kind");
    return m;
}

void writeModelFields(OrderedJson &j, const ModelSpec &m)
{
    j["name"] = m.name;
    j["layers"] = m.layers;
    j["hidden"] = m.hidden;
    j["ffn_hidden"] = m.ffnHidden;
    j["heads"] = m.heads;
    j["kv_heads"] = m.kvHeads;
    j["vocab"] = m.vocab;
    j["max_seq_len"] = m.maxSeqLen;
    j["mlp"] = nameOf<MlpKind>(kMlpKinds, m.mlp);
}

} // namespace jsonio

Result<ModelSpec> parseModel(std::string_view text, std::string_view source)
{
    return readDocument(text, source, kModelFormat,
                        [](Object &root) { return readModelFields(root); });
}

std::string writeModel(const ModelSpec &model)
{
    OrderedJson j;
    j["format"] = kModelFormat;
    writeModelFields(j, model);
    return dumpPretty(j);
}

} // namespace hetplan
