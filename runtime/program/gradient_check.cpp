// Gradient sync proven element by element: for every layer, every fine slice of its TP-split
// weights (the least common multiple of all TP degrees of the job cuts every shard into whole
// slices), its replicated weights, the embedding and the head, the ranks that own the element
// (one per stage replica) either all sum it in one group with weights that add up to 1, each
// the owner's share of the global batch (divided by the TP copies of replicated weights), or
// none syncs it because a single stage replica computed the whole batch.
#include "runtime/program/check_passes.h"
#include "runtime/program/program_text.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <tuple>

namespace hetplan::runtime {

namespace {

std::string str(int value)
{
    return std::to_string(value);
}

struct Holder
{
    std::vector<int> ranks; // by TP index
    int tpDegree = 1;
    int layerBegin = 0;
    int layerEnd = 0;
    bool embedding = false;
    bool head = false;
    double share = 0; // rows it computes per iteration / global batch
};

// One element class of the model's parameters.
struct Element
{
    enum Kind { Slice, Replicated, Embedding, Head } kind = Slice;
    int layer = -1;
    int fine = 0; // Slice: index among `fineSlices`
};

class GradientCheck
{
public:
    explicit GradientCheck(const JobProgram &program)
        : m_program(program)
    {
        std::map<std::tuple<int, int, int>, Holder> holders;
        for (const Rank &r : program.ranks) {
            Holder &h = holders[{r.pipeline, r.stage, r.replica}];
            h.ranks.resize(size_t(r.tpDegree), -1);
            h.ranks[size_t(r.tpIndex)] = r.rank;
            h.tpDegree = r.tpDegree;
            h.layerBegin = r.layerBegin;
            h.layerEnd = r.layerEnd;
            h.embedding = r.embedding;
            h.head = r.head;
            m_fineSlices = std::lcm(m_fineSlices, r.tpDegree);
        }
        for (auto &[key, h] : holders) {
            int rows = 0;
            for (const Op &op : program.programs[size_t(h.ranks.front())])
                if (const auto *f = std::get_if<Forward>(&op))
                    rows += f->rows.count();
            h.share = double(rows) / program.globalBatch;
            m_holders.push_back(std::move(h));
        }
        m_syncs.resize(program.ranks.size());
        for (size_t r = 0; r < program.programs.size(); ++r)
            for (const Op &op : program.programs[r])
                if (const auto *g = std::get_if<GradSync>(&op))
                    m_syncs[r].push_back(g);
    }

    Status run() const
    {
        for (const Holder &h : m_holders)
            for (int rank : h.ranks)
                for (const GradSync *g : m_syncs[size_t(rank)])
                    if (Status s = opFits(h, rank, *g); !s)
                        return s;
        for (int l = 0; l < m_program.layers; ++l) {
            for (int f = 0; f < m_fineSlices; ++f)
                if (Status s = element({Element::Slice, l, f}); !s)
                    return s;
            if (Status s = element({Element::Replicated, l, 0}); !s)
                return s;
        }
        for (Element::Kind kind : {Element::Embedding, Element::Head})
            if (Status s = element({kind, -1, 0}); !s)
                return s;
        return okStatus();
    }

private:
    Status opFits(const Holder &h, int rank, const GradSync &g) const
    {
        const Rank &r = m_program.ranks[size_t(rank)];
        auto fail
            = [&](const std::string &why) { return opError(m_program, rank, GradSync(g), why); };
        if (g.layerBegin < h.layerBegin || g.layerEnd > h.layerEnd || g.layerEnd <= g.layerBegin)
            return fail("syncs layers the rank does not hold");
        if (g.params == ParamSet::TpSlice) {
            if (g.sliceCount < 1 || g.sliceCount % r.tpDegree != 0
                || m_fineSlices % g.sliceCount != 0 || g.embedding || g.head)
                return fail("a slice count the rank's TP degree cannot be padded to");
            const int perRank = g.sliceCount / r.tpDegree;
            if (g.slice < r.tpIndex * perRank || g.slice >= (r.tpIndex + 1) * perRank)
                return fail("a slice outside the rank's TP shard");
        }
        const int copies = g.params == ParamSet::TpSlice ? 1 : r.tpDegree;
        if ((g.embedding && !r.embedding) || (g.head && !r.head))
            return fail("syncs the embedding or head the rank does not hold");
        if (g.tpCopies != copies || std::abs(g.batchShare - h.share) > 1e-12
            || std::abs(g.weight - h.share / copies) > 1e-12)
            return fail("weight " + std::to_string(g.weight) + " where the rank's share of the "
                        + "global batch gives " + std::to_string(h.share / copies));
        return okStatus();
    }

    bool covers(const GradSync &g, const Element &e) const
    {
        switch (e.kind) {
        case Element::Slice: {
            if (g.params != ParamSet::TpSlice || e.layer < g.layerBegin || e.layer >= g.layerEnd)
                return false;
            const int fineEach = m_fineSlices / g.sliceCount;
            return e.fine >= g.slice * fineEach && e.fine < (g.slice + 1) * fineEach;
        }
        case Element::Replicated:
            return g.params == ParamSet::Replicated && e.layer >= g.layerBegin
                   && e.layer < g.layerEnd;
        case Element::Embedding:
            return g.params == ParamSet::Replicated && g.embedding;
        case Element::Head:
            return g.params == ParamSet::Replicated && g.head;
        }
        return false;
    }

    static bool holds(const Holder &h, const Element &e)
    {
        switch (e.kind) {
        case Element::Embedding:
            return h.embedding;
        case Element::Head:
            return h.head;
        default:
            return e.layer >= h.layerBegin && e.layer < h.layerEnd;
        }
    }

    std::string elementText(const Element &e) const
    {
        switch (e.kind) {
        case Element::Slice:
            return "layer " + str(e.layer) + " TP-split weights, slice " + str(e.fine) + " of "
                   + str(m_fineSlices);
        case Element::Replicated:
            return "layer " + str(e.layer) + " replicated weights";
        case Element::Embedding:
            return "the embedding";
        case Element::Head:
            return "the head";
        }
        return {};
    }

    Status element(const Element &e) const
    {
        std::vector<int> owners;
        int holderCount = 0;
        double share = 0;
        for (const Holder &h : m_holders) {
            if (!holds(h, e))
                continue;
            ++holderCount;
            share = h.share;
            if (e.kind == Element::Slice)
                owners.push_back(h.ranks[size_t(e.fine * h.tpDegree / m_fineSlices)]);
            else
                owners.insert(owners.end(), h.ranks.begin(), h.ranks.end());
        }
        std::sort(owners.begin(), owners.end());
        if (holderCount == 0)
            return programError("no rank holds " + elementText(e));
        std::vector<const GradSync *> ops;
        for (int rank : owners)
            for (const GradSync *g : m_syncs[size_t(rank)])
                if (covers(*g, e))
                    ops.push_back(g);
        if (ops.empty()) {
            if (holderCount == 1 && std::abs(share - 1) < 1e-9)
                return okStatus();
            return programError(elementText(e) + " is held by " + str(holderCount)
                                + " stage replicas but never synchronised");
        }
        const Group &group = m_program.groups[size_t(ops.front()->group)];
        double sum = 0;
        for (const GradSync *g : ops)
            sum += g->weight;
        if (ops.size() != owners.size() || group.members != owners
            || std::any_of(ops.begin(), ops.end(),
                           [&](const GradSync *g) { return g->group != ops.front()->group; }))
            return programError(elementText(e) + " is summed by " + str(int(ops.size()))
                                + " ops of its " + str(int(owners.size()))
                                + " owners, not once by each in one group of exactly them");
        if (std::abs(sum - 1) > 1e-9)
            return programError("the gradient weights of " + elementText(e) + " sum to "
                                + std::to_string(sum) + ", not 1");
        return okStatus();
    }

    const JobProgram &m_program;
    int m_fineSlices = 1;
    std::vector<Holder> m_holders;
    std::vector<std::vector<const GradSync *>> m_syncs; // per rank
};

} // namespace

Status checkGradientWeights(const JobProgram &program)
{
    return GradientCheck(program).run();
}

} // namespace hetplan::runtime
