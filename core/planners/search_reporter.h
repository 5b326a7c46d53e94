#pragma once

#include "core/planners/planner.h"

#include <chrono>
#include <stop_token>
#include <vector>

namespace hetplan {

// What every planner's search owes its caller, in one place: the clock, the stop condition
// (the token Planner::plan hands over fires on a stop request and at the time limit), and the
// trace of the best cost after each iteration, reported to the progress sink as it grows.
class SearchReporter
{
public:
    SearchReporter(std::stop_token stop, ProgressSink &sink)
        : m_stop(std::move(stop))
        , m_sink(sink)
        , m_started(std::chrono::steady_clock::now())
    {}

    double elapsedS() const
    {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - m_started).count();
    }
    bool stopRequested() const { return m_stop.stop_requested(); }
    bool shouldStop() const { return stopRequested(); }
    // For work the search hands on (nested planners, polishing) that must stop with it.
    const std::stop_token &stopToken() const { return m_stop; }

    // Appends a trace point and tells the sink; `bestPlan` may be null while nothing fits.
    void report(int iteration, double bestCostS, const Plan *bestPlan)
    {
        const double elapsed = elapsedS();
        m_trace.push_back({iteration, elapsed, bestCostS});
        m_sink.report({iteration, elapsed, bestCostS, bestPlan});
    }
    const std::vector<TracePoint> &trace() const { return m_trace; }
    std::vector<TracePoint> takeTrace() { return std::move(m_trace); }

private:
    std::stop_token m_stop;
    ProgressSink &m_sink; // Not owned.
    std::chrono::steady_clock::time_point m_started;
    std::vector<TracePoint> m_trace;
};

} // namespace hetplan
