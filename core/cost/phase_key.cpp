#include "core/cost/phase_key.h"

#include <cassert>

namespace hetplan {

std::string_view phaseName(Phase phase)
{
    return nameOf<Phase>(kPhaseNames, phase);
}

double Breakdown::*phaseField(Phase phase)
{
    switch (phase) {
    case Phase::Compute:
        return &Breakdown::computeS;
    case Phase::TpComm:
        return &Breakdown::tpCommS;
    case Phase::PpComm:
        return &Breakdown::ppCommS;
    case Phase::DpComm:
        return &Breakdown::dpCommS;
    case Phase::Bubble:
    case Phase::Iteration:
        break;
    }
    assert(phase == Phase::Bubble && "the iteration is no part of a breakdown");
    return &Breakdown::bubbleS;
}

std::string labelOf(const PhaseKey &key)
{
    std::string label;
    if (key.pipeline) {
        label += 'p';
        label += std::to_string(*key.pipeline);
        label += " s";
        label += std::to_string(key.stage.value_or(0));
        label += ' ';
    }
    if (key.rank) {
        label += 'r';
        label += std::to_string(*key.rank);
        label += ' ';
    }
    label += phaseName(key.phase);
    return label;
}

} // namespace hetplan
