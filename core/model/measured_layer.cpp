#include "core/model/measured_layer.h"

namespace hetplan {

std::string modelShapeKey(const ModelSpec &model)
{
    std::string key = "h" + std::to_string(model.hidden);
    key += " f" + std::to_string(model.ffnHidden);
    key += " a" + std::to_string(model.heads);
    key += " kv" + std::to_string(model.kvHeads);
    key += " v" + std::to_string(model.vocab);
    key += model.mlp == MlpKind::SwiGlu ? " swiglu" : " gelu";
    return key;
}

} // namespace hetplan
