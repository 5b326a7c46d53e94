#pragma once

#include "model/cluster_model.h"

#include <QWidget>

#include <functional>
#include <vector>

class QComboBox;
class QGroupBox;
class QLabel;
class QLineEdit;

namespace hetplan::gui {

class FieldRow;

// Edits one machine: name, GPU type (catalog or the cluster's custom types, whose specs are
// edited here too), GPU count, intra-machine link, NIC and SSH host. Each field commits on
// Enter or focus loss as one undo step; a value the model refuses stays in the field with
// the model's reason under it.
class MachineEditor : public QWidget
{
    Q_OBJECT

public:
    MachineEditor(ClusterModel *model, QWidget *parent);

    ItemId machineId() const { return m_id; }
    // Shows a machine's values and clears any refusal hints.
    void setMachine(ItemId id);
    // Reloads the values from the model, keeping fields whose refused value is shown.
    void refresh();

private:
    FieldRow *addRow(const QString &label, QWidget *editor);
    void commit(FieldRow *row, const std::function<Status(Machine &)> &edit);
    void commitNumber(FieldRow *row, const std::function<void(Machine &, double)> &set);
    void commitGpuSpec(FieldRow *row, const std::function<void(GpuType &, double)> &set);
    void chooseGpuType(int index);
    void createCustomType();
    void fillGpuTypes();
    // Marks the fields Cluster::origin lists as measured.
    void markMeasured(const Machine &m, const GpuType *custom);
    const GpuType *customType() const;

    ClusterModel *m_model; // not owned
    ItemId m_id = 0;
    bool m_loading = false;

    QLineEdit *m_name;
    QComboBox *m_gpu;
    QLineEdit *m_count;
    QLabel *m_gpuInfo;
    QGroupBox *m_customBox;
    QLineEdit *m_tflops;
    QLineEdit *m_memoryGiB;
    QLineEdit *m_memoryBandwidthGBps;
    QComboBox *m_intraKind;
    QLineEdit *m_intraBandwidthGBps;
    QLineEdit *m_intraLatencyUs;
    QComboBox *m_nic;
    QLineEdit *m_host;
    std::vector<FieldRow *> m_rows;
};

} // namespace hetplan::gui
