#pragma once

#include "core/base/no_fit.h"
#include "core/plan/estimate.h"

#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace hetplan {

struct Plan;
struct Problem;

// Of the candidates that did not fit in memory, the one that came closest (the lowest peak of
// used / capacity over its GPUs), so that "no plan fits" can say which GPUs ran out of memory
// and by how much instead of only that nothing fits.
class ClosestFit
{
public:
    // True when `evaluation` overflows and comes closer than anything recorded so far.
    bool closer(const Evaluation &evaluation) const;
    // `description` names the candidate for a person, e.g. "dp=1, tp=2, pp=4, micro-batch 1".
    void record(const Evaluation &evaluation, std::string description);

    bool empty() const { return m_over.empty(); }
    // The closest candidate and its GPUs over capacity, named as `problem`'s cluster names them.
    NoFit noFit(const Problem &problem) const;
    // noFitText of the above: "the closest (dp=1, tp=2, pp=4) needs 31.9 GiB on C:0 (...)".
    std::string describe(const Problem &problem) const;
    // noFit() to attach to a NoPlanFits Error (Error::noFit); null while nothing was recorded.
    std::shared_ptr<const NoFit> attachment(const Problem &problem) const;

private:
    std::string m_description;
    double m_worstRatio = std::numeric_limits<double>::infinity();
    std::vector<GpuMemory> m_over; // its GPUs over capacity, the largest overflow first
};

// "2 pipelines (3 + 4 stages), micro-batch 1": a plan's shape in a few words.
std::string describePlanShape(const Plan &plan);

} // namespace hetplan
