#pragma once

#include "model/cluster_model.h"

#include <QWidget>

#include <vector>

class QLabel;
class QLineEdit;
class QStackedWidget;

namespace hetplan::gui {

class FieldRow;
class LinkEditor;
class MachineEditor;
class SwitchEditor;

// Shows and edits what is selected on the canvas: one machine, switch or link gets its
// editor; several items a summary; nothing the cluster's name and totals. Every edit goes
// through the model as an undo step, and a refused value is shown with the model's reason.
class Inspector : public QWidget
{
    Q_OBJECT

public:
    Inspector(ClusterModel *model, QWidget *parent);

    const std::vector<ItemId> &selection() const { return m_selection; }

public Q_SLOTS:
    void setSelection(std::vector<hetplan::gui::ItemId> ids);

private:
    void showCurrent();
    void refreshSummary();
    void refreshPage();
    void onItemRemoved(ItemId id);

    ClusterModel *m_model; // not owned
    std::vector<ItemId> m_selection;

    QLabel *m_title;
    QStackedWidget *m_pages;
    QWidget *m_clusterPage;
    QLineEdit *m_clusterName;
    FieldRow *m_clusterNameRow;
    QLabel *m_summary;
    MachineEditor *m_machineEditor;
    SwitchEditor *m_switchEditor;
    LinkEditor *m_linkEditor;
};

} // namespace hetplan::gui
