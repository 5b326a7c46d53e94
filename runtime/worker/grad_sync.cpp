// Executor::gradSync: the asymmetric data-parallel gradient all-reduce (HexiScale §3.2,
// docs/runtime.md): the program names which slice of which weights each group sums.
#include "runtime/worker/executor.h"

#include <algorithm>

namespace hetplan::runtime {
namespace {

// Where one parameter's part of a GradSync lies in its shard's gradient.
struct Piece
{
    float *grad = nullptr;
    std::size_t count = 0;
};

bool inLayers(const ParamView &p, const GradSync &op)
{
    return p.layer >= op.layerBegin && p.layer < op.layerEnd;
}

Result<std::vector<Piece>> piecesOf(const GradSync &op, std::vector<ParamView> &params)
{
    std::vector<Piece> pieces;
    for (ParamView &p : params) {
        if (op.params == ParamSet::Replicated) {
            const bool wanted = (!p.tpSplit && p.layer >= 0 && inLayers(p, op))
                                || (op.embedding && p.embedding) || (op.head && p.head);
            if (wanted)
                pieces.push_back({p.grad, std::size_t(p.sliceEnd - p.sliceBegin)});
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
        pieces.push_back({p.grad + (begin - p.sliceBegin), std::size_t(end - begin)});
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
    // The shard's gradients already carry its share of the global batch (model_shard.h); a
    // weight every TP rank holds whole is counted once per TP group.
    const float factor = 1.0f / float(op.tpCopies);
    std::vector<float> packed;
    for (const Piece &piece : *pieces)
        std::transform(piece.grad, piece.grad + piece.count, std::back_inserter(packed),
                       [&](float g) { return g * factor; });

    const std::string &group = m_program.groups[std::size_t(op.group)].key;
    float token = 0;
    if (Status s = timed(m_phases.bubbleS, [&] { return m_comm.allReduceSum(group, &token, 1); });
        !s)
        return s;
    if (Status s = timed(m_phases.dpCommS,
                         [&] { return m_comm.allReduceSum(group, packed.data(), packed.size()); });
        !s)
        return s;
    std::size_t at = 0;
    for (const Piece &piece : *pieces) {
        std::copy_n(packed.begin() + std::ptrdiff_t(at), piece.count, piece.grad);
        at += piece.count;
    }
    return okStatus();
}

} // namespace hetplan::runtime
