#include "core/io/cluster_check.h"

#include "core/io/catalog_json.h"
#include "core/io/formats.h"
#include "core/model/topology.h"

namespace hetplan {

Status checkCluster(const Cluster &cluster, std::string_view source)
{
    // Going through the reader keeps one set of rules: whatever parseCluster refuses (names,
    // ranges, dangling links, sizes) is refused here with the same message.
    auto reread = parseCluster(writeCluster(cluster), source);
    if (!reread)
        return reread.error();
    if (!(*reread == cluster))
        return badInput(std::string(source)
                        + ": a name or text holds characters a cluster file cannot store "
                          "(text must be valid UTF-8)");
    auto topology = Topology::build(*reread, builtinGpuCatalog());
    if (!topology)
        return badInput(std::string(source) + ": " + topology.error().message);
    return okStatus();
}

Status checkHasGpus(const Topology &topology)
{
    if (topology.gpuCount() > 0)
        return okStatus();
    return badInput("cluster '" + topology.cluster().name + "' has no GPUs; add a machine");
}

} // namespace hetplan
