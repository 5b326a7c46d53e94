#pragma once

#include "core/base/result.h"
#include "results/results_text.h"
#include "results/shown_plan.h"

#include <QString>

class QCustomPlot;
class QWidget;

namespace hetplan::gui {

class PlanView;

// Writers behind the Plan menu's Export entries. Every file is written atomically (a
// temporary beside it, then renamed), so a failed export never leaves half a file; errors
// name the path and the reason.

// The plan file (hetplan.plan/1) with its estimate.
Status exportPlanFile(const QString &path, const ShownPlan &shown);
// The time breakdown as CSV: one row per part, a column for the whole plan and one per
// pipeline, in seconds.
Status exportBreakdownCsv(const QString &path, const ShownPlan &shown);
QString breakdownCsv(const ShownPlan &shown);

// PNG, SVG or PDF by the file's suffix.
enum class ImageFormat { Png, Svg, Pdf };
Result<ImageFormat> imageFormatOf(const QString &path);
Status exportChart(const QString &path, QCustomPlot *plot);
// The whole plan at its natural size, not only the part in view.
Status exportPlanView(const QString &path, const PlanView *view);

} // namespace hetplan::gui
