#include "launch/preflight_step.h"

#include "core/launch/preflight_fold.h"
#include "launch/launch_panel.h"
#include "launch/preflight_dialog.h"
#include "model/cluster_model.h"
#include "results/results_panel.h"
#include "results/shown_plan_command.h"

#include <QMainWindow>
#include <QMessageBox>
#include <QStatusBar>

namespace hetplan::gui {

namespace {

constexpr int kStatusMessageMs = 8000;

} // namespace

PreflightStep::PreflightStep(QMainWindow *window, ClusterModel *model, ResultsPanel *results,
                             LaunchPanel *panel)
    : QObject(window)
    , m_window(window)
    , m_model(model)
    , m_results(results)
    , m_panel(panel)
{}

PreflightDialog *PreflightStep::dialog() const
{
    return m_dialog;
}

void PreflightStep::say(const QString &text)
{
    m_panel->addJobLine(text);
    m_window->statusBar()->showMessage(text, kStatusMessageMs);
}

void PreflightStep::showReport(const PreflightReport &report, const Cluster &checked)
{
    // The CLI's table, kept in the Job pane beside the phases that made it.
    for (const QString &line : QString::fromStdString(preflightTable(report)).split(u'\n'))
        if (!line.isEmpty())
            m_panel->addJobLine(line);
    Q_EMIT reported(report);
    Cluster folded = m_model->cluster();
    const int pairs = foldPreflight(folded, report);
    if (m_dialog)
        m_dialog->close();
    auto *dialog = new PreflightDialog(report, checked, pairs, m_window);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    m_dialog = dialog;
    connect(dialog, &QDialog::finished, this, [this, dialog, report] {
        switch (dialog->choice()) {
        case PreflightDialog::Choice::Launch:
            m_panel->addJobLine(tr("launching after the pre-flight"));
            Q_EMIT launchChosen();
            break;
        case PreflightDialog::Choice::Fold:
            fold(report);
            break;
        case PreflightDialog::Choice::Cancel:
            m_panel->addJobLine(tr("not launched: cancelled after the pre-flight"));
            break;
        }
    });
    dialog->open();
}

bool PreflightStep::fold(const PreflightReport &report)
{
    Cluster folded = m_model->cluster();
    const int pairs = foldPreflight(folded, report);
    if (pairs == 0) {
        say(tr("The pre-flight measured no pair between two machines: nothing to fold."));
        return false;
    }
    const Status applied = editAndReplan(
        m_results, m_model, tr("Fold pre-flight into cluster"), folded,
        [](ClusterModel *model, const Cluster &next) { return model->applyPreflight(next); });
    if (!applied) {
        QMessageBox::warning(m_window, tr("Fold Pre-flight"),
                             QString::fromStdString(applied.error().message));
        return false;
    }
    say(tr("Folded %n measured pair(s) into the cluster (source pre-flight) and planning again; "
           "Edit › Undo restores the cluster and the plan.",
           nullptr, pairs));
    return true;
}

} // namespace hetplan::gui
