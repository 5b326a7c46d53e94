#include "launch/launch_log.h"

#include <algorithm>

namespace hetplan::gui {

void LaunchLog::clear()
{
    *this = LaunchLog();
}

void LaunchLog::append(std::deque<QString> &lines, const QString &line)
{
    lines.push_back(line);
    if (lines.size() > std::size_t(kMaxLinesPerPane))
        lines.pop_front();
}

std::vector<LaunchLog::Line> LaunchLog::add(const LaunchEvent &event)
{
    std::vector<Line> done;
    const QString host = QString::fromStdString(event.host);
    if (event.kind != LaunchEvent::Kind::Output || event.rank < 0) {
        const QString text = QString::fromStdString(event.text).trimmed();
        Line line{jobPane(), jobPane(), text, text};
        append(m_byRank[jobPane()], text);
        append(m_byHost[jobPane()], text);
        done.push_back(std::move(line));
        return done;
    }
    if (!m_rankHost.contains(event.rank)) {
        m_rankHost[event.rank] = host;
        m_ranks.insert(std::upper_bound(m_ranks.begin(), m_ranks.end(), event.rank), event.rank);
    }
    for (const LaunchLines::Line &piece : m_lines.add(event)) {
        const QString text = QString::fromStdString(piece.text);
        Line line{rankPane(event.rank), host.isEmpty() ? jobPane() : host, text,
                  QStringLiteral("[rank %1] %2").arg(event.rank).arg(text)};
        append(m_byRank[line.rankPane], line.rankText);
        append(m_byHost[line.hostPane], line.hostText);
        done.push_back(std::move(line));
    }
    return done;
}

QStringList LaunchLog::panes(Grouping grouping) const
{
    QStringList names{jobPane()};
    if (grouping == Grouping::Rank) {
        for (int rank : m_ranks)
            names.push_back(rankPane(rank));
    } else {
        for (const auto &[pane, lines] : m_byHost)
            if (pane != jobPane())
                names.push_back(pane);
    }
    return names;
}

const std::deque<QString> &LaunchLog::lines(Grouping grouping, const QString &pane) const
{
    static const std::deque<QString> kNone;
    const auto &panes = grouping == Grouping::Rank ? m_byRank : m_byHost;
    const auto it = panes.find(pane);
    return it == panes.end() ? kNone : it->second;
}

} // namespace hetplan::gui
