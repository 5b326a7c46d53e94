#pragma once

// Which figure a measured or predicted row holds (docs/runtime.md, "Comparing with the
// prediction", "Phases per rank"; docs/calibration.md): the whole run or one stage (or one rank
// of it), and the phase. The comparison produces these keys, calibration and the app match on them;
// a display label is formatted from a key at the edge and never read back.

#include "core/base/enum_names.h"
#include "core/cost/rank_phases.h"
#include "core/plan/estimate.h"

#include <optional>
#include <string>

namespace hetplan {

// The parts of an iteration (Breakdown's fields), the iteration as a whole, and a rank's hops
// per neighbour and direction (HopPhases' fields, core/cost/rank_phases.h).
enum class Phase {
    Iteration,
    Compute,
    TpComm,
    PpComm,
    DpComm,
    Bubble,
    HopInPrev,
    HopOutPrev,
    HopInNext,
    HopOutNext
};

// As files, reports and JSON spell them ("breakdown_s" keys, docs/runtime.md).
inline constexpr EnumName<Phase> kPhaseNames[]
    = {{"iteration", Phase::Iteration},   {"compute", Phase::Compute},
       {"tp_comm", Phase::TpComm},        {"pp_comm", Phase::PpComm},
       {"dp_comm", Phase::DpComm},        {"bubble", Phase::Bubble},
       {"hop_in_prev", Phase::HopInPrev}, {"hop_out_prev", Phase::HopOutPrev},
       {"hop_in_next", Phase::HopInNext}, {"hop_out_next", Phase::HopOutNext}};

// A rank's hops, in the order files and reports list them.
inline constexpr Phase kHopPhases[]
    = {Phase::HopInPrev, Phase::HopOutPrev, Phase::HopInNext, Phase::HopOutNext};

// A Breakdown's parts, in the order files and reports list them.
inline constexpr Phase kBreakdownPhases[]
    = {Phase::Compute, Phase::TpComm, Phase::PpComm, Phase::DpComm, Phase::Bubble};

std::string_view phaseName(Phase phase);

// The Breakdown field that holds `phase` (`breakdown.*phaseField(phase)`); `phase` is one of
// kBreakdownPhases.
double Breakdown::*phaseField(Phase phase);
// The HopPhases field that holds `phase`, one of kHopPhases.
double HopPhases::*hopField(Phase phase);

struct PhaseKey
{
    std::optional<int> pipeline; // empty: the whole run
    std::optional<int> stage;    // set with pipeline
    std::optional<int> rank;     // empty: every rank of the stage (their mean)
    Phase phase = Phase::Iteration;

    // The whole run's `phase`; a stage's.
    static PhaseKey ofRun(Phase phase) { return {std::nullopt, std::nullopt, std::nullopt, phase}; }
    static PhaseKey ofStage(int pipeline, int stage, Phase phase)
    {
        return {pipeline, stage, std::nullopt, phase};
    }
    static PhaseKey ofRank(int pipeline, int stage, int rank, Phase phase)
    {
        return {pipeline, stage, rank, phase};
    }

    // A stage's row (the mean of its ranks); a rank's row.
    bool perStage() const { return pipeline.has_value() && stage.has_value() && !rank; }
    bool perRank() const { return rank.has_value(); }
    friend bool operator==(const PhaseKey &, const PhaseKey &) = default;
};

// The key for display: "iteration", "compute", "p0 s1 compute", "p0 s1 r3 compute".
std::string labelOf(const PhaseKey &key);

} // namespace hetplan
