#pragma once

#include "core/launch/preflight_report.h"
#include "core/model/cluster.h"

#include <QDialog>

class QLabel;
class QPushButton;
class QTableWidget;

namespace hetplan::gui {

// What a pre-flight found, before Launch (docs/app-launch.md, "Pre-flight"): one row per check
// with its group, members, transport, message size, achieved and assumed figures and verdict,
// and the person's choice: Launch anyway (asking again when a check hung or failed), Fold into
// cluster and re-plan (when a pair between machines was measured), or Cancel.
class PreflightDialog : public QDialog
{
    Q_OBJECT

public:
    enum Column {
        Group,
        Members,
        Transport,
        Message,
        Achieved,
        Latency,
        Assumed,
        AssumedLatency,
        Verdict,
        ColumnCount // sentinel
    };
    enum class Choice { Cancel, Launch, Fold };

    // `cluster` names the links each check crossed; `foldablePairs` is how many pairs Fold
    // would write (foldPreflight); none disables it.
    PreflightDialog(const PreflightReport &report, const Cluster &cluster, int foldablePairs,
                    QWidget *parent);

    Choice choice() const { return m_choice; }
    // Hung or failed checks, or a failed job: Launch asks again.
    int brokenChecks() const { return m_broken; }

    QTableWidget *table() const { return m_table; }
    QLabel *summaryLabel() const { return m_summary; }
    QPushButton *launchButton() const { return m_launch; }
    QPushButton *foldButton() const { return m_fold; }
    QPushButton *cancelButton() const { return m_cancel; }

    // "ok", "slow by 9.6×", "hung: B:0 (rank 1, 10.0.0.6) did not answer".
    static QString verdictText(const PreflightRow &row);

private:
    void fill(const PreflightReport &report, const Cluster &cluster);
    void confirmLaunch();

    QLabel *m_summary;
    QTableWidget *m_table;
    QPushButton *m_launch;
    QPushButton *m_fold;
    QPushButton *m_cancel;
    Choice m_choice = Choice::Cancel;
    int m_broken = 0;
};

} // namespace hetplan::gui
