#pragma once

#include "core/io/hosts_json.h"
#include "core/model/cluster.h"

#include <QDialog>

#include <optional>

class QLabel;
class QTableWidget;

namespace hetplan::gui {

class HostsTableEdits;

// Tools › Hosts: where each machine of the cluster runs when launching, one row per machine
// (several machines may share a host). OK is refused, with the reason under the table and the
// cell selected, until every row is valid (launch/hosts_mapping.h); once a reason shows, every
// edit checks again. Edits undo and fill down (launch/hosts_table_edits.h). Import and Export
// read and write hetplan.hosts/1 files, the CLI's `--hosts`.
class HostsDialog : public QDialog
{
    Q_OBJECT

public:
    enum Column { Machine, Host, Port, User, Identity, Workdir, Worker, ColumnCount };

    HostsDialog(const Cluster &cluster, const HostsFile &saved, QWidget *parent = nullptr);

    // The table as it stands (valid once the dialog was accepted).
    HostsFile hosts() const;
    QTableWidget *table() const { return m_table; }
    QLabel *errorLabel() const { return m_error; }
    HostsTableEdits *edits() const { return m_edits; }

    // Checks the table; on a problem shows it, selects the cell and returns false.
    bool validate();
    // Reads `path` (hetplan.hosts/1) into the rows of the machines it names; false with the
    // reason shown when it cannot be read.
    bool importFile(const QString &path);
    bool exportFile(const QString &path);

    void accept() override;

private:
    // The problem of the table, and the cell it names (column -1: none).
    struct Problem
    {
        QString message;
        int row = -1;
        int column = -1;
    };
    std::optional<Problem> check() const;
    void setRows(const HostsFile &hosts, bool undoable);
    void showError(const QString &message);
    void sizeColumns();

    Cluster m_cluster;
    QTableWidget *m_table;
    QLabel *m_error;
    HostsTableEdits *m_edits;
};

} // namespace hetplan::gui
