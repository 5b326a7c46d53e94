// What every pipeline and stage replica must hold, and which rows of the global batch each
// layer computes: the static half of "the plan runs the whole model on the whole batch once".
#include "runtime/program/check_passes.h"
#include "runtime/program/program_text.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace hetplan::runtime {

namespace {

std::string str(int value)
{
    return std::to_string(value);
}

// Ranks of each stage replica by TP index, and the replicas of each pipeline's stages.
using ReplicaKey = std::tuple<int, int, int>; // pipeline, stage, replica

Status checkPipelineRows(const JobProgram &program)
{
    int next = 0;
    for (size_t p = 0; p < program.pipelines.size(); ++p) {
        const PipelineSamples &samples = program.pipelines[p];
        if (samples.rows.begin != next
            || samples.rows.count() != samples.microBatch * samples.microBatches)
            return programError("pipeline " + str(int(p)) + " takes rows " + rowsText(samples.rows)
                                + ", not the next " + str(samples.microBatch * samples.microBatches)
                                + " rows of the global batch from row " + str(next));
        next = samples.rows.end;
    }
    if (next != program.globalBatch)
        return programError("the pipelines take " + str(next) + " rows of a global batch of "
                            + str(program.globalBatch));
    return okStatus();
}

Status checkReplicas(const JobProgram &program)
{
    std::map<ReplicaKey, std::vector<int>> replicas;
    for (const Rank &r : program.ranks) {
        if (r.pipeline < 0 || r.pipeline >= static_cast<int>(program.pipelines.size()))
            return programError(rankText(program, r.rank) + " names no pipeline");
        replicas[{r.pipeline, r.stage, r.replica}].push_back(r.rank);
    }
    // Per pipeline: the layer range of each stage, and which stages hold embedding and head.
    std::map<std::pair<int, int>, std::pair<int, int>> stageLayers;
    for (const auto &[key, ranks] : replicas) {
        const Rank &first = program.ranks[size_t(ranks.front())];
        std::vector<char> seen(size_t(std::max(first.tpDegree, 0)), 0);
        for (int rank : ranks) {
            const Rank &r = program.ranks[size_t(rank)];
            if (r.tpDegree != first.tpDegree || r.layerBegin != first.layerBegin
                || r.layerEnd != first.layerEnd || r.embedding != first.embedding
                || r.head != first.head || r.rowOffset != first.rowOffset
                || r.rowCount != first.rowCount)
                return programError(rankText(program, rank) + " disagrees with "
                                    + rankText(program, first.rank)
                                    + " about what their stage replica holds");
            if (r.tpIndex < 0 || r.tpIndex >= first.tpDegree || seen[size_t(r.tpIndex)]++)
                return programError(rankText(program, rank)
                                    + ": TP index out of range or held twice");
        }
        if (static_cast<int>(ranks.size()) != first.tpDegree)
            return programError(rankText(program, first.rank) + ": its stage replica has "
                                + str(int(ranks.size())) + " ranks for TP degree "
                                + str(first.tpDegree));
        const auto [it, added] = stageLayers.try_emplace({first.pipeline, first.stage},
                                                         first.layerBegin, first.layerEnd);
        if (!added && it->second != std::make_pair(first.layerBegin, first.layerEnd))
            return programError(rankText(program, first.rank)
                                + ": replicas of one stage hold different layers");
    }
    // Stages of a pipeline in order tile [0, layers); embedding on the first, head on the last.
    std::map<int, int> covered; // pipeline → layers covered so far
    std::map<int, int> stages;  // pipeline → stages seen so far
    for (const auto &[key, layers] : stageLayers) {
        const int p = key.first;
        if (key.second != stages[p]++)
            return programError("pipeline " + str(p) + " has no stage " + str(stages[p] - 1));
        int &end = covered[p];
        if (layers.first != end || layers.second <= layers.first)
            return programError("pipeline " + str(p) + ", stage " + str(key.second)
                                + " holds layers " + str(layers.first) + ".."
                                + str(layers.second - 1) + " where layer " + str(end)
                                + " comes next");
        end = layers.second;
    }
    for (size_t p = 0; p < program.pipelines.size(); ++p)
        if (stages[int(p)] != program.pipelines[p].stages)
            return programError("pipeline " + str(int(p)) + " has " + str(stages[int(p)])
                                + " stages with ranks, not " + str(program.pipelines[p].stages));
        else if (covered[int(p)] != program.layers)
            return programError("pipeline " + str(int(p)) + " covers " + str(covered[int(p)])
                                + " of " + str(program.layers) + " layers");
    for (const Rank &r : program.ranks) {
        const int stageCount = program.pipelines[size_t(r.pipeline)].stages;
        if (r.embedding != (r.stage == 0) || r.head != (r.stage == stageCount - 1))
            return programError(rankText(program, r.rank)
                                + ": the embedding belongs to the first stage, the head to the "
                                  "last");
    }
    return okStatus();
}

// Every row of the global batch passes through every layer exactly once: the forwards of the
// TP leaders holding a layer tile [0, global batch).
Status checkSampleRows(const JobProgram &program)
{
    std::vector<std::vector<SampleRange>> rowsByLayer(size_t(std::max(program.layers, 0)));
    for (const Rank &r : program.ranks) {
        if (!r.leader())
            continue;
        for (const Op &op : program.programs[size_t(r.rank)])
            if (const auto *f = std::get_if<Forward>(&op))
                for (int l = std::max(r.layerBegin, 0); l < std::min(r.layerEnd, program.layers);
                     ++l)
                    rowsByLayer[size_t(l)].push_back(f->rows);
    }
    for (int l = 0; l < program.layers; ++l) {
        std::vector<SampleRange> &rows = rowsByLayer[size_t(l)];
        std::sort(rows.begin(), rows.end(),
                  [](SampleRange a, SampleRange b) { return a.begin < b.begin; });
        int next = 0;
        for (SampleRange range : rows) {
            if (range.begin != next || range.empty())
                return programError("layer " + str(l) + " computes rows " + rowsText(range)
                                    + (range.begin < next ? " twice" : "") + " where row "
                                    + str(next) + " comes next");
            next = range.end;
        }
        if (next != program.globalBatch)
            return programError("layer " + str(l) + " computes rows up to " + str(next)
                                + " of a global batch of " + str(program.globalBatch));
    }
    return okStatus();
}

} // namespace

Status checkCoverage(const JobProgram &program)
{
    for (Status (*pass)(const JobProgram &) : {checkPipelineRows, checkReplicas, checkSampleRows})
        if (Status s = pass(program); !s)
            return s;
    return okStatus();
}

} // namespace hetplan::runtime
