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

void LaunchLog::setRanks(const std::vector<RankPlace> &ranks)
{
    for (const RankPlace &place : ranks) {
        if (!m_rankHost.contains(place.rank))
            m_ranks.insert(std::upper_bound(m_ranks.begin(), m_ranks.end(), place.rank),
                           place.rank);
        m_rankHost[place.rank] = place.host;
        m_rankMachine[place.rank] = place.machine;
        m_byRank[rankPane(place.rank)];
        if (!place.host.isEmpty())
            m_byHost[place.host];
    }
}

LaunchLog::Line LaunchLog::addJobLine(const QString &text)
{
    append(m_byRank[jobPane()], text);
    append(m_byHost[jobPane()], text);
    return {jobPane(), jobPane(), text, text};
}

std::vector<LaunchLog::Line> LaunchLog::add(const LaunchEvent &event)
{
    if (event.kind != LaunchEvent::Kind::Output || event.rank < 0)
        return {addJobLine(QString::fromStdString(event.text).trimmed())};
    std::vector<Line> done;
    if (!m_rankHost.contains(event.rank)) {
        m_rankHost[event.rank] = QString::fromStdString(event.host);
        m_ranks.insert(std::upper_bound(m_ranks.begin(), m_ranks.end(), event.rank), event.rank);
    }
    // The host the rank was placed on names its pane, so a pane made before the rank printed
    // is the one its lines go to.
    const QString &host = m_rankHost[event.rank];
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

QString LaunchLog::title(Grouping grouping, const QString &pane) const
{
    if (pane == jobPane())
        return tr("Job");
    if (grouping == Grouping::Host)
        return pane;
    for (const auto &[rank, machine] : m_rankMachine)
        if (rankPane(rank) == pane && !machine.isEmpty())
            return tr("rank %1 · %2").arg(rank).arg(machine);
    return pane;
}

QString LaunchLog::toolTip(Grouping grouping, const QString &pane) const
{
    if (pane == jobPane())
        return tr("What the job does: its phases and messages");
    if (grouping == Grouping::Rank) {
        for (const auto &[rank, host] : m_rankHost)
            if (rankPane(rank) == pane) {
                const auto machine = m_rankMachine.find(rank);
                return tr("Rank %1 on machine %2, host %3")
                    .arg(rank)
                    .arg(machine == m_rankMachine.end() ? QString() : machine->second, host);
            }
        return {};
    }
    QStringList machines;
    QStringList ranks;
    for (const auto &[rank, host] : m_rankHost) {
        if (host != pane)
            continue;
        ranks.push_back(QString::number(rank));
        const auto machine = m_rankMachine.find(rank);
        if (machine != m_rankMachine.end() && !machines.contains(machine->second))
            machines.push_back(machine->second);
    }
    return tr("Machines %1; ranks %2")
        .arg(machines.join(QStringLiteral(", ")), ranks.join(QStringLiteral(", ")));
}

const std::deque<QString> &LaunchLog::lines(Grouping grouping, const QString &pane) const
{
    static const std::deque<QString> kNone;
    const auto &panes = grouping == Grouping::Rank ? m_byRank : m_byHost;
    const auto it = panes.find(pane);
    return it == panes.end() ? kNone : it->second;
}

} // namespace hetplan::gui
