#pragma once

#include "core/base/result.h"
#include "core/model/cluster.h"

#include <QListWidget>

#include <vector>

namespace hetplan::gui {

// One thing that stops planning, with the part of the cluster it is about.
struct ResultIssue
{
    enum class Culprit { None, Machine, Switch, Link };
    QString message;
    Culprit culprit = Culprit::None;
    int index = -1;           // into Cluster::machines / switches / links
    QString culpritName;      // machine or switch name; "A – B" for a link
    QStringList details = {}; // shown in the tooltip: for a no-fit, every GPU over capacity
};

// What is wrong with a cluster before any planner runs: what Topology::build refuses (it
// names the field, e.g. "machines[2].gpu"), and machines no network path reaches.
std::vector<ResultIssue> clusterIssues(const Cluster &cluster);
// A failure, shown as `message` (default: the error's own): a no-fit (Error::noFit) points at
// the machine of the GPU it overflows most; an error naming a field ("machines[2].gpu: …") at
// that item.
ResultIssue failureIssue(const Cluster &cluster, const Error &error, QString message = {});

// The list of issues; clicking one announces its culprit so the designer can select it.
class ProblemsView : public QListWidget
{
    Q_OBJECT

public:
    explicit ProblemsView(QWidget *parent = nullptr);

    void setIssues(const std::vector<ResultIssue> &issues);
    const std::vector<ResultIssue> &issues() const { return m_issues; }

Q_SIGNALS:
    void culpritSelected(const hetplan::gui::ResultIssue &issue);

private:
    std::vector<ResultIssue> m_issues;
};

} // namespace hetplan::gui
