// importMeasurements on one arbitrary file (any of the kinds it detects): an accepted import is
// a cluster that survives writing and reading, builds a topology, and names an origin for
// every figure it recorded, with distinct, non-empty machine names; the same file named twice
// imports as the file once.
#include "core/import/import.h"
#include "core/io/catalog_json.h"
#include "core/io/formats.h"
#include "core/model/topology.h"
#include "fuzz_check.h"

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string text(reinterpret_cast<const char *>(data), size);
    auto result = hetplan::importMeasurements({{"node-a.topo.txt", text}});
    if (!result)
        return 0;
    const hetplan::Cluster &cluster = result->cluster;
    auto read = hetplan::parseCluster(hetplan::writeCluster(cluster), "imported.json");
    HETPLAN_FUZZ_CHECK(read && *read == cluster);
    HETPLAN_FUZZ_CHECK(hetplan::Topology::build(cluster, hetplan::builtinGpuCatalog()).ok());
    HETPLAN_FUZZ_CHECK(result->figures.size() == cluster.origin.figures.size());
    for (const hetplan::MeasuredFigure &f : cluster.origin.figures)
        HETPLAN_FUZZ_CHECK(!f.field.empty() && f.field.front() == '/' && !f.source.empty());
    std::set<std::string> names;
    for (const hetplan::Machine &m : cluster.machines)
        HETPLAN_FUZZ_CHECK(!m.name.empty() && names.insert(m.name).second);
    auto twice
        = hetplan::importMeasurements({{"node-a.topo.txt", text}, {"node-a.topo.txt", text}});
    HETPLAN_FUZZ_CHECK(twice && twice->cluster == cluster);
    return 0;
}
