#include "inspector/inspector.h"

#include "inspector/inspector_field.h"
#include "inspector/link_editor.h"
#include "inspector/machine_editor.h"

#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QStackedWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace hetplan::gui {

Inspector::Inspector(ClusterModel *model, QWidget *parent)
    : QWidget(parent)
    , m_model(model)
    , m_title(new QLabel(this))
    , m_pages(new QStackedWidget)
{
    Q_ASSERT(model);
    auto *layout = new QVBoxLayout(this);
    QFont titleFont = m_title->font();
    titleFont.setBold(true);
    m_title->setFont(titleFont);
    m_title->setObjectName(QStringLiteral("inspectorTitle"));
    layout->addWidget(m_title);

    m_clusterPage = new QWidget;
    auto *clusterForm = new QFormLayout(m_clusterPage);
    clusterForm->setContentsMargins(0, 0, 0, 0);
    clusterForm->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    m_clusterName = makeLineEdit(QStringLiteral("clusterName"), m_clusterPage);
    m_clusterNameRow = new FieldRow(m_clusterName, m_clusterPage);
    clusterForm->addRow(tr("Cluster name"), m_clusterNameRow);
    m_summary = new QLabel(m_clusterPage);
    m_summary->setObjectName(QStringLiteral("inspectorSummary"));
    m_summary->setWordWrap(true);
    clusterForm->addRow(m_summary);

    m_machineEditor = new MachineEditor(model, nullptr);
    m_switchEditor = new SwitchEditor(model, nullptr);
    m_linkEditor = new LinkEditor(model, nullptr);
    for (QWidget *page :
         {m_clusterPage, static_cast<QWidget *>(m_machineEditor),
          static_cast<QWidget *>(m_switchEditor), static_cast<QWidget *>(m_linkEditor)})
        m_pages->addWidget(page);

    auto *scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    // Fields take the dock's width; long hints wrap instead of widening the form.
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    auto *content = new QWidget;
    auto *contentLayout = new QVBoxLayout(content);
    contentLayout->setContentsMargins(0, 0, 0, 0);
    contentLayout->addWidget(m_pages);
    contentLayout->addStretch(1);
    scroll->setWidget(content);
    layout->addWidget(scroll, 1);

    connect(m_clusterName, &QLineEdit::editingFinished, this, [this] {
        const std::string name = m_clusterName->text().trimmed().toStdString();
        if (name == m_model->cluster().name)
            return;
        m_clusterNameRow->report(
            m_model->setNameAndDescription(name, m_model->cluster().description));
    });
    connect(model, &ClusterModel::itemRemoved, this, &Inspector::onItemRemoved);
    connect(model, &ClusterModel::modelReset, this, [this] { setSelection({}); });
    // Any change may show here: a custom GPU type's specs, a renamed link end, a total.
    connect(model, &ClusterModel::clusterChanged, this, &Inspector::refreshPage);
    showCurrent();
}

void Inspector::setSelection(std::vector<ItemId> ids)
{
    std::erase_if(ids, [this](ItemId id) { return !m_model->kindOf(id); });
    m_selection = std::move(ids);
    showCurrent();
}

void Inspector::showCurrent()
{
    if (m_selection.size() == 1) {
        const ItemId id = m_selection.front();
        switch (*m_model->kindOf(id)) {
        case ItemKind::Machine:
            m_title->setText(tr("Machine"));
            m_machineEditor->setMachine(id);
            m_pages->setCurrentWidget(m_machineEditor);
            return;
        case ItemKind::Switch:
            m_title->setText(tr("Switch"));
            m_switchEditor->setSwitch(id);
            m_pages->setCurrentWidget(m_switchEditor);
            return;
        case ItemKind::Link:
            m_title->setText(tr("Link"));
            m_linkEditor->setLink(id);
            m_pages->setCurrentWidget(m_linkEditor);
            return;
        }
    }
    m_title->setText(m_selection.empty() ? tr("Cluster") : tr("Selection"));
    m_clusterNameRow->clearError();
    m_pages->setCurrentWidget(m_clusterPage);
    refreshSummary();
}

// Totals of the selection, or of the whole cluster when nothing is selected.
void Inspector::refreshSummary()
{
    const bool whole = m_selection.empty();
    m_clusterName->parentWidget()->setVisible(whole);
    if (whole && !m_clusterNameRow->hasError())
        m_clusterName->setText(QString::fromStdString(m_model->cluster().name));
    const std::vector<ItemId> ids = whole ? [this] {
        std::vector<ItemId> all = m_model->machineIds();
        for (const ItemId id : m_model->switchIds())
            all.push_back(id);
        for (const ItemId id : m_model->linkIds())
            all.push_back(id);
        return all;
    }()
                                          : m_selection;
    int machines = 0;
    int gpus = 0;
    int switches = 0;
    int links = 0;
    for (const ItemId id : ids) {
        if (const Machine *m = m_model->machine(id)) {
            ++machines;
            gpus += m->count;
        } else if (m_model->networkSwitch(id)) {
            ++switches;
        } else if (m_model->link(id)) {
            ++links;
        }
    }
    QStringList lines;
    lines << tr("%n machine(s)", nullptr, machines) << tr("%n GPU(s)", nullptr, gpus)
          << tr("%n switch(es)", nullptr, switches) << tr("%n link(s)", nullptr, links);
    m_summary->setText(lines.join(QLatin1Char('\n')));
}

void Inspector::refreshPage()
{
    if (m_pages->currentWidget() == m_clusterPage)
        refreshSummary();
    else if (m_pages->currentWidget() == m_machineEditor)
        m_machineEditor->refresh();
    else if (m_pages->currentWidget() == m_switchEditor)
        m_switchEditor->refresh();
    else if (m_pages->currentWidget() == m_linkEditor)
        m_linkEditor->refresh();
}

void Inspector::onItemRemoved(ItemId id)
{
    if (std::find(m_selection.begin(), m_selection.end(), id) == m_selection.end())
        return;
    std::vector<ItemId> rest = m_selection;
    std::erase(rest, id);
    setSelection(std::move(rest));
}

} // namespace hetplan::gui
