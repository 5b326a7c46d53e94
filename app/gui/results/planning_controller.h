#pragma once

#include "core/base/result.h"
#include "core/cost/cost_model.h"
#include "core/cost/problem.h"
#include "core/planners/planner.h"

#include <QObject>

#include <map>
#include <memory>
#include <optional>
#include <vector>

namespace hetplan::gui {

// What one background run plans: a snapshot of the problem, so the cluster can be edited
// while the run goes on.
struct PlanRequest
{
    Problem problem;
    CostModelKind costModel = CostModelKind::HetPlan;
    std::vector<PlannerKind> planners; // one, or plannersFor(mode) for "compare all"
    PlannerOptions options;
    // A planner's own options (its knobs), in place of `options` for that planner.
    std::map<PlannerKind, PlannerOptions> plannerOptions;

    const PlannerOptions &optionsFor(PlannerKind planner) const;
};

// How one planner of a run ended: a search (possibly stopped early), or why not.
struct PlannerOutcome
{
    PlannerKind planner = PlannerKind::HexiScale;
    std::optional<PlanSearch> search;
    std::optional<Error> error; // set exactly when search is empty
};

// The newest best-so-far of the planner that is running.
struct PlanningProgress
{
    int plannerIndex = -1; // into PlanRequest::planners; -1 before the first report
    int iteration = 0;
    double elapsedS = 0;
    double bestCostS = 0; // +inf until something fits
    std::optional<Plan> bestPlan;
    std::optional<Evaluation> bestEvaluation;
    std::vector<TracePoint> trace; // of the running planner, one point per report
};

struct PlanningShared; // what the planning thread and the GUI thread share
class BackgroundRunner;

// Runs planners in the background through the app's BackgroundRunner (docs/architecture.md,
// "Conventions": background work): planning and the what-if re-plan; the planners' reports become
// progress and each planner's outcome a result as soon as it returns.
class PlanningController : public QObject
{
    Q_OBJECT

public:
    explicit PlanningController(QObject *parent = nullptr);
    ~PlanningController() override;

    bool isRunning() const;
    // Starts a run; when one is running it is stopped first and this one starts after it.
    void start(PlanRequest request);
    // Asks the running planner to stop; it returns its best plan so far, and finished()
    // follows as soon as the planner notices (it checks between evaluations).
    void cancel();
    // Shutdown: stop and block until the background work has returned.
    void cancelAndWait();

    // The request of the current (or last) run; nullptr before the first.
    const PlanRequest *request() const { return m_request.get(); }
    // One entry per planner of the request that has finished so far, in request order.
    const std::vector<PlannerOutcome> &outcomes() const { return m_outcomes; }
    PlanningProgress progress() const;
    bool wasCancelled() const;

Q_SIGNALS:
    void started();
    void progressChanged();          // progress() has a newer iteration or best plan
    void plannerFinished(int index); // outcomes()[index] is in
    void finished(bool cancelled);

private:
    void launch(PlanRequest request);
    void onResultReady(int index);
    void onFinished(bool cancelled);

    BackgroundRunner *m_runner = nullptr;
    std::shared_ptr<PlanningShared> m_shared;
    std::shared_ptr<const PlanRequest> m_request;
    std::optional<PlanRequest> m_pending; // started while a run was still stopping
    std::vector<PlannerOutcome> m_outcomes;
};

} // namespace hetplan::gui
