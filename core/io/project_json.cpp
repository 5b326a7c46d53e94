#include "core/io/project_json.h"

#include "core/io/catalog_json.h"
#include "core/io/cluster_check.h"
#include "core/io/files.h"
#include "core/io/format_objects.h"
#include "core/io/formats.h"
#include "core/model/topology.h"

namespace hetplan {

using namespace jsonio;

namespace {

// A nested whole document ("cluster", "plan") handed to the core reader of its kind, whose
// messages then start with "<file>: cluster: …".
std::string nestedText(const Value &value)
{
    const Json *json = value.json();
    return json ? json->dump() : std::string();
}

template<typename Kind>
Kind readKind(const Value &value, Kind fallback, Result<Kind> (*fromName)(std::string_view))
{
    if (!value.present())
        return fallback;
    const std::string name = value.string();
    if (value.context().failed())
        return fallback;
    auto kind = fromName(name);
    if (!kind) {
        value.fail(kind.error().message);
        return fallback;
    }
    return *kind;
}

std::string nestedSource(std::string_view source, std::string_view field)
{
    return std::string(source) + ": " + std::string(field);
}

// A nested reader's message already starts with "<source>: <field>: …"; the root adds
// "<source>: " again, so that part is dropped.
void failNested(Object &root, std::string_view source, const Error &error)
{
    root.context().fail({}, error.message.substr(source.size() + 2));
}

// A whole cluster document in `field`, read and checked (GPU types known) by the core's own
// reader; nothing when the field is absent or wrong (the failure is recorded in `root`).
std::optional<Cluster> readNestedCluster(Object &root, const Value &value, std::string_view source,
                                         std::string_view field)
{
    if (!value.present() || !value.object().present())
        return std::nullopt;
    const std::string clusterSource = nestedSource(source, field);
    auto read = parseCluster(nestedText(value), clusterSource);
    if (read)
        if (Status s = checkCluster(*read, clusterSource); !s)
            read = s.error();
    if (!read) {
        failNested(root, source, read.error());
        return std::nullopt;
    }
    return std::move(*read);
}

Project readProject(Object &root, std::string_view source)
{
    Project p;
    if (std::optional<Cluster> cluster
        = readNestedCluster(root, root.required("cluster"), source, "cluster"))
        p.cluster = std::move(*cluster);

    const Value model = root.required("model");
    if (model.is(Json::value_t::string)) {
        p.modelName = model.string();
        if (!builtinModelCatalog().find(p.modelName)) {
            std::string names;
            for (const ModelSpec &m : builtinModelCatalog().all())
                names += (names.empty() ? "" : ", ") + m.name;
            model.fail("\"" + p.modelName + "\" is not a catalog model; valid: " + names
                       + ", or an object with the fields of a model file");
        }
    } else if (model.present()) {
        Object o = model.object();
        if (o.present()) {
            p.customModel = readModelFields(o);
            o.finish();
        }
    }

    Object workload = root.required("workload").object();
    if (workload.present()) {
        p.workload = readWorkloadFields(workload);
        workload.finish();
    }
    p.planner = readKind(root.optional("planner"), p.planner, &plannerKindFromName);
    p.costModel = readKind(root.optional("cost_model"), p.costModel, &costModelKindFromName);

    const Value planCluster = root.optional("plan_cluster");
    p.lastPlanCluster = readNestedCluster(root, planCluster, source, "plan_cluster");

    const Value hosts = root.optional("hosts");
    if (hosts.present() && hosts.object().present()) {
        auto read = parseHosts(nestedText(hosts), nestedSource(source, "hosts"));
        if (read)
            p.hosts = std::move(*read);
        else
            failNested(root, source, read.error());
    }

    const Value plan = root.optional("plan");
    if (planCluster.present() && !plan.present())
        planCluster.fail("a plan_cluster needs the plan it was made for");
    if (plan.present() && plan.object().present() && !root.context().failed()) {
        auto topology = Topology::build(p.planCluster(), builtinGpuCatalog());
        if (topology) {
            auto read = parsePlan(nestedText(plan), nestedSource(source, "plan"), *topology);
            if (read)
                p.lastPlan = std::move(*read);
            else
                failNested(root, source, read.error());
        }
    }
    return p;
}

} // namespace

bool samePlanningCluster(const Cluster &a, const Cluster &b)
{
    const auto planningPart = [](Cluster c) {
        c.name.clear();
        c.description.clear();
        for (Machine &m : c.machines) {
            m.position = {};
            m.host.clear();
        }
        for (Switch &s : c.switches)
            s.position = {};
        return c;
    };
    return planningPart(a) == planningPart(b);
}

Result<ModelSpec> Project::model() const
{
    if (customModel)
        return *customModel;
    if (const ModelSpec *m = builtinModelCatalog().find(modelName))
        return *m;
    return badInput("\"" + modelName + "\" is not a catalog model");
}

Result<Project> parseProject(std::string_view text, std::string_view source)
{
    return readDocument(text, source, kProjectFormat,
                        [&](Object &root) { return readProject(root, source); });
}

std::string writeProject(const Project &project)
{
    OrderedJson j;
    j["format"] = kProjectFormat;
    j["cluster"] = clusterDocument(project.cluster);
    if (project.customModel) {
        OrderedJson model;
        writeModelFields(model, *project.customModel);
        j["model"] = std::move(model);
    } else {
        j["model"] = project.modelName;
    }
    OrderedJson workload;
    writeWorkloadFields(workload, project.workload);
    j["workload"] = std::move(workload);
    j["planner"] = plannerName(project.planner);
    j["cost_model"] = costModelName(project.costModel);
    if (project.lastPlan) {
        // Its GPU names are those of the cluster it was made for.
        auto topology = Topology::build(project.planCluster(), builtinGpuCatalog());
        if (topology) {
            j["plan"] = planDocument(*project.lastPlan, *topology);
            if (project.lastPlanCluster
                && !samePlanningCluster(*project.lastPlanCluster, project.cluster))
                j["plan_cluster"] = clusterDocument(*project.lastPlanCluster);
        }
    }
    if (!project.hosts.hosts.empty())
        j["hosts"] = hostsDocument(project.hosts);
    return dumpPretty(j);
}

Result<Project> readProjectFile(const std::string &path)
{
    auto text = readTextFile(path);
    if (!text)
        return text.error();
    auto format = fileFormat(*text, path);
    if (!format)
        return format.error();
    if (format->rfind("hetplan.cluster/", 0) == 0) {
        auto cluster = parseCluster(*text, path);
        if (!cluster)
            return cluster.error();
        if (Status s = checkCluster(*cluster, path); !s)
            return s.error();
        Project p;
        p.cluster = std::move(*cluster);
        return p;
    }
    if (format->rfind(std::string(kProjectFormat.substr(0, kProjectFormat.find('/') + 1)), 0) != 0)
        return badInput(path + ": format: \"" + *format
                        + "\" is neither a project nor a cluster; HetPlan opens "
                        + std::string(kProjectFormat) + " and " + std::string(kClusterFormat)
                        + " files");
    return parseProject(*text, path);
}

Status saveProjectFile(const Project &project, const std::string &path)
{
    return writeFileAtomic(path, writeProject(project));
}

} // namespace hetplan
