#include "launch/hosts_dialog.h"

#include "core/io/files.h"
#include "launch/hosts_mapping.h"
#include "launch/hosts_table_edits.h"

#include <QDialogButtonBox>
#include <QFile>
#include <QFileDialog>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpressionValidator>
#include <QStyledItemDelegate>
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

// The Port editor takes digits only; the range is checked with the other rules.
class PortDelegate : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    QWidget *createEditor(QWidget *parent, const QStyleOptionViewItem &option,
                          const QModelIndex &index) const override
    {
        QWidget *editor = QStyledItemDelegate::createEditor(parent, option, index);
        if (auto *line = qobject_cast<QLineEdit *>(editor))
            line->setValidator(new QRegularExpressionValidator(
                QRegularExpression(QStringLiteral("[0-9]{0,5}")), line));
        return editor;
    }
};

} // namespace

HostsDialog::HostsDialog(const Cluster &cluster, const HostsFile &saved, QWidget *parent)
    : QDialog(parent)
    , m_cluster(cluster)
    , m_table(new QTableWidget(int(cluster.machines.size()), ColumnCount, this))
    , m_error(new QLabel(this))
    , m_edits(new HostsTableEdits(m_table, Host))
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
    m_table->setItemDelegateForColumn(Port, new PortDelegate(m_table));
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

    setRows(hostsForCluster(cluster, saved), false);
    for (int row = 0; row < m_table->rowCount(); ++row)
        if (QTableWidgetItem *machine = m_table->item(row, Machine))
            machine->setFlags(machine->flags() & ~Qt::ItemIsEditable);
    sizeColumns();
    resize(980, 360);
    // Once a problem shows, every edit checks again, so a fixed row does not stay reported.
    connect(m_edits, &HostsTableEdits::edited, this, [this] {
        if (m_error->isHidden())
            return;
        if (const std::optional<Problem> problem = check())
            showError(problem->message);
        else
            m_error->hide();
    });
}

void HostsDialog::sizeColumns()
{
    m_table->resizeColumnsToContents();
    // Every header whole, and room for a typical value in the columns that start empty.
    QHeaderView *header = m_table->horizontalHeader();
    const QFontMetrics metrics = m_table->fontMetrics();
    const auto room
        = [&](const char *sample) { return metrics.horizontalAdvance(QLatin1String(sample)) + 16; };
    const int samples[ColumnCount] = {0,
                                      room("gpu-node-17.example.org"),
                                      room("65535"),
                                      room("trainer"),
                                      room("~/.ssh/id_ed25519"),
                                      room("/scratch/hetplan"),
                                      0};
    for (int column = 0; column < ColumnCount; ++column)
        m_table->setColumnWidth(column,
                                std::max({m_table->columnWidth(column),
                                          header->sectionSizeHint(column), samples[column]}));
}

void HostsDialog::setRows(const HostsFile &hosts, bool undoable)
{
    std::vector<HostsTableEdits::Cell> cells;
    for (int row = 0; row < m_table->rowCount(); ++row) {
        const std::string &machine = m_cluster.machines[std::size_t(row)].name;
        const HostEntry *e = hosts.find(machine);
        if (!e)
            continue;
        const QString values[ColumnCount]
            = {text(machine),     text(e->host),    QString::number(e->port), text(e->user),
               text(e->identity), text(e->workdir), text(e->worker)};
        for (int column = 0; column < ColumnCount; ++column)
            cells.push_back({row, column, values[column]});
    }
    if (undoable)
        m_edits->set(cells, tr("Import Hosts"));
    else
        m_edits->reset(cells);
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
        e.port = ok ? port : 0; // check() refuses a port that is no number first
        e.user = cell(row, User);
        e.identity = cell(row, Identity);
        e.workdir = cell(row, Workdir);
        e.worker = cell(row, Worker);
        hosts.hosts.push_back(std::move(e));
    }
    return hosts;
}

std::optional<HostsDialog::Problem> HostsDialog::check() const
{
    // A port that is no number cannot reach the hosts file's own rules, which see numbers.
    for (int row = 0; row < m_table->rowCount(); ++row) {
        const QTableWidgetItem *item = m_table->item(row, Port);
        const QString port = item ? item->text().trimmed() : QString();
        bool number = false;
        (void)port.toInt(&number);
        if (!number)
            return Problem{tr("machine %1: port: \"%2\" is not a number; valid: 1–65535")
                               .arg(text(m_cluster.machines[std::size_t(row)].name), port),
                           row, Port};
    }
    const HostsFile current = hosts();
    const Status s = checkHostsForCluster(current, m_cluster);
    if (s)
        return std::nullopt;
    Problem problem{QString::fromStdString(s.error().message)};
    // The cell the message names: "machine B: workdir: …".
    for (int row = 0; row < m_table->rowCount(); ++row) {
        std::string prefix = "machine ";
        prefix += current.hosts[std::size_t(row)].machine;
        prefix += ": ";
        if (s.error().message.rfind(prefix, 0) != 0)
            continue;
        problem.row = row;
        for (int column = Host; column < ColumnCount; ++column)
            if (s.error().message.compare(prefix.size(), std::strlen(kFieldNames[column]),
                                          kFieldNames[column])
                == 0)
                problem.column = column;
        break;
    }
    return problem;
}

bool HostsDialog::validate()
{
    const std::optional<Problem> problem = check();
    if (!problem) {
        m_error->hide();
        return true;
    }
    showError(problem->message);
    if (problem->row >= 0 && problem->column >= 0)
        m_table->setCurrentCell(problem->row, problem->column);
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
    m_error->hide();
    setRows(*read, true);
    if (const std::string missing = unmappedMachines(*read, m_cluster); !missing.empty())
        showError(tr("%1 has no host for machine %2; those rows are unchanged.")
                      .arg(path, QString::fromStdString(missing)));
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
