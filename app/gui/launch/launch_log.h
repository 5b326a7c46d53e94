#pragma once

#include "runtime/launcher/launch_job.h"
#include "runtime/launcher/launch_lines.h"

#include <QCoreApplication>
#include <QString>
#include <QStringList>

#include <deque>
#include <map>
#include <vector>

namespace hetplan::gui {

// The lines a launch printed, kept twice: per rank and per host (each line then prefixed with
// its rank), so the Launch panel can switch between the two views without losing order. Output
// arrives in pieces; a line is kept once its newline has come (runtime's LaunchLines). Memory is
// bounded: each pane keeps its last kMaxLinesPerPane lines. Messages of the job itself go to the
// pane "job". The ranks a job will start have their panes before they print (setRanks).
class LaunchLog
{
    Q_DECLARE_TR_FUNCTIONS(hetplan::gui::LaunchLog)

public:
    static constexpr int kMaxLinesPerPane = 5000;
    enum class Grouping { Rank, Host };

    // A complete line, and the panes of both groupings it went to.
    struct Line
    {
        QString rankPane;
        QString hostPane;
        QString rankText; // as the rank printed it
        QString hostText; // "[rank 3] …"
    };

    // Where a rank runs (core/plan/rank_layout.h for a job, one rank per host for a probe).
    struct RankPlace
    {
        int rank = 0;
        QString machine; // the machine's name in the cluster
        QString host;    // "user@host:port", as the launcher's events name it
    };

    void clear();
    // The ranks of the job: a pane for each rank and each host, empty until they print.
    void setRanks(const std::vector<RankPlace> &ranks);
    // The complete lines `event` finished, in order.
    std::vector<Line> add(const LaunchEvent &event);
    // A line of the job's own (its phases, its messages), as given.
    Line addJobLine(const QString &text);

    // The panes of a grouping, in order: "job" first, then ranks by number or hosts by name.
    QStringList panes(Grouping grouping) const;
    const std::deque<QString> &lines(Grouping grouping, const QString &pane) const;
    // A pane's tab title and tooltip: "rank 3 · B" (machine B), or the host; the tooltip says
    // where the rank runs or which machines and ranks share the host.
    QString title(Grouping grouping, const QString &pane) const;
    QString toolTip(Grouping grouping, const QString &pane) const;

    static QString jobPane() { return QStringLiteral("job"); }
    static QString rankPane(int rank) { return QStringLiteral("rank %1").arg(rank); }

private:
    static void append(std::deque<QString> &lines, const QString &line);

    LaunchLines m_lines; // output after each (rank, stream)'s last newline
    std::map<int, QString> m_rankHost;
    std::map<int, QString> m_rankMachine;
    std::map<QString, std::deque<QString>> m_byRank; // pane name → lines
    std::map<QString, std::deque<QString>> m_byHost;
    std::vector<int> m_ranks;
};

} // namespace hetplan::gui
