// parsePlan on arbitrary bytes against the case study of HexiScale §3.1 (A: 3× A800-80G,
// B: 3× RTX4090-24G, C: 2× RTX3090-24G), built once; accepted plans must survive writePlan.
#include "core/io/catalog_json.h"
#include "core/io/formats.h"
#include "core/model/topology.h"
#include "fuzz_check.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace {

// Own GPU types, so that the harness does not depend on the bundled catalog's contents.
constexpr std::string_view kCatalog = R"({"format": "hetplan.gpu-catalog/1", "gpus": [
  {"name": "A800-80G", "tflops": 312, "memory_GiB": 80, "membw_GBps": 2039},
  {"name": "RTX4090-24G", "tflops": 165, "memory_GiB": 24, "membw_GBps": 1008},
  {"name": "RTX3090-24G", "tflops": 71, "memory_GiB": 24, "membw_GBps": 936}]})";

constexpr std::string_view kCluster = R"({"format": "hetplan.cluster/1", "name": "case-study",
  "machines": [
    {"name": "A", "gpu": "A800-80G", "count": 3,
     "intra": {"kind": "nvlink", "bandwidth_GBps": 200, "latency_us": 5}},
    {"name": "B", "gpu": "RTX4090-24G", "count": 3,
     "intra": {"kind": "pcie", "bandwidth_GBps": 32, "latency_us": 10}},
    {"name": "C", "gpu": "RTX3090-24G", "count": 2,
     "intra": {"kind": "pcie", "bandwidth_GBps": 16, "latency_us": 10}}],
  "switches": [{"name": "tor"}],
  "links": [{"a": "A", "b": "tor", "bandwidth_GBps": 1},
            {"a": "B", "b": "tor", "bandwidth_GBps": 1},
            {"a": "C", "b": "tor", "bandwidth_GBps": 1}]})";

const hetplan::Topology &caseStudy()
{
    static const hetplan::Topology topology = [] {
        auto catalog = hetplan::readGpuCatalog(kCatalog, "fuzz catalog");
        HETPLAN_FUZZ_CHECK(catalog.ok());
        auto cluster = hetplan::parseCluster(kCluster, "fuzz cluster");
        HETPLAN_FUZZ_CHECK(cluster.ok());
        auto built = hetplan::Topology::build(*cluster, *catalog);
        HETPLAN_FUZZ_CHECK(built.ok());
        return std::move(built).value();
    }();
    return topology;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char *>(data), size);
    const hetplan::Topology &topology = caseStudy();
    auto plan = hetplan::parsePlan(text, "fuzz.plan.json", topology);
    if (!plan)
        return 0;
    for (const hetplan::Pipeline &p : plan->pipelines)
        for (const hetplan::Stage &s : p.stages)
            for (int g : s.gpus)
                HETPLAN_FUZZ_CHECK(g >= 0 && g < topology.gpuCount());
    auto again = hetplan::parsePlan(hetplan::writePlan(*plan, topology), "written", topology);
    HETPLAN_FUZZ_CHECK(again.ok());
    HETPLAN_FUZZ_CHECK(again->sameLayout(*plan));
    HETPLAN_FUZZ_CHECK(again->workload == plan->workload);
    return 0;
}
