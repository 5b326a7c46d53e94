#pragma once

#include "core/launch/preflight_report.h"
#include "core/model/cluster.h"

#include <QFrame>

#include <optional>

class QLabel;
class QPushButton;

namespace hetplan::gui {

class ClusterScene;
class ClusterView;

// The canvas's legend while its links show a pre-flight's verdicts (docs/app-launch.md,
// "Pre-flight"): what each colour means, and Clear. It colours the scene's links from a report
// and takes the colours away on Clear, or while the cluster differs for planning from the one
// checked (moving a card or renaming the cluster keeps them: samePlanningCluster); an Undo
// back to that cluster shows them again.
class VerdictLegend : public QFrame
{
    Q_OBJECT

public:
    explicit VerdictLegend(ClusterView *view);

    QPushButton *clearButton() const { return m_clear; }
    QLabel *textLabel() const { return m_text; }

public Q_SLOTS:
    void showReport(const hetplan::PreflightReport &report);
    void clear();

private:
    void onClusterChanged();
    void colour(bool on);

    ClusterScene *m_scene;                   // not owned
    std::optional<PreflightReport> m_report; // the last one shown; none after Clear
    Cluster m_checked;                       // the cluster it was shown on
    QLabel *m_text;
    QPushButton *m_clear;
};

} // namespace hetplan::gui
