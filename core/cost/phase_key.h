#pragma once

// Which figure a measured or predicted row holds (docs/runtime.md, "Comparing with the
// prediction"; docs/calibration.md): the whole run or one stage (or one rank of it), and the
// phase. The comparison produces these keys, calibration and the app match on them; a display
// label is formatted from a key at the edge and never read back.

#include "core/base/enum_names.h"
#include "core/plan/estimate.h"

#include <optional>
#include <string>

namespace hetplan {

// The parts of an iteration (Breakdown's fields) and the iteration as a whole.
enum class Phase { Iteration, Compute, TpComm, PpComm, DpComm, Bubble };

// As files, reports and JSON spell them ("breakdown_s" keys, docs/runtime.md).
inline constexpr EnumName<Phase> kPhaseNames[]
    = {{"iteration", Phase::Iteration}, {"compute", Phase::Compute}, {"tp_comm", Phase::TpComm},
       {"pp_comm", Phase::PpComm},      {"dp_comm", Phase::DpComm},  {"bubble", Phase::Bubble}};

// A Breakdown's parts, in the order files and reports list them.
inline constexpr Phase kBreakdownPhases[]
    = {Phase::Compute, Phase::TpComm, Phase::PpComm, Phase::DpComm, Phase::Bubble};

std::string_view phaseName(Phase phase);

// The Breakdown field that holds `phase` (`breakdown.*phaseField(phase)`); `phase` is one of
// kBreakdownPhases.
double Breakdown::*phaseField(Phase phase);

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

    bool perStage() const { return pipeline.has_value() && stage.has_value(); }
    friend bool operator==(const PhaseKey &, const PhaseKey &) = default;
};

// The key for display: "iteration", "compute", "p0 s1 compute", "p0 s1 r3 compute".
std::string labelOf(const PhaseKey &key);

} // namespace hetplan
