#include "runtime/program/program_text.h"

namespace hetplan::runtime {

namespace {

std::string groupName(const JobProgram &program, int group)
{
    if (group < 0 || group >= static_cast<int>(program.groups.size()))
        return "group #" + std::to_string(group);
    return program.groups[static_cast<size_t>(group)].key;
}

std::string transferText(const JobProgram &program, const Transfer &t)
{
    const bool send = t.direction == Direction::Send;
    return std::string(send ? "send " : "recv ") + payloadName(t.payload) + " mb "
           + std::to_string(t.microBatch) + " rows " + rowsText(t.rows)
           + (send ? " to rank " : " from rank ") + std::to_string(t.peer) + " via "
           + groupName(program, t.group);
}

} // namespace

const char *payloadName(Payload payload)
{
    return payload == Payload::Activation ? "activation" : "gradient";
}

std::string rowsText(SampleRange rows)
{
    return std::to_string(rows.begin) + "-" + std::to_string(rows.end - 1);
}

std::string opText(const JobProgram &program, const Op &op)
{
    if (const auto *f = std::get_if<Forward>(&op))
        return "forward mb " + std::to_string(f->microBatch) + " rows " + rowsText(f->rows);
    if (const auto *b = std::get_if<Backward>(&op))
        return "backward mb " + std::to_string(b->microBatch) + " rows " + rowsText(b->rows);
    if (const auto *e = std::get_if<Exchange>(&op)) {
        std::string text = "exchange [";
        for (size_t i = 0; i < e->transfers.size(); ++i)
            text += (i ? "; " : "") + transferText(program, e->transfers[i]);
        return text + "]";
    }
    if (const auto *c = std::get_if<Broadcast>(&op))
        return std::string("broadcast ") + payloadName(c->payload) + " mb "
               + std::to_string(c->microBatch) + " rows " + rowsText(c->rows) + " from rank "
               + std::to_string(c->root) + " in " + groupName(program, c->group);
    if (const auto *g = std::get_if<GradSync>(&op)) {
        std::string what
            = g->params == ParamSet::TpSlice
                  ? "slice " + std::to_string(g->slice) + "/" + std::to_string(g->sliceCount)
                  : std::string("replicated");
        if (g->embedding)
            what += " +embedding";
        if (g->head)
            what += " +head";
        return "grad-sync layers " + std::to_string(g->layerBegin) + "-"
               + std::to_string(g->layerEnd - 1) + " " + what + " in "
               + groupName(program, g->group);
    }
    return "optimizer-step";
}

} // namespace hetplan::runtime
