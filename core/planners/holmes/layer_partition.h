#pragma once

#include <span>
#include <vector>

namespace hetplan::holmes {

// Holmes §3.3, eq. 5: the layers of each fabric (a cluster c_i) in pipeline order,
// N_ci = ⌊α · S(c_i) / Σ S · N⌋ for every fabric but the last, which takes the rest, so the
// fabrics that come first get slightly more than their share of compute (with α > 1; eq. 4 for
// two fabrics). `speeds` are the fabrics' S(c_i), `stages` their stage counts: every stage
// keeps at least one layer. Requires Σ stages ≤ layers.
std::vector<int> fabricLayers(std::span<const double> speeds, std::span<const int> stages,
                              int layers, double alpha);

// Spreads `layers` over stages by their speeds (largest remainders), at least one each.
// Requires layers ≥ speeds.size().
std::vector<int> spreadLayers(int layers, std::span<const double> speeds);

} // namespace hetplan::holmes
