#include "results/shown_plan_command.h"

#include "model/cluster_model.h"
#include "results/results_panel.h"

#include <QUndoStack>

namespace hetplan::gui {

ShownPlanCommand::ShownPlanCommand(ResultsPanel *results, std::optional<ShownPlan> before,
                                   std::shared_ptr<std::optional<ShownPlan>> after)
    : m_results(results)
    , m_before(std::move(before))
    , m_after(std::move(after))
{}

void ShownPlanCommand::undo()
{
    if (m_before)
        m_results->showPlan(*m_before);
}

void ShownPlanCommand::redo()
{
    if (*m_after)
        m_results->showPlan(**m_after);
}

Status editAndReplan(ResultsPanel *results, ClusterModel *model, const QString &text,
                     const Cluster &next,
                     const std::function<Status(ClusterModel *, const Cluster &)> &apply)
{
    if (next == model->cluster())
        return okStatus();
    QUndoStack *stack = model->undoStack();
    stack->beginMacro(text);
    Status edited = apply(model, next);
    auto after = std::make_shared<std::optional<ShownPlan>>();
    if (edited)
        stack->push(new ShownPlanCommand(results, results->shownPlan(), after));
    stack->endMacro();
    if (!edited)
        return edited;
    // The first plan shown for the edited cluster is the re-plan's: redo shows it again.
    auto connection = std::make_shared<QMetaObject::Connection>();
    *connection = QObject::connect(
        results, &ResultsPanel::planShown, results, [results, model, after, connection] {
            const auto &shown = results->shownPlan();
            if (!shown || shown->problem->topology.cluster() != model->cluster())
                return;
            *after = shown;
            QObject::disconnect(*connection);
        });
    results->plan();
    return edited;
}

} // namespace hetplan::gui
