#include "results/problems_view.h"

#include "core/base/no_fit.h"
#include "core/io/catalog_json.h"
#include "core/model/topology.h"

#include <QRegularExpression>
#include <QStyle>

namespace hetplan::gui {

namespace {

// "machines[2].gpu: …" -> the machine at index 2.
ResultIssue issueFromField(const Cluster &cluster, const QString &message)
{
    ResultIssue issue{message, ResultIssue::Culprit::None, -1, {}, {}};
    static const QRegularExpression field(QStringLiteral("^(machines|switches|links)\\[(\\d+)\\]"));
    const QRegularExpressionMatch match = field.match(message);
    if (!match.hasMatch())
        return issue;
    const int index = match.captured(2).toInt();
    const QString list = match.captured(1);
    if (list == QLatin1String("machines") && index < int(cluster.machines.size())) {
        issue.culprit = ResultIssue::Culprit::Machine;
        issue.culpritName = QString::fromStdString(cluster.machines[size_t(index)].name);
    } else if (list == QLatin1String("switches") && index < int(cluster.switches.size())) {
        issue.culprit = ResultIssue::Culprit::Switch;
        issue.culpritName = QString::fromStdString(cluster.switches[size_t(index)].name);
    } else if (list == QLatin1String("links") && index < int(cluster.links.size())) {
        const Link &l = cluster.links[size_t(index)];
        issue.culprit = ResultIssue::Culprit::Link;
        issue.culpritName = QStringLiteral("%1 – %2").arg(QString::fromStdString(l.a),
                                                          QString::fromStdString(l.b));
    } else {
        return issue;
    }
    issue.index = index;
    return issue;
}

} // namespace

std::vector<ResultIssue> clusterIssues(const Cluster &cluster)
{
    auto topology = Topology::build(cluster, builtinGpuCatalog());
    if (!topology)
        return {issueFromField(cluster, QString::fromStdString(topology.error().message))};
    std::vector<ResultIssue> issues;
    const int machines = int(cluster.machines.size());
    for (int m = 0; machines > 1 && m < machines; ++m) {
        bool reached = false;
        for (int other = 0; other < machines && !reached; ++other)
            reached = other != m && topology->machineBandwidthGBps(m, other) > 0;
        if (reached)
            continue;
        const QString name = QString::fromStdString(cluster.machines[size_t(m)].name);
        issues.push_back(
            {ProblemsView::tr("Machine %1 has no network path to any other machine: no plan "
                              "can use its GPUs together with the others. Connect it.")
                 .arg(name),
             ResultIssue::Culprit::Machine,
             m,
             name,
             {}});
    }
    return issues;
}

ResultIssue failureIssue(const Cluster &cluster, const Error &error, QString message)
{
    if (message.isEmpty())
        message = QString::fromStdString(error.message);
    if (!error.noFit || error.noFit->over.empty())
        return issueFromField(cluster, message);
    ResultIssue issue{message, ResultIssue::Culprit::None, -1, {}, {}};
    for (const std::string &line : noFitLines(*error.noFit))
        issue.details << QString::fromStdString(line);
    const std::string &machine = error.noFit->over.front().machine;
    for (size_t m = 0; m < cluster.machines.size(); ++m)
        if (cluster.machines[m].name == machine) {
            issue.culprit = ResultIssue::Culprit::Machine;
            issue.index = int(m);
            issue.culpritName = QString::fromStdString(machine);
        }
    return issue;
}

ProblemsView::ProblemsView(QWidget *parent)
    : QListWidget(parent)
{
    setWordWrap(true);
    setAlternatingRowColors(true);
    setUniformItemSizes(false);
    connect(this, &QListWidget::currentRowChanged, this, [this](int row) {
        if (row >= 0 && row < int(m_issues.size())
            && m_issues[size_t(row)].culprit != ResultIssue::Culprit::None)
            Q_EMIT culpritSelected(m_issues[size_t(row)]);
    });
}

void ProblemsView::setIssues(const std::vector<ResultIssue> &issues)
{
    const QSignalBlocker block(this);
    clear();
    m_issues = issues;
    for (const ResultIssue &issue : issues) {
        auto *item = new QListWidgetItem(issue.message, this);
        item->setIcon(style()->standardIcon(QStyle::SP_MessageBoxWarning));
        QStringList tip = issue.details;
        if (issue.culprit != ResultIssue::Culprit::None)
            tip << tr("Click to select %1 in the cluster").arg(issue.culpritName);
        item->setToolTip(tip.join(QLatin1Char('\n')));
    }
}

} // namespace hetplan::gui
