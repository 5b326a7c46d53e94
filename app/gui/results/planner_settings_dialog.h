#pragma once

#include "core/planners/planner.h"

#include <QDialog>

class QDoubleSpinBox;
class QFormLayout;
class QSpinBox;

namespace hetplan::gui {

// Plan ▸ Planner Settings: the search budget every planner shares (iterations, seed, time
// limit) and the chosen planner's own knobs. OK saves them (PlannerSettings); the next Plan or
// Compare runs with them.
class PlannerSettingsDialog : public QDialog
{
    Q_OBJECT

public:
    PlannerSettingsDialog(PlannerKind planner, QWidget *parent);

    QSpinBox *iterationsBox() const { return m_iterations; }
    QSpinBox *seedBox() const { return m_seed; }
    QDoubleSpinBox *timeLimitBox() const { return m_timeLimit; }

    void accept() override;

private:
    PlannerKind m_planner;
    QSpinBox *m_iterations;
    QSpinBox *m_seed;
    QDoubleSpinBox *m_timeLimit;
};

} // namespace hetplan::gui
