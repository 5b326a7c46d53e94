#include "core/planners/metis_partition.h"

#include <algorithm>
#include <cmath>
#include <metis.h>
#include <string>

namespace hetplan {
namespace {

static_assert(IDXTYPEWIDTH == 32, "the wrapper scales weights for 32-bit METIS indices");

// Integer weights keep the ratios of the real ones: the largest maps to `top`, nothing below 1
// (METIS rejects zero edge weights and treats zero vertex weights as free).
std::vector<idx_t> scaleToIntegers(const std::vector<double> &values, double top)
{
    double largest = 0;
    for (double v : values)
        largest = std::max(largest, v);
    std::vector<idx_t> scaled(values.size(), 1);
    if (largest <= 0)
        return scaled;
    for (size_t i = 0; i < values.size(); ++i)
        scaled[i] = std::max<idx_t>(1, static_cast<idx_t>(std::llround(values[i] / largest * top)));
    return scaled;
}

std::string metisErrorName(int status)
{
    switch (status) {
    case METIS_ERROR_INPUT:
        return "erroneous input";
    case METIS_ERROR_MEMORY:
        return "out of memory";
    default:
        return "error " + std::to_string(status);
    }
}

} // namespace

Result<std::vector<int>> partitionGraph(const WeightedGraph &graph, const PartitionOptions &options)
{
    const int vertexCount = static_cast<int>(graph.vertexWeights.size());
    assert(options.parts >= 1);
    std::vector<int> part(static_cast<size_t>(vertexCount), 0);
    if (vertexCount == 0 || options.parts == 1)
        return part;
    if (options.parts >= vertexCount) {
        for (int v = 0; v < vertexCount; ++v)
            part[static_cast<size_t>(v)] = v;
        return part;
    }

    // CSR with both directions of every edge. Edge weights are scaled so that the sum over all
    // of them stays far below 2^31, as METIS adds them up in idx_t.
    std::vector<GraphEdge> edges;
    edges.reserve(graph.edges.size());
    for (const GraphEdge &e : graph.edges) {
        assert(e.a >= 0 && e.a < vertexCount && e.b >= 0 && e.b < vertexCount && e.a != e.b);
        if (e.weight > 0)
            edges.push_back(e);
    }
    std::vector<double> edgeWeights;
    edgeWeights.reserve(edges.size());
    for (const GraphEdge &e : edges)
        edgeWeights.push_back(e.weight);
    const double edgeTop = std::clamp(1e9 / (2.0 * double(edges.size()) + 1.0), 1.0, 1e6);
    const std::vector<idx_t> scaledEdges = scaleToIntegers(edgeWeights, edgeTop);

    std::vector<idx_t> degree(static_cast<size_t>(vertexCount) + 1, 0);
    for (const GraphEdge &e : edges) {
        ++degree[static_cast<size_t>(e.a) + 1];
        ++degree[static_cast<size_t>(e.b) + 1];
    }
    std::vector<idx_t> xadj(degree);
    for (int v = 0; v < vertexCount; ++v)
        xadj[static_cast<size_t>(v) + 1] += xadj[static_cast<size_t>(v)];
    std::vector<idx_t> adjncy(static_cast<size_t>(xadj.back()));
    std::vector<idx_t> adjwgt(adjncy.size());
    std::vector<idx_t> fill(xadj.begin(), xadj.end() - 1);
    for (size_t i = 0; i < edges.size(); ++i) {
        const auto put = [&](int from, int to) {
            const auto at = static_cast<size_t>(fill[static_cast<size_t>(from)]++);
            adjncy[at] = to;
            adjwgt[at] = scaledEdges[i];
        };
        put(edges[i].a, edges[i].b);
        put(edges[i].b, edges[i].a);
    }
    std::vector<idx_t> vwgt = scaleToIntegers(graph.vertexWeights, 1000);

    idx_t options_[METIS_NOPTIONS];
    METIS_SetDefaultOptions(options_);
    options_[METIS_OPTION_SEED] = static_cast<idx_t>(options.seed % 2147483647u);
    options_[METIS_OPTION_UFACTOR] = std::max(1, options.ufactor);
    options_[METIS_OPTION_NUMBERING] = 0;

    idx_t nvtxs = vertexCount;
    idx_t ncon = 1;
    idx_t nparts = options.parts;
    idx_t edgecut = 0;
    std::vector<idx_t> result(static_cast<size_t>(vertexCount), 0);
    idx_t *adjPtr = adjncy.empty() ? nullptr : adjncy.data();
    idx_t *adjWgtPtr = adjwgt.empty() ? nullptr : adjwgt.data();
    const int status = options.method == PartitionMethod::KWay
                           ? METIS_PartGraphKway(&nvtxs, &ncon, xadj.data(), adjPtr, vwgt.data(),
                                                 nullptr, adjWgtPtr, &nparts, nullptr, nullptr,
                                                 options_, &edgecut, result.data())
                           : METIS_PartGraphRecursive(
                               &nvtxs, &ncon, xadj.data(), adjPtr, vwgt.data(), nullptr, adjWgtPtr,
                               &nparts, nullptr, nullptr, options_, &edgecut, result.data());
    if (status != METIS_OK)
        return Error{ErrorKind::Internal, "METIS could not partition a graph of "
                                              + std::to_string(vertexCount) + " vertices into "
                                              + std::to_string(options.parts)
                                              + " parts: " + metisErrorName(status)};
    for (int v = 0; v < vertexCount; ++v) {
        const idx_t p = result[static_cast<size_t>(v)];
        if (p < 0 || p >= nparts)
            return Error{ErrorKind::Internal, "METIS returned part " + std::to_string(p)
                                                  + " outside 0.." + std::to_string(nparts - 1)};
        part[static_cast<size_t>(v)] = static_cast<int>(p);
    }
    return part;
}

} // namespace hetplan
