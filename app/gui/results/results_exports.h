#pragma once

#include "results/shown_plan.h"

#include <QCoreApplication>

class QWidget;

namespace hetplan::gui {

struct ResultsDocks;

// The Plan menu's Export entries: each asks where to save, writes through exporters.h and
// shows a failure over `window`; a cancelled file dialog writes nothing.
class ResultsExports
{
    // The texts are the panel's, in its translation context.
    Q_DECLARE_TR_FUNCTIONS(hetplan::gui::ResultsPanel)

public:
    static void exportPlan(QWidget *window, const ShownPlan &shown);
    // The plan view, or the chart on show (the plan view when that tab has no plot).
    static void exportImage(QWidget *window, const ResultsDocks &docks, bool planView);
    static void exportCsv(QWidget *window, const ShownPlan &shown);
};

} // namespace hetplan::gui
