// The pre-flight's checks (preflight_checks.h): sizes and assumptions from the cost model's own
// helpers (core/cost/link_assumption.h), so the pre-flight tests what the model charges.
#include "runtime/worker/preflight_checks.h"

#include "core/cost/link_assumption.h"
#include "core/plan/transport.h"

#include <algorithm>
#include <charconv>

namespace hetplan::runtime {

namespace {

const Stage &stageOf(const Job &job, int rank)
{
    const Rank &r = job.program.ranks[std::size_t(rank)];
    return job.plan.pipelines[std::size_t(r.pipeline)].stages[std::size_t(r.stage)];
}

// The parameters one gradient all-reduce covers (the cost model's count per layer,
// ModelSpec::paramsPerLayer, shared out as the runtime slices it).
double syncedParams(const ModelSpec &model, const GradSync &sync)
{
    const double layers = sync.layerEnd - sync.layerBegin;
    if (sync.params == ParamSet::TpSlice)
        return layers * model.paramsPerLayer() / std::max(sync.sliceCount, 1);
    double params = layers * 2.0 * model.hidden; // the two norms of each layer
    if (sync.embedding)
        params += model.embeddingParams();
    if (sync.head)
        params += model.headParams();
    return params;
}

// The largest all-reduce of gradient group `group`: its members' programs hold the same syncs,
// so any member's program that was compiled tells.
double gradientMessageBytes(const Job &job, int groupIndex, const Group &group, double elementBytes)
{
    double elements = 0;
    for (int member : group.members) {
        const auto &program = job.program.programs[std::size_t(member)];
        for (const Op &op : program)
            if (const auto *sync = std::get_if<GradSync>(&op); sync && sync->group == groupIndex)
                elements = std::max(elements, syncedParams(job.model, *sync));
        if (!program.empty())
            break;
    }
    return std::min(elements, double(kGradientBucketElements)) * elementBytes;
}

std::vector<int> gpusOf(const Job &job, const std::vector<int> &ranks)
{
    std::vector<int> gpus;
    gpus.reserve(ranks.size());
    for (int r : ranks)
        gpus.push_back(job.program.ranks[std::size_t(r)].gpu);
    return gpus;
}

// An all-reduce over `gpus` on `path`, as the model reads it (link_assumption.h).
void assumeAllReduce(const Topology &topology, const std::vector<int> &gpus, PathKind path,
                     bool gradient, PreflightCheck &check)
{
    const LinkAssumption assumed = assumedAllReduce(topology, gpus, path, gradient);
    check.assumedBytesPerS = assumed.bytesPerS;
    check.assumedLatencyS = assumed.latencyS;
}

} // namespace

std::vector<PreflightCheck> preflightChecks(const Job &job)
{
    const Topology &topology = *job.topology;
    const PlanPaths paths(topology, job.plan);
    const MessageWeights wire = messageWeights(Problem{topology, job.model, job.plan.workload});
    std::vector<PreflightCheck> checks;
    for (std::size_t g = 0; g < job.program.groups.size(); ++g) {
        const Group &group = job.program.groups[g];
        if (group.members.size() < 2)
            continue;
        PreflightCheck check;
        check.group = group.key;
        check.kind = group.kind;
        check.members = group.members;
        const std::vector<int> gpus = gpusOf(job, group.members);
        const Rank &first = job.program.ranks[std::size_t(group.members.front())];
        switch (group.kind) {
        case GroupKind::TensorParallel:
            check.messageBytes = first.rowCount * wire.sequenceBytes;
            assumeAllReduce(topology, gpus, paths.tp(stageOf(job, first.rank)), false, check);
            checks.push_back(check);
            break;
        case GroupKind::Gradient: {
            check.messageBytes = gradientMessageBytes(job, int(g), group, wire.elementBytes);
            PathKind path = paths.dp(stageOf(job, first.rank));
            for (int member : group.members)
                path = PlanPaths::shared(path, paths.dp(stageOf(job, member)));
            assumeAllReduce(topology, gpus, path, true, check);
            checks.push_back(check);
            break;
        }
        case GroupKind::Hop: {
            // Members ascend, so the upstream leader comes first; the hop carries the rows both
            // ends hold of each micro-batch.
            const Rank &down = job.program.ranks[std::size_t(group.members.back())];
            check.messageBytes = std::min(first.rowCount, down.rowCount) * wire.sequenceBytes;
            const LinkAssumption assumed = assumedTransfer(topology, first.gpu, down.gpu,
                                                           paths.hop(stageOf(job, first.rank)));
            check.assumedBytesPerS = assumed.bytesPerS;
            check.assumedLatencyS = assumed.latencyS;
            check.from = first.rank;
            check.to = down.rank;
            checks.push_back(check);
            std::swap(check.from, check.to); // and back: the gradients
            checks.push_back(check);
            break;
        }
        }
    }
    return checks;
}

namespace {

constexpr std::string_view kLinePrefix = "hetplan-preflight ";

// "name=value" words; `error` takes the rest of the line.
std::optional<std::string_view> field(std::string_view line, std::string_view name)
{
    const std::string key = " " + std::string(name) + "=";
    const auto at = (" " + std::string(line)).find(key);
    if (at == std::string::npos)
        return std::nullopt;
    std::string_view value = line.substr(at + key.size() - 1);
    if (name != "error")
        value = value.substr(0, value.find(' '));
    return value;
}

// The shortest text that reads back to the same value.
std::string shortest(double value)
{
    char text[32];
    const auto [end, error] = std::to_chars(text, text + sizeof text, value);
    return {text, error == std::errc() ? end : text};
}

template<typename T>
bool read(std::string_view line, std::string_view name, T &out)
{
    const auto text = field(line, name);
    if (!text)
        return false;
    const auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), out);
    return error == std::errc() && end == text->data() + text->size();
}

} // namespace

std::string preflightLine(const PreflightResult &result)
{
    std::string line(kLinePrefix);
    line += "check=" + std::to_string(result.check);
    line += " rank=" + std::to_string(result.rank);
    if (!result.transport.empty()) {
        line += " transport=";
        line += result.transport;
    }
    if (!result.error.empty()) {
        line += " error=";
        for (char c : result.error)
            line += c == '\n' || c == '\r' ? ' ' : c;
        return line;
    }
    line += " ops=" + std::to_string(result.ops);
    line += " seconds=" + shortest(result.seconds);
    if (result.latencyS) {
        line += " latency_s=";
        line += shortest(*result.latencyS);
    }
    return line;
}

std::optional<PreflightResult> parsePreflightLine(std::string_view line)
{
    if (!line.starts_with(kLinePrefix))
        return std::nullopt;
    line.remove_prefix(kLinePrefix.size());
    PreflightResult r;
    if (!read(line, "check", r.check) || !read(line, "rank", r.rank))
        return std::nullopt;
    if (const auto transport = field(line, "transport"))
        r.transport = std::string(*transport);
    if (const auto error = field(line, "error")) {
        r.error = std::string(*error);
        return r;
    }
    if (!read(line, "ops", r.ops) || !read(line, "seconds", r.seconds))
        return std::nullopt;
    if (double latency = 0; read(line, "latency_s", latency))
        r.latencyS = latency;
    return r;
}

} // namespace hetplan::runtime
