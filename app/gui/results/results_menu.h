#pragma once

#include "core/cost/cost_model.h"
#include "core/planners/planner.h"

#include <QCoreApplication>
#include <QList>

#include <optional>

class QAction;
class QActionGroup;
class QMainWindow;
class QMenu;

namespace hetplan::gui {

struct ResultsDocks;
class ResultsPanel;

// The Plan menu: plan, compare, cancel, the planner and cost model choices, the planner
// settings and the exports. Its actions call the panel; the panel tells it what to show.
class ResultsMenu
{
    // The texts are the panel's, in its translation context.
    Q_DECLARE_TR_FUNCTIONS(hetplan::gui::ResultsPanel)

public:
    // Inserts the menu before `menuBefore` (e.g. Help's menu action), else at the end.
    ResultsMenu(ResultsPanel *panel, const ResultsDocks &docks, QMainWindow *window,
                QAction *menuBefore);

    QMenu *menu() const { return m_menu; }
    QAction *planAction() const { return m_planAction; }
    QAction *settingsAction() const { return m_settingsAction; }

    // Checks the planner's entry; empty: "Default for the workload".
    void showPlanner(std::optional<PlannerKind> planner);
    void showCostModel(CostModelKind costModel);
    // Plan and Compare need a model and no search running, Cancel a search, the exports a
    // plan on show.
    void setRunning(bool running, bool haveModel, bool havePlan);

private:
    void addPlanners(ResultsPanel *panel);
    void addCostModels(ResultsPanel *panel);
    void addExports(ResultsPanel *panel, const ResultsDocks &docks, QMainWindow *window);

    QMenu *m_menu = nullptr; // owned by the window
    QAction *m_planAction = nullptr;
    QAction *m_compareAction = nullptr;
    QAction *m_cancelAction = nullptr;
    QAction *m_settingsAction = nullptr;
    QActionGroup *m_plannerGroup = nullptr;
    QActionGroup *m_costModelGroup = nullptr;
    QList<QAction *> m_exportActions;
};

} // namespace hetplan::gui
