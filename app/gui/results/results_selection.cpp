// ResultsPanel's selection links with the canvas: a plan stage's GPUs are highlighted on the
// cards, a selected machine highlights the stages holding its GPUs, a clicked problem selects
// its culprit. In a file of its own to keep results_panel.cpp to what the panel shows.
#include "canvas/cluster_scene.h"
#include "results/plan_view.h"
#include "results/results_panel.h"

namespace hetplan::gui {

void ResultsPanel::connectScene(ClusterScene *scene) const
{
    connect(this, &ResultsPanel::gpusSelected, scene, [scene](const QStringList &gpuNames) {
        std::vector<std::string> names;
        for (const QString &name : gpuNames)
            names.push_back(name.toStdString());
        scene->setHighlightedGpus(names);
    });
    connect(scene, &ClusterScene::selectionChangedIds, this, &ResultsPanel::highlightMachines);
    connect(this, &ResultsPanel::culpritSelected, scene, [scene](const QString &, ItemId id) {
        if (id != 0)
            scene->setSelectedIds({id});
    });
}

void ResultsPanel::highlightMachines(const std::vector<ItemId> &ids)
{
    QStringList gpus;
    for (ItemId id : ids)
        if (const Machine *machine = m_clusterModel->machine(id))
            for (int i = 0; i < machine->count; ++i)
                gpus << QStringLiteral("%1:%2").arg(QString::fromStdString(machine->name)).arg(i);
    m_docks.planView->highlightGpus(gpus);
}

void ResultsPanel::onStageSelected(const QStringList &gpuNames)
{
    QList<ItemId> machines;
    for (const QString &gpu : gpuNames) {
        const ItemId id
            = m_clusterModel->nodeByName(gpu.section(QLatin1Char(':'), 0, 0).toStdString());
        if (id != 0 && !machines.contains(id))
            machines << id;
    }
    Q_EMIT gpusSelected(gpuNames, machines);
}

void ResultsPanel::highlightGpus(const QStringList &gpuNames) const
{
    m_docks.planView->highlightGpus(gpuNames);
}

void ResultsPanel::onCulprit(const ResultIssue &issue)
{
    ItemId id = 0;
    switch (issue.culprit) {
    case ResultIssue::Culprit::Machine:
    case ResultIssue::Culprit::Switch:
        id = m_clusterModel->nodeByName(issue.culpritName.toStdString());
        break;
    case ResultIssue::Culprit::Link: {
        const std::vector<ItemId> links = m_clusterModel->linkIds();
        if (issue.index >= 0 && issue.index < int(links.size()))
            id = links[size_t(issue.index)];
        break;
    }
    case ResultIssue::Culprit::None:
        return;
    }
    Q_EMIT culpritSelected(issue.culpritName, id);
}

} // namespace hetplan::gui
