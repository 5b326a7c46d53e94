#pragma once

// Shared by the tests that drive the whole main window: planning as the Plan button does.

#include "mainwindow.h"
#include "results/planning_controller.h"
#include "results/results_panel.h"

#include <QAction>
#include <QSignalSpy>

namespace hetplan::gui::test {

// Generous: a debug build plans the bundled examples in seconds.
constexpr int kPlanTimeoutMs = 120'000;

// Presses Plan and waits for the result; false when planning did not finish in time.
inline bool planAndWait(MainWindow &window)
{
    ResultsPanel *results = window.results();
    if (!results->planAction()->isEnabled())
        return false;
    QSignalSpy finished(results->controller(), &PlanningController::finished);
    results->planAction()->trigger();
    return (!finished.isEmpty() || finished.wait(kPlanTimeoutMs)) && results->shownPlan();
}

} // namespace hetplan::gui::test
