#pragma once

#include "core/cost/cost_parameters.h"
#include "core/cost/stage_terms.h"

#include <memory>

namespace hetplan {

// The realistic model, training: real FLOPs of the architecture (SwiGLU/GELU, GQA) at the
// achieved rate, Megatron TP all-reduces by ring, leader-to-leader PP hops with broadcast
// (HexiScale §3.2), mixed-precision optimizer memory with Korthikanti activation memory
// under recomputation, 1F1B in-flight micro-batches, and HexiScale's asymmetric chunked
// gradient sync. Each term cites its source where it is computed.
std::shared_ptr<const StageTerms> makeHetPlanTrainingTerms(const HetPlanParameters &parameters);
// The realistic model, inference: HexGen Appendix B's structure with the real parameter
// count, a GQA-sized KV cache, achieved memory bandwidth and FLOPS, a roofline per phase.
std::shared_ptr<const StageTerms> makeHetPlanInferenceTerms(const HetPlanParameters &parameters);

} // namespace hetplan
