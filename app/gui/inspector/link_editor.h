#pragma once

#include "model/cluster_model.h"

#include <QWidget>

#include <functional>

class QComboBox;
class QLabel;
class QLineEdit;

namespace hetplan::gui {

class FieldRow;

// Edits one network link: kind, bandwidth and latency; its ends are shown, not edited.
class LinkEditor : public QWidget
{
    Q_OBJECT

public:
    LinkEditor(ClusterModel *model, QWidget *parent);

    void setLink(ItemId id);
    void refresh();

private:
    void commit(FieldRow *row, const std::function<Status(Link &)> &edit);
    void commitNumber(FieldRow *row, const std::function<void(Link &, double)> &set);

    ClusterModel *m_model; // not owned
    ItemId m_id = 0;
    bool m_loading = false;
    QLabel *m_ends;
    QComboBox *m_kind;
    QLineEdit *m_bandwidthGBps;
    QLineEdit *m_latencyUs;
    std::vector<FieldRow *> m_rows;
};

// Edits a switch's name.
class SwitchEditor : public QWidget
{
    Q_OBJECT

public:
    SwitchEditor(ClusterModel *model, QWidget *parent);

    void setSwitch(ItemId id);
    void refresh();

private:
    ClusterModel *m_model; // not owned
    ItemId m_id = 0;
    QLineEdit *m_name;
    FieldRow *m_nameRow;
    QLabel *m_links;
};

} // namespace hetplan::gui
