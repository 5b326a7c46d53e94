#pragma once

// Plans for the export tests: a bundled example or a test data file, resolved against its
// cluster, with the model it names.

#include "core/io/catalog_json.h"
#include "core/io/files.h"
#include "core/io/formats.h"
#include "core/io/loaders.h"
#include "core/model/topology.h"

#include <QTest>

#include <optional>
#include <string>

namespace hetplan::test {

struct ExportCase
{
    Plan plan;
    std::optional<Topology> topology;
    ModelSpec model;
};

// `source` is "examples/NAME" (bundled) or a path under tests/data.
inline ExportCase exportCase(const std::string &source)
{
    std::string text;
    if (source.starts_with("examples/")) {
        const auto example = findExample(source.substr(9), ExampleKind::Plan);
        if (!example)
            qFatal("no bundled plan %s", source.c_str());
        text = std::string(example->text);
    } else {
        auto read = readTextFile(HETPLAN_TEST_DATA_DIR "/" + source);
        if (!read)
            qFatal("%s", read.error().message.c_str());
        text = *read;
    }
    auto clusterName = planClusterName(text, source);
    auto cluster = loadCluster(*clusterName);
    auto topology = Topology::build(*cluster, builtinGpuCatalog());
    auto plan = parsePlan(text, source, *topology);
    if (!plan)
        qFatal("%s", plan.error().message.c_str());
    auto model = loadModel(plan->model);
    if (!model)
        qFatal("%s", model.error().message.c_str());
    return {std::move(plan).value(), std::move(topology).value(), std::move(model).value()};
}

} // namespace hetplan::test
