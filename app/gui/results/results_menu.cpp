#include "results/results_menu.h"

#include "results/planner_settings_dialog.h"
#include "results/results_exports.h"
#include "results/results_panel.h"

#include <QAction>
#include <QActionGroup>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>

namespace hetplan::gui {

ResultsMenu::ResultsMenu(ResultsPanel *panel, const ResultsDocks &docks, QMainWindow *window,
                         QAction *menuBefore)
{
    m_menu = new QMenu(tr("&Plan"), window);
    if (menuBefore)
        window->menuBar()->insertMenu(menuBefore, m_menu);
    else
        window->menuBar()->addMenu(m_menu);
    m_planAction = m_menu->addAction(tr("&Plan"), panel, &ResultsPanel::plan);
    m_planAction->setShortcut(Qt::Key_F5);
    m_planAction->setStatusTip(tr("Search for the best plan with the chosen planner"));
    m_compareAction
        = m_menu->addAction(tr("&Compare all planners"), panel, &ResultsPanel::compareAll);
    m_compareAction->setShortcut(Qt::CTRL | Qt::Key_F5);
    m_cancelAction = m_menu->addAction(tr("C&ancel"), panel, &ResultsPanel::cancel);
    m_cancelAction->setShortcut(Qt::SHIFT | Qt::Key_F5);
    m_menu->addSeparator();

    addPlanners(panel);
    addCostModels(panel);
    m_settingsAction = m_menu->addAction(tr("Planner &Settings…"), panel, [panel, window] {
        PlannerSettingsDialog(panel->plannerToRun(), window).exec();
    });
    m_settingsAction->setObjectName(QStringLiteral("plannerSettingsAction"));
    m_menu->addSeparator();
    addExports(panel, docks, window);
}

void ResultsMenu::addPlanners(ResultsPanel *panel)
{
    QMenu *planners = m_menu->addMenu(tr("P&lanner"));
    m_plannerGroup = new QActionGroup(m_menu);
    QAction *automatic = planners->addAction(tr("Default for the workload"));
    automatic->setCheckable(true);
    automatic->setChecked(true);
    m_plannerGroup->addAction(automatic);
    QObject::connect(automatic, &QAction::triggered, panel,
                     [panel] { panel->choosePlanner(std::nullopt); });
    planners->addSeparator();
    for (PlannerKind kind : {PlannerKind::HexiScale, PlannerKind::Metis, PlannerKind::Holmes,
                             PlannerKind::HexGen, PlannerKind::Megatron, PlannerKind::Exhaustive}) {
        QAction *action = planners->addAction(QString::fromUtf8(plannerName(kind)));
        action->setCheckable(true);
        action->setData(int(kind));
        m_plannerGroup->addAction(action);
        QObject::connect(action, &QAction::triggered, panel,
                         [panel, kind] { panel->choosePlanner(kind); });
    }
}

void ResultsMenu::addCostModels(ResultsPanel *panel)
{
    QMenu *costModels = m_menu->addMenu(tr("C&ost model"));
    m_costModelGroup = new QActionGroup(m_menu);
    for (CostModelKind kind : allCostModels()) {
        QAction *action = costModels->addAction(QString::fromUtf8(costModelName(kind)));
        action->setCheckable(true);
        action->setChecked(kind == panel->costModel());
        action->setData(int(kind));
        m_costModelGroup->addAction(action);
        QObject::connect(action, &QAction::triggered, panel,
                         [panel, kind] { panel->chooseCostModel(kind); });
    }
}

void ResultsMenu::addExports(ResultsPanel *panel, const ResultsDocks &docks, QMainWindow *window)
{
    // Each exports the plan on show when it is chosen; setRunning disables them while none is.
    m_exportActions << m_menu->addAction(tr("Export plan &file…"), panel, [panel, window] {
        if (panel->shownPlan())
            ResultsExports::exportPlan(window, *panel->shownPlan());
    });
    m_exportActions << m_menu->addAction(tr("Export plan &view as image…"), panel,
                                         [panel, window, &docks] {
                                             if (panel->shownPlan())
                                                 ResultsExports::exportImage(window, docks, true);
                                         });
    m_exportActions << m_menu->addAction(tr("Export &chart as image…"), panel,
                                         [panel, window, &docks] {
                                             if (panel->shownPlan())
                                                 ResultsExports::exportImage(window, docks, false);
                                         });
    m_exportActions << m_menu->addAction(tr("Export &breakdown as CSV…"), panel, [panel, window] {
        if (panel->shownPlan())
            ResultsExports::exportCsv(window, *panel->shownPlan());
    });
}

void ResultsMenu::showPlanner(std::optional<PlannerKind> planner)
{
    for (QAction *action : m_plannerGroup->actions())
        action->setChecked(planner ? action->data() == QVariant(int(*planner))
                                   : !action->data().isValid());
}

void ResultsMenu::showCostModel(CostModelKind costModel)
{
    for (QAction *action : m_costModelGroup->actions())
        action->setChecked(action->data() == QVariant(int(costModel)));
}

void ResultsMenu::setRunning(bool running, bool haveModel, bool havePlan)
{
    m_planAction->setEnabled(!running && haveModel);
    m_compareAction->setEnabled(!running && haveModel);
    m_cancelAction->setEnabled(running);
    if (!haveModel)
        m_planAction->setToolTip(tr("Choose a model first"));
    for (QAction *action : m_exportActions)
        action->setEnabled(havePlan);
}

} // namespace hetplan::gui
