#pragma once

#include "core/model/model_spec.h"

namespace hetplan {

// Model FLOPs of one training iteration over `sequences` sequences of `seqLen` tokens, the
// MFU numerator of docs/cost-models.md (Narayanan et al., SC'21, eq. 3; recomputation not counted):
// 72·G·S·L·H²·(1 + S/(6H) + V/(12·H·L)).
inline double trainingFlopsPerIteration(const ModelSpec &m, double sequences, double seqLen)
{
    const double h = m.hidden;
    const double l = m.layers;
    return 72.0 * sequences * seqLen * l * h * h
           * (1.0 + seqLen / (6.0 * h) + double(m.vocab) / (12.0 * h * l));
}

} // namespace hetplan
