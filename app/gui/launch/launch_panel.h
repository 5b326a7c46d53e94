#pragma once

#include "launch/launch_log.h"
#include "runtime/launcher/launch_job.h"

#include <QElapsedTimer>
#include <QStringList>
#include <QWidget>

#include <map>
#include <vector>

class QCheckBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QTabWidget;
class QTimer;

namespace hetplan::gui {

// The Launch dock: the job's status with its elapsed time, one log pane per rank (or per host),
// a filter over the lines, Cancel, and the run options of the next launch (as `hetplan-cli run`
// takes them). Each pane shows at most LaunchLog::kMaxLinesPerPane lines.
class LaunchPanel : public QWidget
{
    Q_OBJECT

public:
    explicit LaunchPanel(QWidget *parent = nullptr);

    // A new job: empties the panes, makes one for each of `ranks` (and each of their hosts)
    // and starts the clock.
    void startJob(const QString &description, const std::vector<LaunchLog::RankPlace> &ranks);
    void setPhase(JobPhase phase);
    // The job ended; a non-empty `error` is shown under the status. The Job pane says how it
    // ended, after how long, and after Cancel how long stopping took.
    void endJob(JobPhase phase, const QString &error);
    // Output and messages; a phase becomes a line of the Job pane naming the hosts it involves.
    void addEvents(const std::vector<LaunchEvent> &events);
    // A line of the Job pane, stamped with the job's elapsed time.
    void addJobLine(const QString &text);

    int scale() const;
    int iterations() const;
    // Shows the serving options instead of Iterations for a serving plan (docs/app-launch.md,
    // "Serving runs"), the rate starting at the workload's `requestRatePerS`.
    void setServingPlan(bool serving, double requestRatePerS = 0);
    bool isServingPlan() const;
    // The serving options, as `hetplan-cli launch` takes --requests, --rate and --seed.
    LaunchServing serving() const;
    int seed() const;
    // Whether Launch checks the plan's links first (docs/app-launch.md, "Pre-flight"); kept in
    // the settings.
    bool preflightFirst() const;

    static QString phaseName(JobPhase phase);

    // For tests and the window.
    QLabel *statusLabel() const { return m_status; }
    QLabel *errorLabel() const { return m_error; }
    QPushButton *cancelButton() const { return m_cancel; }
    QCheckBox *byHostBox() const { return m_byHost; }
    QCheckBox *preflightBox() const { return m_preflightFirst; }
    QLineEdit *filterEdit() const { return m_filter; }
    QTabWidget *panes() const { return m_tabs; }
    // The pane named `name` ("job", "rank 0", a host); null when there is none.
    QPlainTextEdit *pane(const QString &name) const;

Q_SIGNALS:
    void cancelRequested();

private:
    void requestCancel();
    QString phaseLine(JobPhase phase) const;
    // "user@a:22 (ranks 0–3, 6), user@b:22 (rank 4)"
    QString hostsWithRanks() const;
    LaunchLog::Grouping grouping() const;
    QPlainTextEdit *paneFor(const QString &name);
    bool matches(const QString &line) const;
    void clearPanes();
    QString stamped(const QString &text) const;
    void appendLines(const std::vector<LaunchLog::Line> &lines);
    // Rebuilds every pane from the log (grouping or filter changed).
    void rebuild();
    void updateStatus();

    LaunchLog m_log;
    QLabel *m_status;
    QLabel *m_error;
    QPushButton *m_cancel;
    QCheckBox *m_byHost;
    QLineEdit *m_filter;
    QSpinBox *m_scale;
    QSpinBox *m_iterations;
    QWidget *m_trainOptions;
    QWidget *m_serveOptions;
    QSpinBox *m_requests;
    QDoubleSpinBox *m_rate;
    QSpinBox *m_seed;
    QCheckBox *m_preflightFirst;
    QTabWidget *m_tabs;
    std::map<QString, QPlainTextEdit *> m_panes;
    LaunchLog::Grouping m_paneGrouping = LaunchLog::Grouping::Rank;
    QTimer *m_clock;
    QElapsedTimer m_elapsed;
    QString m_description;
    JobPhase m_phase = JobPhase::Done;
    bool m_running = false;
    qint64 m_endedMs = -1;
    qint64 m_cancelledAtMs = -1; // when Cancel was pressed; -1: not cancelling
    std::vector<LaunchLog::RankPlace> m_ranks;
    QStringList m_hosts; // the job's hosts, in order of their first rank
};

} // namespace hetplan::gui
