#include "results/results_exports.h"

#include "results/exporters.h"
#include "results/results_docks.h"

#include <QFileDialog>
#include <QMessageBox>

#include <functional>

namespace hetplan::gui {

namespace {

// The steps every export shares: a path from the person, then the write, its error shown.
void saveAs(QWidget *window, const QString &title, const QString &filter, const QString &errorTitle,
            const std::function<Status(const QString &)> &write)
{
    const QString path = QFileDialog::getSaveFileName(window, title, QString(), filter);
    if (path.isEmpty())
        return;
    if (const Status written = write(path); !written)
        QMessageBox::warning(window, errorTitle, QString::fromStdString(written.error().message));
}

} // namespace

void ResultsExports::exportPlan(QWidget *window, const ShownPlan &shown)
{
    saveAs(window, tr("Export plan"), tr("Plan files (*.plan.json *.json)"), tr("Export plan"),
           [&](const QString &path) { return exportPlanFile(path, shown); });
}

void ResultsExports::exportImage(QWidget *window, const ResultsDocks &docks, bool planView)
{
    saveAs(window, planView ? tr("Export plan view") : tr("Export chart"),
           tr("PNG image (*.png);;SVG drawing (*.svg);;PDF (*.pdf)"), tr("Export image"),
           [&](const QString &path) {
               QCustomPlot *plot = docks.currentPlot();
               return planView || !plot ? exportPlanView(path, docks.planView)
                                        : exportChart(path, plot);
           });
}

void ResultsExports::exportCsv(QWidget *window, const ShownPlan &shown)
{
    saveAs(window, tr("Export breakdown"), tr("CSV (*.csv)"), tr("Export breakdown"),
           [&](const QString &path) { return exportBreakdownCsv(path, shown); });
}

} // namespace hetplan::gui
