#include "core/cost/layer_table.h"

#include <algorithm>

namespace hetplan {
namespace {

double lineThrough(double x0, double y0, double x1, double y1, double x)
{
    return x1 == x0 ? y0 : y0 + (y1 - y0) * (x - x0) / (x1 - x0);
}

} // namespace

const MeasuredLayerTable *matchingLayerTable(const GpuType &type, const ModelSpec &model,
                                             int seqLen, int tp)
{
    if (type.measuredLayers.empty())
        return nullptr;
    const std::string shape = modelShapeKey(model);
    for (const MeasuredLayerTable &table : type.measuredLayers)
        if (table.modelShape == shape && table.seqLen == seqLen && table.tp == tp
            && !table.points.empty())
            return &table;
    return nullptr;
}

LayerSeconds layerSecondsAt(const MeasuredLayerTable &table, double microBatch)
{
    const std::vector<LayerTimes> &p = table.points;
    if (p.empty() || microBatch <= 0)
        return {};
    if (p.size() == 1) {
        const double share = microBatch / p.front().microBatch;
        return {p.front().forwardS * share, p.front().backwardS * share};
    }
    // The segment whose line gives the time: the one around microBatch, else the nearest end's.
    std::size_t i = 1;
    while (i + 1 < p.size() && p[i].microBatch < microBatch)
        ++i;
    const LayerTimes &a = p[i - 1];
    const LayerTimes &b = p[i];
    LayerSeconds s{lineThrough(a.microBatch, a.forwardS, b.microBatch, b.forwardS, microBatch),
                   lineThrough(a.microBatch, a.backwardS, b.microBatch, b.backwardS, microBatch)};
    if (microBatch < p.front().microBatch) {
        const double share = microBatch / p.front().microBatch;
        s.forwardS = std::max(s.forwardS, p.front().forwardS * share);
        s.backwardS = std::max(s.backwardS, p.front().backwardS * share);
    }
    return {std::max(s.forwardS, 0.0), std::max(s.backwardS, 0.0)};
}

double tableMultiplier(const MeasuredLayerTable &table, const GpuType &type)
{
    const double fraction
        = type.achievedFraction > 0 ? table.achievedFraction / type.achievedFraction : 1.0;
    return type.computeScale > 0 ? fraction / type.computeScale : fraction;
}

} // namespace hetplan
