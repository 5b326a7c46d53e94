#pragma once

#include "core/cost/cost_model.h"
#include "core/model/model_spec.h"
#include "core/model/workload.h"
#include "core/planners/planner.h"

#include <QUndoCommand>

#include <optional>
#include <string>

namespace hetplan::gui {

class Document;

// What a person chooses to plan, besides the cluster: one undo step restores all of it.
struct PlanningChoices
{
    std::string modelName;
    std::optional<ModelSpec> customModel;
    Workload workload;
    PlannerKind planner = PlannerKind::HexiScale;
    CostModelKind costModel = CostModelKind::HetPlan;

    bool operator==(const PlanningChoices &) const = default;
};

// A change of the model, the workload, the planner or the cost model, on the same undo stack
// as the canvas edits. Consecutive changes with the same non-zero merge key (one spin box
// being typed into: 2, 20, 204, 2048) merge into one step; a step that ends where it started
// disappears.
class SettingsCommand : public QUndoCommand
{
public:
    SettingsCommand(Document *document, PlanningChoices before, PlanningChoices after,
                    const QString &text, int mergeKey);

    void undo() override;
    void redo() override;
    int id() const override;
    bool mergeWith(const QUndoCommand *other) override;

private:
    Document *m_document; // Not owned; it owns the model that owns the stack that owns this.
    PlanningChoices m_before;
    PlanningChoices m_after;
    int m_mergeKey;
};

} // namespace hetplan::gui
