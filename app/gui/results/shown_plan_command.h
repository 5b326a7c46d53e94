#pragma once

#include "core/base/result.h"
#include "results/shown_plan.h"

#include <QUndoCommand>

#include <functional>
#include <memory>
#include <optional>

namespace hetplan::gui {

class ClusterModel;
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

// Makes `model`'s cluster `next` through `apply` (such as ClusterModel::applyPreflight), and
// the re-plan it calls for, one undo step named `text` (Calibrate's Apply, a pre-flight's
// Fold): undo restores the cluster and the plan shown before, redo both as they were made.
// Nothing happens when `next` is the cluster as it is; otherwise the re-plan starts once the
// edit is made. Returns the edit's status (nothing is pushed when it was refused).
Status editAndReplan(ResultsPanel *results, ClusterModel *model, const QString &text,
                     const Cluster &next,
                     const std::function<Status(ClusterModel *, const Cluster &)> &apply);

} // namespace hetplan::gui
