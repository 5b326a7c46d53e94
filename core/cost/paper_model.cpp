#include "core/cost/paper_model.h"

#include "core/cost/hexgen_paper.h"
#include "core/cost/hexiscale_paper.h"

namespace hetplan {

PaperModel::PaperModel(CostModelKind kind)
    : TermsCostModel(kind, hexiScaleTrainingTerms(), hexGenInferenceTerms())
{}

} // namespace hetplan
