#include "core/cost/hetplan_comm.h"

#include "core/cost/cost_helpers.h"
#include "core/cost/gradient_bucket.h"
#include "core/cost/problem.h"
#include "core/plan/plan.h"
#include "core/plan/transport.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace hetplan {

WireBytes wireBytes(const Problem &problem)
{
    const double element = bytesPerElement(problem.workload.train.precision);
    return {element, double(problem.workload.train.seqLen) * problem.model.hidden * element};
}

int tpAllReducesPerLayer(Recompute recompute, bool backward)
{
    if (!backward)
        return 2;
    return recompute == Recompute::Full ? 4 : 2;
}

GroupLinks groupLinks(const Topology &topology, std::span<const int> group, PathKind path)
{
    GroupLinks result{kInfinity, 0};
    for (size_t i = 0; i < group.size(); ++i)
        for (size_t k = i + 1; k < group.size(); ++k) {
            const double bytesPerS = topology.effectiveBandwidthBytesPerS(group[i], group[k], path);
            result.slowestBytesPerS = std::min(result.slowestBytesPerS, bytesPerS);
            result.worstLatencyS = std::max(result.worstLatencyS,
                                            topology.effectiveLatencyS(group[i], group[k], path));
        }
    return result;
}

double ringAllReduceS(int n, double bytes, const GroupLinks &links)
{
    if (n < 2)
        return 0;
    // nccl-tests PERFORMANCE.md: all-reduce bus bandwidth = algorithm bandwidth · 2(n−1)/n.
    return transferS(2.0 * (n - 1) / n * bytes, links.slowestBytesPerS)
           + 2.0 * (n - 1) * links.worstLatencyS;
}

double ringBroadcastS(int n, double bytes, const GroupLinks &links)
{
    if (n < 2)
        return 0;
    // nccl-tests PERFORMANCE.md: broadcast bus bandwidth = algorithm bandwidth.
    return transferS(bytes, links.slowestBytesPerS) + (n - 1) * links.worstLatencyS;
}

double sendAndBroadcastS(const Topology &topology, std::span<const int> from,
                         std::span<const int> to, double bytes, PathKind path)
{
    double bestSendS = kInfinity;
    for (int x : from)
        for (int y : to)
            if (x != y)
                bestSendS = std::min(
                    bestSendS,
                    topology.effectiveLatencyS(x, y, path)
                        + transferS(bytes, topology.effectiveBandwidthBytesPerS(x, y, path)));
    // The broadcast runs in the receiving stage's TP group, over the hop's transport too.
    return bestSendS + ringBroadcastS(int(to.size()), bytes, groupLinks(topology, to, path));
}

double sharedNetworkLinkS(const Topology &topology, const StageQuery &sender,
                          const StageQuery &receiver, double bytesPerSequence, PathKind path)
{
    const auto onSenderMachine = [&](int machine) {
        return std::any_of(sender.gpus.begin(), sender.gpus.end(),
                           [&](int x) { return topology.gpu(x).machine == machine; });
    };
    // The best sender's path to a replica: what sendAndBroadcastS uses too.
    const auto bestPath = [&](int receiverGpu, double &bytesPerS, double &latencyS) {
        bytesPerS = 0;
        latencyS = kInfinity;
        for (int x : sender.gpus) {
            bytesPerS
                = std::max(bytesPerS, topology.effectiveBandwidthBytesPerS(x, receiverGpu, path));
            latencyS = std::min(latencyS, topology.effectiveLatencyS(x, receiverGpu, path));
        }
    };
    const int senderMachine = topology.gpu(sender.gpus.front()).machine;
    const bool oneSenderMachine = std::all_of(sender.gpus.begin(), sender.gpus.end(), [&](int x) {
        return topology.gpu(x).machine == senderMachine;
    });

    double busiestS = 0;
    double leavingBytes = 0;
    double widestOutBytesPerS = 0;
    double nearestOutS = kInfinity;
    for (int r = 0; r < receiver.dp; ++r) {
        const int machine = topology.gpu(replicaGpus(receiver, r).front()).machine;
        if (onSenderMachine(machine))
            continue;
        double bytesPerS = 0;
        double latencyS = 0;
        bestPath(replicaGpus(receiver, r).front(), bytesPerS, latencyS);
        const double bytes = replicaShare(receiver, r) * bytesPerSequence;
        leavingBytes += bytes;
        widestOutBytesPerS = std::max(widestOutBytesPerS, bytesPerS);
        nearestOutS = std::min(nearestOutS, latencyS);
        // The first replica on each receiving machine sums the shares of all of them.
        bool first = true;
        for (int earlier = 0; earlier < r && first; ++earlier)
            first = topology.gpu(replicaGpus(receiver, earlier).front()).machine != machine;
        if (!first)
            continue;
        double machineBytes = 0;
        for (int same = r; same < receiver.dp; ++same)
            if (topology.gpu(replicaGpus(receiver, same).front()).machine == machine)
                machineBytes += replicaShare(receiver, same) * bytesPerSequence;
        busiestS = std::max(busiestS, latencyS + transferS(machineBytes, bytesPerS));
    }
    if (oneSenderMachine && leavingBytes > 0)
        busiestS = std::max(busiestS, nearestOutS + transferS(leavingBytes, widestOutBytesPerS));
    return busiestS;
}

namespace {

// One DP replica of a layer range: a TP group holding 1/tp of each parameter tensor.
struct Replica
{
    std::span<const int> gpus;
};

struct SyncScratch
{
    std::vector<Replica> replicas;
    PathKind path = PathKind::Widest; // the links the replicas' all-reduce uses
    std::vector<int> holders;
    std::vector<double> gpuS; // per flat GPU: its chunks' all-reduce time, in sequence
    // Per machine: time its network link is busy. Every GPU's chunks run at the same time,
    // so the rings that leave one machine share its link (8 GPUs of a box syncing with
    // another box over one Ethernet NIC get an eighth of it each).
    std::vector<double> machineS;
};

SyncScratch &syncScratch()
{
    thread_local SyncScratch s;
    return s;
}

// Smallest shard as chunk (HexiScale §3.2): with TP degrees t_i every shard boundary is a
// multiple of 1/lcm(t_i). TP degrees divide the head count, so the lcm stays small; the cap
// only guards hand-written plans the validator would reject.
int chunksPerTensor(const std::vector<Replica> &replicas)
{
    int chunks = 1;
    for (const Replica &replica : replicas) {
        chunks = std::lcm(chunks, int(replica.gpus.size()));
        if (chunks > 4096)
            return int(replicas.front().gpus.size());
    }
    return chunks;
}

// All-reduces every chunk of `tensors` tensors of `params` parameters each among the GPUs
// holding that chunk (one per replica), and charges each GPU its chunks in sequence. A chunk's
// tensors go out in buckets (kGradientBucketElements), each one ring all-reduce: the ring's
// latency is paid once per bucket, not once per tensor.
void syncTensors(const Topology &topology, SyncScratch &s, double params, double tensors,
                 double gradientBytesPerParam)
{
    const int n = int(s.replicas.size());
    if (n < 2 || params <= 0 || tensors <= 0)
        return;
    const int chunks = chunksPerTensor(s.replicas);
    const double chunkBytes = params * gradientBytesPerParam / chunks;
    for (int c = 0; c < chunks; ++c) {
        s.holders.clear();
        for (const Replica &replica : s.replicas) {
            const size_t shard = size_t(c) * replica.gpus.size() / size_t(chunks);
            s.holders.push_back(replica.gpus[shard]);
        }
        // NCCL builds its ring machine by machine; with GPUs numbered machine by machine the
        // ring in index order crosses each machine boundary once, and the slowest of its
        // links sets the bus bandwidth.
        std::sort(s.holders.begin(), s.holders.end());
        GroupLinks ring{kInfinity, 0};
        LinkKind slowestKind = LinkKind::Ethernet;
        int machines = 1;
        for (int i = 0; i < n; ++i) {
            const int a = s.holders[size_t(i)];
            const int b = s.holders[size_t((i + 1) % n)];
            if (i + 1 < n && topology.gpu(a).machine != topology.gpu(b).machine)
                ++machines;
            if (a == b)
                continue;
            const double bytesPerS = topology.effectiveBandwidthBytesPerS(a, b, s.path);
            if (bytesPerS < ring.slowestBytesPerS) {
                ring.slowestBytesPerS = bytesPerS;
                slowestKind = topology.pairKind(a, b, s.path);
            }
            ring.worstLatencyS
                = std::max(ring.worstLatencyS, topology.effectiveLatencyS(a, b, s.path));
        }
        // Congestion and synchronisation across more machines cost bus bandwidth, on every
        // link of the ring alike.
        const double scale = topology.ringScaleFactor(slowestKind, machines);
        ring.slowestBytesPerS *= scale;
        const double buckets
            = std::max(1.0, std::ceil(tensors * params / chunks / double(kGradientBucketElements)));
        const double chunkS = buckets * ringAllReduceS(n, tensors * chunkBytes / buckets, ring);
        for (int gpu : s.holders)
            s.gpuS[size_t(gpu)] += chunkS;
        // A ring ordered machine by machine leaves each machine once, carrying 2(n−1)/n of
        // the chunk over that edge.
        const double ringBytes = tensors * 2.0 * (n - 1) / n * chunkBytes;
        for (int i = 0; i < n; ++i) {
            const int a = s.holders[size_t(i)];
            const int b = s.holders[size_t((i + 1) % n)];
            const int machine = topology.gpu(a).machine;
            if (machine != topology.gpu(b).machine)
                s.machineS[size_t(machine)] += transferS(
                    ringBytes, scale * topology.effectiveBandwidthBytesPerS(a, b, s.path));
        }
    }
}

// Adds a stage's DP replicas to the all-reduce being collected, and its transport.
void addReplicas(const Stage &stage, const PlanPaths &paths, bool firstHolder, SyncScratch &s)
{
    const size_t tp = size_t(std::max(stage.tp, 1));
    for (size_t first = 0; first + tp <= stage.gpus.size(); first += tp)
        s.replicas.push_back({std::span<const int>(stage.gpus).subspan(first, tp)});
    s.path = firstHolder ? paths.dp(stage) : PlanPaths::shared(s.path, paths.dp(stage));
}

void collectReplicas(const Plan &plan, const LayerSegments &segments, int segment,
                     const PlanPaths &paths, SyncScratch &s)
{
    s.replicas.clear();
    bool firstHolder = true;
    for (int p = 0; p < segments.pipelineCount; ++p) {
        const int stageIndex = segments.holder(segment, p);
        if (stageIndex < 0)
            continue;
        addReplicas(plan.pipelines[size_t(p)].stages[size_t(stageIndex)], paths, firstHolder, s);
        firstHolder = false;
    }
}

// The end stages' embedding (first) or output head (last) of every pipeline.
void collectEndReplicas(const Plan &plan, bool first, const PlanPaths &paths, SyncScratch &s)
{
    s.replicas.clear();
    bool firstHolder = true;
    for (const Pipeline &pipeline : plan.pipelines) {
        if (pipeline.stages.empty())
            continue;
        addReplicas(first ? pipeline.stages.front() : pipeline.stages.back(), paths, firstHolder,
                    s);
        firstHolder = false;
    }
}

} // namespace

double asymmetricGradientSyncS(const Problem &problem, const Plan &plan, const PlanPaths &paths,
                               const LayerSegments &segments, std::span<double> perStageS)
{
    const Topology &topology = problem.topology;
    const ModelSpec &model = problem.model;
    // Gradients are reduced in the training precision, as ZeRO's 16 bytes/param accounting
    // (2-byte gradients) and HexiScale eq. 4 (B_type) assume, and as the runtime sends them
    // (docs/cost-models.md, "Bytes on the wire"). Megatron-LM's default for bf16 accumulates
    // and reduces in fp32 (bf16 only with --grad-reduce-in-bf16), which would double this term.
    const double gradientBytes = wireBytes(problem).element;
    SyncScratch &s = syncScratch();
    s.gpuS.assign(size_t(topology.gpuCount()), 0.0);
    s.machineS.assign(topology.cluster().machines.size(), 0.0);

    for (int segment = 0; segment < segments.segmentCount(); ++segment) {
        collectReplicas(plan, segments, segment, paths, s);
        // Every layer of the segment is held the same way: its chunks repeat per layer.
        syncTensors(topology, s, model.paramsPerLayer(), segments.length(segment), gradientBytes);
    }
    collectEndReplicas(plan, true, paths, s);
    syncTensors(topology, s, model.embeddingParams(), 1, gradientBytes);
    collectEndReplicas(plan, false, paths, s);
    syncTensors(topology, s, model.headParams(), 1, gradientBytes);

    // All stages synchronise at once after the pipelines drain; a GPU's chunks run in
    // sequence, so the slowest GPU, or the busiest machine link, sets the DP time.
    double slowestS = 0;
    size_t flat = 0;
    for (const Pipeline &pipeline : plan.pipelines)
        for (const Stage &stage : pipeline.stages) {
            double stageS = 0;
            for (int gpu : stage.gpus)
                stageS = std::max(
                    {stageS, s.gpuS[size_t(gpu)], s.machineS[size_t(topology.gpu(gpu).machine)]});
            perStageS[flat++] = stageS;
            slowestS = std::max(slowestS, stageS);
        }
    return slowestS;
}

} // namespace hetplan
