#pragma once

// A bounded pool for the steps a job takes on every host at once (preflight, uploads;
// docs/launcher.md, "Jobs"): at most kMaxHostThreads threads whatever the host count, each
// taking the next host when it is done with one. A thread that cannot be created is an
// Error for the hosts nobody took, never an abort.

#include "core/base/result.h"

#include <cstddef>
#include <functional>
#include <optional>
#include <vector>

namespace hetplan::launch {

inline constexpr std::size_t kMaxHostThreads = 16;

// Calls `step(i)` for every i < count on at most `maxThreads` threads and waits for all. Returns
// an Error when not a single thread could be created (then no step ran); when some could,
// they do every step.
Status forEachHost(std::size_t count, const std::function<void(std::size_t)> &step,
                   std::size_t maxThreads = kMaxHostThreads);

// forEachHost with a result per host, in host order.
template<typename T>
std::vector<Result<T>> onEveryHost(std::size_t count,
                                   const std::function<Result<T>(std::size_t)> &step,
                                   std::size_t maxThreads = kMaxHostThreads)
{
    std::vector<std::optional<Result<T>>> slots(count);
    const Status pooled = forEachHost(
        count, [&slots, &step](std::size_t i) { slots[i].emplace(step(i)); }, maxThreads);
    std::vector<Result<T>> results;
    results.reserve(count);
    for (auto &slot : slots)
        results.push_back(slot ? std::move(*slot) : Result<T>(pooled.error()));
    return results;
}

} // namespace hetplan::launch
