#include "results/shown_plan_command.h"

#include "results/results_panel.h"

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

} // namespace hetplan::gui
