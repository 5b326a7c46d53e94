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
    case Phase::HopInPrev:
    case Phase::HopOutPrev:
    case Phase::HopInNext:
    case Phase::HopOutNext:
        break;
    }
    assert(phase == Phase::Bubble && "only a breakdown's phases are part of a breakdown");
    return &Breakdown::bubbleS;
}

double HopPhases::*hopField(Phase phase)
{
    switch (phase) {
    case Phase::HopInPrev:
        return &HopPhases::inPrevS;
    case Phase::HopOutPrev:
        return &HopPhases::outPrevS;
    case Phase::HopInNext:
        return &HopPhases::inNextS;
    case Phase::HopOutNext:
        break;
    default:
        assert(false && "not a hop phase");
    }
    return &HopPhases::outNextS;
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
