#pragma once

#include "core/planners/planner.h"

#include <QDialog>

#include <string>
#include <utility>
#include <vector>

class QDoubleSpinBox;
class QSpinBox;
class QWidget;

namespace hetplan::gui {

// Plan ▸ Planner Settings: the search budget every planner shares (iterations, seed, time
// limit) and the chosen planner's own parameters, one editor per entry of its table
// (plannerParameters(), core/planners/planner_params.h) with the entry's range and doc. OK saves
// them (PlannerSettings); the next Plan or Compare runs with them.
class PlannerSettingsDialog : public QDialog
{
    Q_OBJECT

public:
    PlannerSettingsDialog(PlannerKind planner, QWidget *parent);

    QSpinBox *iterationsBox() const { return m_iterations; }
    QSpinBox *seedBox() const { return m_seed; }
    QDoubleSpinBox *timeLimitBox() const { return m_timeLimit; }
    // The editor of the chosen planner's parameter `name` (a QSpinBox, QDoubleSpinBox or
    // QCheckBox, by its type); nullptr when the planner has none by that name.
    QWidget *parameterEditor(const QString &name) const;
    // Puts every parameter of the planner back to its default.
    void restoreDefaults();

    void accept() override;

private:
    void addParameterRows();
    static double editorValue(const QWidget *editor);
    static void setEditorValue(QWidget *editor, double value);

    PlannerKind m_planner;
    std::vector<std::pair<std::string, QWidget *>> m_parameters; // name, editor
    QSpinBox *m_iterations;
    QSpinBox *m_seed;
    QDoubleSpinBox *m_timeLimit;
};

} // namespace hetplan::gui
