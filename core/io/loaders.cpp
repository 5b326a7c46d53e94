#include "core/io/loaders.h"

#include "core/io/catalog_json.h"
#include "core/io/files.h"
#include "core/io/formats.h"

namespace hetplan {

namespace {

std::string exampleNames(ExampleKind kind)
{
    std::string names;
    for (const Example &e : bundledExamples()) {
        if (e.kind != kind)
            continue;
        names += names.empty() ? "" : ", ";
        names += e.name;
    }
    return names.empty() ? "none" : names;
}

std::string modelNames()
{
    std::string names;
    for (const ModelSpec &m : builtinModelCatalog().all()) {
        names += names.empty() ? "" : ", ";
        names += m.name;
    }
    return names.empty() ? "none" : names;
}

// A name that is neither bundled nor a file: say both, so a typo in either is visible.
Error notFound(std::string_view nameOrPath, std::string_view what, const std::string &names,
               const Error &fileProblem)
{
    return badInput("'" + std::string(nameOrPath) + "' is not a bundled " + std::string(what)
                    + " (bundled: " + names + ") and not a readable file: " + fileProblem.message);
}

} // namespace

Result<Cluster> loadCluster(std::string_view nameOrPath)
{
    if (const auto example = findExample(nameOrPath, ExampleKind::Cluster))
        return parseCluster(example->text, example->path);
    const std::string path(nameOrPath);
    auto text = readTextFile(path);
    if (!text)
        return notFound(nameOrPath, "cluster", exampleNames(ExampleKind::Cluster), text.error());
    return parseCluster(*text, path);
}

Result<ModelSpec> loadModel(std::string_view nameOrPath)
{
    if (const ModelSpec *model = builtinModelCatalog().find(nameOrPath))
        return *model;
    const std::string path(nameOrPath);
    auto text = readTextFile(path);
    if (!text)
        return notFound(nameOrPath, "model", modelNames(), text.error());
    return parseModel(*text, path);
}

Result<Workload> loadWorkload(std::string_view path)
{
    // A path first: a workload is usually the person's own file; bundled ones are a fallback.
    auto text = readTextFile(std::string(path));
    if (text)
        return parseWorkload(*text, path);
    if (const auto example = findExample(path, ExampleKind::Workload))
        return parseWorkload(example->text, example->path);
    return text.error();
}

} // namespace hetplan
