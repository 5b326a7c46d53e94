// Executor::gradSync: the asymmetric data-parallel gradient all-reduce (HexiScale §3.2,
// docs/runtime.md): the program names which slice of which weights each group sums.
#include "runtime/worker/executor.h"

#include <algorithm>

namespace hetplan::runtime {
namespace {

bool inLayers(const ParamView &p, const GradSync &op)
{
    return p.layer >= op.layerBegin && p.layer < op.layerEnd;
}

Result<std::vector<FloatPiece>> piecesOf(const GradSync &op, std::vector<ParamView> &params)
{
    std::vector<FloatPiece> pieces;
    for (ParamView &p : params) {
        if (op.params == ParamSet::Replicated) {
            const bool wanted = (!p.tpSplit && p.layer >= 0 && inLayers(p, op))
                                || (op.embedding && p.embedding) || (op.head && p.head);
            if (wanted)
                pieces.push_back(
                    {p.grad, std::size_t(p.sliceEnd - p.sliceBegin), p.gradientsReady});
            continue;
        }
        if (!p.tpSplit || !inLayers(p, op))
            continue;
        // Slice `slice` of `sliceCount` of the flattened full tensor (model_tensors.h: every
        // TP cut is a contiguous element range, and finer cuts nest inside coarser ones).
        const std::int64_t begin = p.fullElements * op.slice / op.sliceCount;
        const std::int64_t end = p.fullElements * (op.slice + 1) / op.sliceCount;
        if (begin < p.sliceBegin || end > p.sliceEnd)
            return Error{ErrorKind::Internal, "gradient slice " + std::to_string(op.slice) + " of "
                                                  + std::to_string(op.sliceCount) + " of " + p.name
                                                  + " is not held by this rank"};
        pieces.push_back(
            {p.grad + (begin - p.sliceBegin), std::size_t(end - begin), p.gradientsReady});
    }
    return pieces;
}

} // namespace

Status Executor::gradSync(const GradSync &op)
{
    std::vector<ParamView> params = m_model.parameters();
    auto pieces = piecesOf(op, params);
    if (!pieces)
        return pieces.error();
    const std::string &group = m_program.groups[std::size_t(op.group)].key;
    // The last layers' gradients are final first (backward runs from the last layer down), so
    // the buckets go last first, and each may start while the backward of earlier layers still
    // runs (Megatron-LM's and PyTorch DDP's overlap; docs/runtime.md "What overlaps"). Every
    // member forms the same buckets, so the group's calls match.
    std::vector<std::vector<FloatPiece>> buckets
        = gradientBuckets(*pieces, m_backend.bucketElements());
    std::reverse(buckets.begin(), buckets.end());
    if (!buckets.empty())
        if (Status s = m_backend.awaitGradients(group, buckets.front()); !s)
            return s;
    // Only the first sync of a group in an iteration waits for the group's members (the
    // bubble). A later one follows the first one's all-reduces, and a member that left those
    // early waits for the others there, as it would inside one all-reduce of all of it: that
    // handshake's time is the group's communication (docs/runtime.md, "Phases").
    auto token = handshakeTokens();
    if (!token)
        return token.error();
    const int earlier = m_synced[op.group]++;
    double &waitS = earlier == 0 ? m_phases.bubbleS : m_phases.dpCommS;
    Status met = m_backend.postsAhead()
                     ? m_backend.exchange(syncHandshake(op.group, earlier, *token), waitS,
                                          Traffic::Handshake)
                     : m_backend.allReduceSum(group, *token, 1, waitS, Traffic::Handshake);
    if (!met)
        return met;
    // The shard's gradients already carry its share of the global batch (model_shard.h); a
    // weight every TP rank holds whole is counted once per TP group. The sum runs bucket by
    // bucket in the backend's wire type, so its extra memory is one bucket, not a copy of
    // every gradient (docs/runtime.md, "Bytes on the wire").
    const float factor = 1.0f / float(op.tpCopies);
    for (const std::vector<FloatPiece> &bucket : buckets)
        if (Status s = m_backend.allReduceGradients(group, bucket, factor, m_phases.dpCommS); !s)
            return s;
    return okStatus();
}

} // namespace hetplan::runtime
