#pragma once

#include "results/shown_plan.h"

#include <QUndoCommand>

#include <memory>
#include <optional>

namespace hetplan::gui {

class ResultsPanel;

// The plan half of an edit that re-plans, such as Calibrate (the cluster half is the cluster
// model's command in the same undo macro): undo shows the plan as it was before, redo the plan
// made after the edit once it is known (`after` is filled when the re-plan shows it).
class ShownPlanCommand : public QUndoCommand
{
public:
    ShownPlanCommand(ResultsPanel *results, std::optional<ShownPlan> before,
                     std::shared_ptr<std::optional<ShownPlan>> after);

    void undo() override;
    void redo() override;

private:
    ResultsPanel *m_results; // Not owned; it outlives the window's undo stacks.
    std::optional<ShownPlan> m_before;
    std::shared_ptr<std::optional<ShownPlan>> m_after;
};

} // namespace hetplan::gui
