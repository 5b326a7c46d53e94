#pragma once

#include "core/cost/stage_terms.h"

#include <memory>

namespace hetplan {

// HexGen Appendix B, Table 1 (inference): per stage compute eq. 4 (parameter scan over the
// slowest memory bandwidth m_d plus FLOPs over the slowest peak c_d), TP comm eq. 5, PP comm
// eq. 6 to the next stage, memory eq. 7. b_t is the request batch, s_in the prompt and s_out
// the output length; 12H² parameters per layer, as the paper writes.
std::shared_ptr<const StageTerms> hexGenInferenceTerms();

} // namespace hetplan
