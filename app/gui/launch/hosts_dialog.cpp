#include "launch/hosts_dialog.h"

#include "core/io/files.h"
#include "launch/hosts_mapping.h"

#include <QDialogButtonBox>
#include <QFile>
#include <QFileDialog>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cstring>
#include <utility>

namespace hetplan::gui {

namespace {

const char *const kFieldNames[HostsDialog::ColumnCount]
    = {"machine", "host", "port", "user", "identity", "workdir", "worker"};

QString text(const std::string &s)
{
    return QString::fromStdString(s);
}

std::string local(const QString &path)
{
    return QFile::encodeName(path).toStdString();
}

} // namespace

HostsDialog::HostsDialog(const Cluster &cluster, const HostsFile &saved, QWidget *parent)
    : QDialog(parent)
    , m_cluster(cluster)
    , m_table(new QTableWidget(int(cluster.machines.size()), ColumnCount, this))
    , m_error(new QLabel(this))
{
    setWindowTitle(tr("Hosts"));
    setObjectName(QStringLiteral("hostsDialog"));
    auto *layout = new QVBoxLayout(this);
    auto *intro = new QLabel(
        tr("Where each machine runs when launching. Several machines may share a host. "
           "Leave Identity empty to use the SSH agent; passwords are never used."),
        this);
    intro->setWordWrap(true);
    layout->addWidget(intro);

    m_table->setObjectName(QStringLiteral("hostsTable"));
    m_table->setHorizontalHeaderLabels({tr("Machine"), tr("Host"), tr("Port"), tr("User"),
                                        tr("Identity"), tr("Work folder"), tr("Worker")});
    m_table->horizontalHeaderItem(Identity)->setToolTip(
        tr("A private key file (~/ is your home folder); empty: the SSH agent"));
    m_table->horizontalHeaderItem(Workdir)->setToolTip(
        tr("On the host: where plans are uploaded and ranks run"));
    m_table->horizontalHeaderItem(Worker)->setToolTip(
        tr("On the host: the hetplan-worker executable to start"));
    m_table->verticalHeader()->hide();
    m_table->setWordWrap(false);
    m_table->setTextElideMode(Qt::ElideMiddle); // paths differ at their ends
    m_table->horizontalHeader()->setStretchLastSection(true);
    layout->addWidget(m_table, 1);

    m_error->setObjectName(QStringLiteral("hostsError"));
    m_error->setWordWrap(true);
    m_error->setStyleSheet(QStringLiteral("color: #b3261e"));
    m_error->hide();
    layout->addWidget(m_error);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    QPushButton *importButton = buttons->addButton(tr("&Import…"), QDialogButtonBox::ActionRole);
    QPushButton *exportButton = buttons->addButton(tr("&Export…"), QDialogButtonBox::ActionRole);
    importButton->setObjectName(QStringLiteral("importHosts"));
    exportButton->setObjectName(QStringLiteral("exportHosts"));
    connect(buttons, &QDialogButtonBox::accepted, this, &HostsDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &HostsDialog::reject);
    connect(importButton, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Import Hosts"), QString(), tr("Hosts files (*.json);;All files (*)"));
        if (!path.isEmpty())
            importFile(path);
    });
    connect(exportButton, &QPushButton::clicked, this, [this] {
        const QString path
            = QFileDialog::getSaveFileName(this, tr("Export Hosts"), QStringLiteral("hosts.json"),
                                           tr("Hosts files (*.json);;All files (*)"));
        if (!path.isEmpty())
            exportFile(path);
    });
    layout->addWidget(buttons);

    setRows(hostsForCluster(cluster, saved));
    m_table->resizeColumnsToContents();
    // Room for a typical value in the columns that start empty.
    for (const auto &[column, sample] :
         {std::pair{Host, "gpu-node-17.example.org"}, std::pair{User, "trainer"},
          std::pair{Identity, "~/.ssh/id_ed25519"}, std::pair{Workdir, "/scratch/hetplan"}})
        m_table->setColumnWidth(
            column, std::max(m_table->columnWidth(column),
                             m_table->fontMetrics().horizontalAdvance(QLatin1String(sample)) + 16));
    resize(980, 360);
}

void HostsDialog::setRows(const HostsFile &hosts)
{
    for (int row = 0; row < m_table->rowCount(); ++row) {
        const std::string &machine = m_cluster.machines[std::size_t(row)].name;
        const HostEntry *e = hosts.find(machine);
        if (!e)
            continue;
        const QString values[ColumnCount]
            = {text(machine),     text(e->host),    QString::number(e->port), text(e->user),
               text(e->identity), text(e->workdir), text(e->worker)};
        for (int column = 0; column < ColumnCount; ++column) {
            auto *item = new QTableWidgetItem(values[column]);
            if (column == Machine)
                item->setFlags(item->flags() & ~Qt::ItemIsEditable);
            m_table->setItem(row, column, item);
        }
    }
}

HostsFile HostsDialog::hosts() const
{
    HostsFile hosts;
    const auto cell = [this](int row, int column) {
        const QTableWidgetItem *item = m_table->item(row, column);
        return item ? item->text().trimmed().toStdString() : std::string();
    };
    for (int row = 0; row < m_table->rowCount(); ++row) {
        HostEntry e;
        e.machine = m_cluster.machines[std::size_t(row)].name;
        e.host = cell(row, Host);
        bool ok = false;
        const int port = QString::fromStdString(cell(row, Port)).toInt(&ok);
        e.port = ok ? port : 0; // 0 is refused by validate() with the valid range
        e.user = cell(row, User);
        e.identity = cell(row, Identity);
        e.workdir = cell(row, Workdir);
        e.worker = cell(row, Worker);
        hosts.hosts.push_back(std::move(e));
    }
    return hosts;
}

bool HostsDialog::validate()
{
    const HostsFile current = hosts();
    const Status s = checkHostsForCluster(current, m_cluster);
    if (s) {
        m_error->hide();
        return true;
    }
    showError(QString::fromStdString(s.error().message));
    // Select the cell the message names: "machine B: workdir: …".
    for (int row = 0; row < m_table->rowCount(); ++row) {
        const std::string prefix = "machine " + current.hosts[std::size_t(row)].machine + ": ";
        if (s.error().message.rfind(prefix, 0) != 0)
            continue;
        for (int column = Host; column < ColumnCount; ++column)
            if (s.error().message.compare(prefix.size(), std::strlen(kFieldNames[column]),
                                          kFieldNames[column])
                == 0)
                m_table->setCurrentCell(row, column);
        break;
    }
    return false;
}

void HostsDialog::showError(const QString &message)
{
    m_error->setText(message);
    m_error->show();
}

bool HostsDialog::importFile(const QString &path)
{
    auto content = readTextFile(local(path));
    auto read = content ? parseHosts(*content, local(path)) : Result<HostsFile>(content.error());
    if (!read) {
        showError(QString::fromStdString(read.error().message));
        return false;
    }
    if (const std::string missing = unmappedMachines(*read, m_cluster); !missing.empty())
        showError(tr("%1 has no host for machine %2; those rows are unchanged.")
                      .arg(path, QString::fromStdString(missing)));
    else
        m_error->hide();
    setRows(*read);
    return true;
}

bool HostsDialog::exportFile(const QString &path)
{
    if (!validate())
        return false;
    if (Status s = saveHosts(local(path), hosts()); !s) {
        showError(QString::fromStdString(s.error().message));
        return false;
    }
    return true;
}

void HostsDialog::accept()
{
    if (validate())
        QDialog::accept();
}

} // namespace hetplan::gui
