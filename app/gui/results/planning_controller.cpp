#include "results/planning_controller.h"

#include "tasks/background_runner.h"

#include <limits>
#include <mutex>

namespace hetplan::gui {

// State the planning thread writes and the GUI thread reads; `ticks` only grows, so every
// report is a new progress value for the promise (which drops values that do not increase).
struct PlanningShared
{
    mutable std::mutex mutex;
    PlanningProgress progress;
    int ticks = 0;
};

namespace {

constexpr double kInfinityS = std::numeric_limits<double>::infinity();

// Receives the planner's reports on the planning thread. Evaluates the best plan only when
// it improves (once per improvement, microseconds to a millisecond), so the GUI can show
// its MFU without evaluating anything itself.
class PromiseSink final : public ProgressSink
{
public:
    PromiseSink(PlanningShared &shared, QPromise<PlannerOutcome> &promise, const Problem &problem,
                const CostModel &costModel, int plannerIndex)
        : m_shared(shared)
        , m_promise(promise)
        , m_problem(problem)
        , m_costModel(costModel)
        , m_plannerIndex(plannerIndex)
    {
        std::lock_guard lock(m_shared.mutex);
        m_shared.progress = PlanningProgress{};
        m_shared.progress.plannerIndex = plannerIndex;
        m_shared.progress.bestCostS = kInfinityS;
    }

    void report(const Progress &progress) override
    {
        std::optional<Plan> plan;
        std::optional<Evaluation> evaluation;
        if (progress.bestPlan && progress.bestCostS < m_bestS) {
            m_bestS = progress.bestCostS;
            plan = *progress.bestPlan;
            evaluation = m_costModel.evaluate(m_problem, *plan);
        }
        int tick = 0;
        {
            std::lock_guard lock(m_shared.mutex);
            PlanningProgress &p = m_shared.progress;
            p.plannerIndex = m_plannerIndex;
            p.iteration = progress.iteration;
            p.elapsedS = progress.elapsedS;
            p.bestCostS = progress.bestCostS;
            p.trace.push_back({progress.iteration, progress.elapsedS, progress.bestCostS});
            if (plan) {
                p.bestPlan = std::move(plan);
                p.bestEvaluation = std::move(evaluation);
            }
            tick = ++m_shared.ticks;
        }
        m_promise.setProgressValue(tick);
    }

    // What a search stopped before returning anything still found, if anything.
    std::optional<PlanSearch> bestSoFar() const
    {
        std::lock_guard lock(m_shared.mutex);
        const PlanningProgress &p = m_shared.progress;
        if (!p.bestPlan || !p.bestEvaluation)
            return std::nullopt;
        PlanSearch search;
        search.plan = *p.bestPlan;
        search.evaluation = *p.bestEvaluation;
        search.trace = p.trace;
        search.planningS = p.elapsedS;
        search.stoppedEarly = true;
        return search;
    }

private:
    PlanningShared &m_shared;
    QPromise<PlannerOutcome> &m_promise;
    const Problem &m_problem;
    const CostModel &m_costModel;
    int m_plannerIndex = 0;
    double m_bestS = kInfinityS;
};

PlannerOutcome runOne(QPromise<PlannerOutcome> &promise, const PlanRequest &request,
                      const CostModel &costModel, PlanningShared &shared, int index,
                      const std::stop_token &stop)
{
    PlannerOutcome outcome;
    outcome.planner = request.planners[size_t(index)];
    if (stop.stop_requested()) {
        outcome.error = Error{ErrorKind::Cancelled, "not run: planning was cancelled"};
        return outcome;
    }
    auto planner = makePlanner(outcome.planner);
    if (!planner) {
        outcome.error = planner.error();
        return outcome;
    }
    PromiseSink sink(shared, promise, request.problem, costModel, index);
    auto search = (*planner)->plan(request.problem, costModel, request.optionsFor(outcome.planner),
                                   stop, sink);
    if (search) {
        outcome.search = std::move(search).value();
    } else if (auto kept = sink.bestSoFar(); kept && search.error().kind == ErrorKind::Cancelled) {
        outcome.search = std::move(kept);
    } else {
        outcome.error = search.error();
    }
    return outcome;
}

} // namespace

const PlannerOptions &PlanRequest::optionsFor(PlannerKind planner) const
{
    const auto own = plannerOptions.find(planner);
    return own != plannerOptions.end() ? own->second : options;
}

PlanningController::PlanningController(QObject *parent)
    : QObject(parent)
    , m_runner(new BackgroundRunner(this))
    , m_shared(std::make_shared<PlanningShared>())
{
    connect(m_runner, &BackgroundRunner::progressValueChanged, this,
            &PlanningController::progressChanged);
    connect(m_runner, &BackgroundRunner::resultReadyAt, this, &PlanningController::onResultReady);
    connect(m_runner, &BackgroundRunner::finished, this, &PlanningController::onFinished);
}

PlanningController::~PlanningController()
{
    cancelAndWait();
}

bool PlanningController::isRunning() const
{
    return m_runner->isRunning();
}

bool PlanningController::wasCancelled() const
{
    return m_runner->wasCancelled();
}

void PlanningController::start(PlanRequest request)
{
    Q_ASSERT(!request.planners.empty());
    if (isRunning()) {
        m_pending = std::move(request);
        cancel();
        return;
    }
    launch(std::move(request));
}

void PlanningController::launch(PlanRequest request)
{
    m_request = std::make_shared<const PlanRequest>(std::move(request));
    m_outcomes.clear();
    {
        std::lock_guard lock(m_shared->mutex);
        m_shared->progress = PlanningProgress{};
        m_shared->ticks = 0;
    }
    m_runner->start<PlannerOutcome>(
        [request = m_request, shared = m_shared](QPromise<PlannerOutcome> &promise,
                                                 const std::stop_token &stop) {
            const std::unique_ptr<CostModel> costModel = makeCostModel(request->costModel);
            for (int i = 0; i < int(request->planners.size()); ++i)
                promise.addResult(runOne(promise, *request, *costModel, *shared, i, stop), i);
        });
    Q_EMIT started();
}

void PlanningController::cancel()
{
    m_runner->cancel();
}

void PlanningController::cancelAndWait()
{
    m_pending.reset();
    m_runner->cancelAndWait();
}

PlanningProgress PlanningController::progress() const
{
    std::lock_guard lock(m_shared->mutex);
    return m_shared->progress;
}

void PlanningController::onResultReady(int index)
{
    // Results arrive in order (one planner after the other); keep the vector dense anyway.
    if (index >= int(m_outcomes.size()))
        m_outcomes.resize(size_t(index) + 1);
    m_outcomes[size_t(index)] = m_runner->future<PlannerOutcome>().resultAt(index);
    Q_EMIT plannerFinished(index);
}

void PlanningController::onFinished(bool cancelled)
{
    if (m_pending) {
        PlanRequest next = std::move(*m_pending);
        m_pending.reset();
        Q_EMIT finished(true);
        launch(std::move(next));
        return;
    }
    Q_EMIT finished(cancelled);
}

} // namespace hetplan::gui
