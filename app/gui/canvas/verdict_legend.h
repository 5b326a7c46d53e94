#pragma once

#include "core/launch/preflight_report.h"
#include "core/model/cluster.h"

#include <QFrame>

class QLabel;
class QPushButton;

namespace hetplan::gui {

class ClusterScene;
class ClusterView;

// The canvas's legend while its links show a pre-flight's verdicts (docs/app-launch.md,
// "Pre-flight"): what each colour means, and Clear. It colours the scene's links from a report
// and takes the colours away on Clear or once the cluster changes for planning (moving a card
// or renaming the cluster keeps them: the links measured are the same; samePlanningCluster).
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

    ClusterScene *m_scene; // not owned
    Cluster m_checked;     // the cluster the shown verdicts were made for
    QLabel *m_text;
    QPushButton *m_clear;
};

} // namespace hetplan::gui
