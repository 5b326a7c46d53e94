// Tools › Hosts: each machine mapped to an SSH destination, saved in the project, checked with
// messages that name the machine and the field, imported and exported as hetplan.hosts/1.
#include "core/catalog/catalog.h"
#include "core/io/hosts_json.h"
#include "core/io/loaders.h"
#include "core/io/project_json.h"
#include "launch/hosts_dialog.h"
#include "launch/hosts_mapping.h"
#include "model/cluster_model.h"
#include "model/document.h"
#include "tests/test_registry.h"

#include <QAction>
#include <QDir>
#include <QFile>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace hetplan;
using namespace hetplan::gui;

namespace {

Cluster caseStudy()
{
    auto cluster = loadCluster("case-study");
    return cluster ? *cluster : Cluster{};
}

HostEntry entry(const std::string &machine, const std::string &host)
{
    HostEntry e;
    e.machine = machine;
    e.host = host;
    e.workdir = "/scratch/hetplan";
    return e;
}

void setCell(QTableWidget *table, int row, int column, const QString &text)
{
    QTableWidgetItem *item = table->item(row, column);
    QVERIFY(item);
    item->setText(text);
}

QString cell(const QTableWidget *table, int row, int column)
{
    const QTableWidgetItem *item = table->item(row, column);
    return item ? item->text() : QString();
}

// Every row of the case study's three machines on one valid host.
void fillValidRows(QTableWidget *table)
{
    for (int row = 0; row < table->rowCount(); ++row) {
        setCell(table, row, HostsDialog::Host, QStringLiteral("10.0.0.7"));
        setCell(table, row, HostsDialog::Workdir, QStringLiteral("/scratch/hetplan"));
    }
}

QAction *dialogAction(const HostsDialog &dialog, const char *name)
{
    return dialog.findChild<QAction *>(QString::fromLatin1(name));
}

} // namespace

class TestHostsMapping : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void projectKeepsHosts();
    void badHostsInProjectNameTheField();
    void canvasHostIsTheDefault();
    void checkNamesMachineAndField_data();
    void checkNamesMachineAndField();
    void dialogRefusesInvalidRows();
    void dialogExportsAndImports();
    void columnsShowHeadersAndValues();
    void portEditorTakesDigitsOnly();
    void portThatIsNoNumberSaysSo();
    void errorFollowsEdits();
    void fillDownCopiesTheTopCell();
    void editsUndoAndRedo();
    void identityMustBeAReadableFile_data();
    void identityMustBeAReadableFile();
    void rowsSharingAHostMustAgree();

private:
    QTemporaryDir m_dir;
};

void TestHostsMapping::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
    QVERIFY(!caseStudy().machines.empty());
}

void TestHostsMapping::projectKeepsHosts()
{
    Document document;
    QVERIFY(document.openExample(QStringLiteral("case-study")).ok());
    HostsFile hosts;
    hosts.hosts = {entry("A", "10.0.0.5"), entry("B", "10.0.0.5"), entry("C", "gpu-c")};
    hosts.hosts[0].port = 2222;
    hosts.hosts[0].user = "train";
    hosts.hosts[0].identity = "~/.ssh/id_ed25519";
    hosts.hosts[2].worker = "/opt/hetplan/bin/hetplan-worker";
    document.setHosts(hosts);
    QVERIFY(document.isModified());

    const QString path = m_dir.filePath(QStringLiteral("hosts.hetplan.json"));
    QVERIFY(document.save(path).ok());
    Document reopened;
    QVERIFY(reopened.open(path).ok());
    QCOMPARE(reopened.hosts().hosts, hosts.hosts);
    // A project without hosts writes none and reads back none.
    Document plain;
    QVERIFY(plain.openExample(QStringLiteral("case-study")).ok());
    QVERIFY(!QString::fromStdString(writeProject(plain.project())).contains(u"\"hosts\""));
}

void TestHostsMapping::badHostsInProjectNameTheField()
{
    Project p;
    p.cluster = caseStudy();
    p.hosts.hosts = {entry("A", "10.0.0.5")};
    std::string text = writeProject(p);
    const std::string port = "\"port\": 22";
    const std::size_t at = text.find(port);
    QVERIFY(at != std::string::npos);
    text.replace(at, port.size(), "\"port\": 70000");
    const auto read = parseProject(text, "p.hetplan.json");
    QVERIFY(!read);
    const QString message = QString::fromStdString(read.error().message);
    QVERIFY2(message.startsWith(u"p.hetplan.json: hosts: hosts[0].port"), qPrintable(message));
    QVERIFY2(message.contains(u"65535"), qPrintable(message));
}

void TestHostsMapping::canvasHostIsTheDefault()
{
    Cluster cluster = caseStudy();
    cluster.machines[0].host = "train@10.0.0.5";
    cluster.machines[1].host = "gpu-b";
    HostsFile saved;
    saved.hosts = {entry("C", "saved-c")};
    const HostsFile mapping = hostsForCluster(cluster, saved);
    QCOMPARE(mapping.hosts.size(), cluster.machines.size());
    QCOMPARE(mapping.hosts[0].machine, std::string("A"));
    QCOMPARE(mapping.hosts[0].user, std::string("train"));
    QCOMPARE(mapping.hosts[0].host, std::string("10.0.0.5"));
    QCOMPARE(mapping.hosts[0].port, kDefaultSshPort);
    QCOMPARE(mapping.hosts[1].host, std::string("gpu-b"));
    QCOMPARE(mapping.hosts[1].user, std::string());
    QCOMPARE(mapping.hosts[2], saved.hosts[0]);
}

void TestHostsMapping::checkNamesMachineAndField_data()
{
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("expected"); // start of the message

    QTest::newRow("no workdir") << "workdir"
                                << ""
                                << "machine B: workdir";
    QTest::newRow("host with a space") << "host"
                                       << "a b"
                                       << "machine B: host";
    QTest::newRow("host like an option") << "host"
                                         << "-oProxyCommand=x"
                                         << "machine B: host";
    QTest::newRow("user like an option") << "user"
                                         << "-l"
                                         << "machine B: user";
    QTest::newRow("port out of range") << "port"
                                       << "0"
                                       << "machine B: port";
    QTest::newRow("newline in worker") << "worker"
                                       << "a\nb"
                                       << "machine B: worker";
}

void TestHostsMapping::checkNamesMachineAndField()
{
    QFETCH(QString, field);
    QFETCH(QString, value);
    QFETCH(QString, expected);
    const Cluster cluster = caseStudy();
    HostsFile hosts;
    hosts.hosts = {entry("A", "h"), entry("B", "h"), entry("C", "h")};
    QVERIFY(checkHostsForCluster(hosts, cluster).ok()); // several machines on one host
    HostEntry &b = hosts.hosts[1];
    const std::string v = value.toStdString();
    if (field == u"workdir")
        b.workdir = v;
    else if (field == u"host")
        b.host = v;
    else if (field == u"user")
        b.user = v;
    else if (field == u"port")
        b.port = value.toInt();
    else
        b.worker = v;
    const Status s = checkHostsForCluster(hosts, cluster);
    QVERIFY(!s);
    QVERIFY2(QString::fromStdString(s.error().message).startsWith(expected),
             s.error().message.c_str());

    hosts.hosts.erase(hosts.hosts.begin() + 1);
    const Status missing = checkHostsForCluster(hosts, cluster);
    QVERIFY(!missing);
    QVERIFY2(missing.error().message.find("no host for machine B") != std::string::npos,
             missing.error().message.c_str());
}

void TestHostsMapping::dialogRefusesInvalidRows()
{
    const Cluster cluster = caseStudy();
    HostsDialog dialog(cluster, {});
    QTableWidget *table = dialog.table();
    QCOMPARE(table->rowCount(), 3);
    for (int row = 0; row < 3; ++row) {
        setCell(table, row, HostsDialog::Host, QStringLiteral("10.0.0.7"));
        setCell(table, row, HostsDialog::Workdir, QStringLiteral("/scratch/hetplan"));
    }
    setCell(table, 2, HostsDialog::Port, QStringLiteral("http"));
    dialog.accept();
    QCOMPARE(dialog.result(), int(QDialog::Rejected)); // still open
    QVERIFY(dialog.errorLabel()->isVisibleTo(&dialog));
    QVERIFY2(dialog.errorLabel()->text().startsWith(u"machine C: port"),
             qPrintable(dialog.errorLabel()->text()));
    QCOMPARE(table->currentRow(), 2);
    QCOMPARE(table->currentColumn(), int(HostsDialog::Port));

    setCell(table, 2, HostsDialog::Port, QStringLiteral("2201"));
    dialog.accept();
    QCOMPARE(dialog.result(), int(QDialog::Accepted));
    const HostsFile hosts = dialog.hosts();
    QCOMPARE(hosts.hosts.size(), std::size_t(3));
    QCOMPARE(hosts.hosts[2].port, 2201);
    QCOMPARE(hosts.hosts[1].host, std::string("10.0.0.7"));
    QCOMPARE(hosts.hosts[1].worker, std::string(kDefaultWorker));
}

void TestHostsMapping::dialogExportsAndImports()
{
    const Cluster cluster = caseStudy();
    HostsFile saved;
    saved.hosts = {entry("A", "a.example"), entry("B", "b.example"), entry("C", "c.example")};
    const QString key = m_dir.filePath(QStringLiteral("id_b"));
    QFile keyFile(key);
    QVERIFY(keyFile.open(QIODevice::WriteOnly));
    keyFile.close();
    saved.hosts[1].identity = key.toStdString();
    const QString path = m_dir.filePath(QStringLiteral("exported.hosts.json"));
    {
        HostsDialog dialog(cluster, saved);
        QVERIFY(dialog.exportFile(path));
    }
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const auto read = parseHosts(file.readAll().toStdString(), "exported");
    QVERIFY(read.ok());
    QCOMPARE(read->hosts, saved.hosts);

    HostsDialog fresh(cluster, {});
    QVERIFY(fresh.importFile(path));
    QCOMPARE(fresh.hosts().hosts, saved.hosts);
    // A file that cannot be read says so and changes nothing.
    QVERIFY(!fresh.importFile(m_dir.filePath(QStringLiteral("missing.json"))));
    QVERIFY(fresh.errorLabel()->text().contains(u"missing.json"));
    QCOMPARE(fresh.hosts().hosts, saved.hosts);
}

void TestHostsMapping::columnsShowHeadersAndValues()
{
    HostsDialog dialog(caseStudy(), {});
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    QTableWidget *table = dialog.table();
    const QFontMetrics metrics = table->horizontalHeader()->fontMetrics();
    for (int column = 0; column < HostsDialog::ColumnCount; ++column) {
        const QString header = table->horizontalHeaderItem(column)->text();
        QVERIFY2(
            table->columnWidth(column) >= metrics.horizontalAdvance(header) + 8,
            qPrintable(QStringLiteral("%1: %2 px").arg(header).arg(table->columnWidth(column))));
    }
    // A five-digit port is not elided.
    QVERIFY(table->columnWidth(HostsDialog::Port)
            >= table->fontMetrics().horizontalAdvance(QStringLiteral("65535")) + 8);
}

void TestHostsMapping::portEditorTakesDigitsOnly()
{
    HostsDialog dialog(caseStudy(), {});
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    QTableWidget *table = dialog.table();
    table->setCurrentCell(1, HostsDialog::Port);
    table->editItem(table->item(1, HostsDialog::Port));
    auto *editor = table->viewport()->findChild<QLineEdit *>();
    QVERIFY(editor);
    editor->selectAll();
    QTest::keyClicks(editor, QStringLiteral("2a2b0c1"));
    QCOMPARE(editor->text(), QStringLiteral("2201"));
    QTest::keyClick(editor, Qt::Key_Return);
    QTRY_COMPARE(cell(table, 1, HostsDialog::Port), QStringLiteral("2201"));
}

void TestHostsMapping::portThatIsNoNumberSaysSo()
{
    HostsDialog dialog(caseStudy(), {});
    QTableWidget *table = dialog.table();
    fillValidRows(table);
    // A value that did not come through the editor (an import, a fill-down, a paste).
    setCell(table, 2, HostsDialog::Port, QStringLiteral("abc"));
    dialog.accept();
    QCOMPARE(dialog.result(), int(QDialog::Rejected));
    QCOMPARE(dialog.errorLabel()->text(),
             QStringLiteral("machine C: port: \"abc\" is not a number; valid: 1–65535"));
    QCOMPARE(table->currentRow(), 2);
    QCOMPARE(table->currentColumn(), int(HostsDialog::Port));
}

void TestHostsMapping::errorFollowsEdits()
{
    HostsDialog dialog(caseStudy(), {});
    dialog.show();
    QTableWidget *table = dialog.table();
    fillValidRows(table);
    setCell(table, 1, HostsDialog::Workdir, QString());
    setCell(table, 2, HostsDialog::Port, QStringLiteral("0"));
    dialog.accept();
    QVERIFY2(dialog.errorLabel()->text().startsWith(u"machine B: workdir"),
             qPrintable(dialog.errorLabel()->text()));
    // Fixing B shows the next problem at once, fixing that one clears the label: no OK needed.
    setCell(table, 1, HostsDialog::Workdir, QStringLiteral("/scratch/hetplan"));
    QVERIFY2(dialog.errorLabel()->text().startsWith(u"machine C: port"),
             qPrintable(dialog.errorLabel()->text()));
    setCell(table, 2, HostsDialog::Port, QStringLiteral("22"));
    QVERIFY2(!dialog.errorLabel()->isVisible(), qPrintable(dialog.errorLabel()->text()));
}

void TestHostsMapping::fillDownCopiesTheTopCell()
{
    HostsDialog dialog(caseStudy(), {});
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    QTableWidget *table = dialog.table();
    setCell(table, 0, HostsDialog::Host, QStringLiteral("gpu-node-1"));
    setCell(table, 0, HostsDialog::User, QStringLiteral("trainer"));
    QAction *fillDown = dialogAction(dialog, "hostsFillDown");
    QVERIFY(fillDown);
    // Offered in the table's context menu.
    QCOMPARE(table->contextMenuPolicy(), Qt::ActionsContextMenu);
    QVERIFY(table->actions().contains(fillDown));

    // Host and User of rows A to C selected: A's values go down both columns.
    table->setRangeSelected(QTableWidgetSelectionRange(0, HostsDialog::Host, 2, HostsDialog::User),
                            true);
    fillDown->trigger();
    for (int row = 1; row < 3; ++row) {
        QCOMPARE(cell(table, row, HostsDialog::Host), QStringLiteral("gpu-node-1"));
        QCOMPARE(cell(table, row, HostsDialog::User), QStringLiteral("trainer"));
    }
    // Ctrl+D on one cell copies the cell above, as in a spreadsheet; the Machine column is
    // never written.
    setCell(table, 1, HostsDialog::Workdir, QStringLiteral("/scratch/b"));
    table->clearSelection();
    table->setCurrentCell(2, HostsDialog::Workdir);
    QTest::keyClick(table, Qt::Key_D, Qt::ControlModifier);
    QCOMPARE(cell(table, 2, HostsDialog::Workdir), QStringLiteral("/scratch/b"));
    table->setRangeSelected(
        QTableWidgetSelectionRange(0, HostsDialog::Machine, 2, HostsDialog::Machine), true);
    fillDown->trigger();
    QCOMPARE(cell(table, 2, HostsDialog::Machine), QStringLiteral("C"));
}

void TestHostsMapping::editsUndoAndRedo()
{
    HostsDialog dialog(caseStudy(), {});
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    QTableWidget *table = dialog.table();
    QAction *undo = dialogAction(dialog, "hostsUndo");
    QAction *redo = dialogAction(dialog, "hostsRedo");
    QVERIFY(undo && redo);
    QVERIFY(!undo->isEnabled());

    setCell(table, 0, HostsDialog::Host, QStringLiteral("gpu-a"));
    setCell(table, 1, HostsDialog::Host, QStringLiteral("gpu-b"));
    QVERIFY(undo->isEnabled());
    QTest::keyClick(table, Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(cell(table, 1, HostsDialog::Host), QString());
    QCOMPARE(cell(table, 0, HostsDialog::Host), QStringLiteral("gpu-a"));
    QTest::keyClick(table, Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
    QCOMPARE(cell(table, 1, HostsDialog::Host), QStringLiteral("gpu-b"));

    // A fill-down is one step.
    table->setRangeSelected(QTableWidgetSelectionRange(0, HostsDialog::Host, 2, HostsDialog::Host),
                            true);
    dialogAction(dialog, "hostsFillDown")->trigger();
    QCOMPARE(cell(table, 2, HostsDialog::Host), QStringLiteral("gpu-a"));
    undo->trigger();
    QCOMPARE(cell(table, 1, HostsDialog::Host), QStringLiteral("gpu-b"));
    QCOMPARE(cell(table, 2, HostsDialog::Host), QString());
    undo->trigger();
    undo->trigger();
    QCOMPARE(cell(table, 0, HostsDialog::Host), QString());
    QVERIFY(!undo->isEnabled());
    redo->trigger();
    QCOMPARE(cell(table, 0, HostsDialog::Host), QStringLiteral("gpu-a"));
}

void TestHostsMapping::identityMustBeAReadableFile_data()
{
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("expected"); // part of the message; empty: accepted

    QTest::newRow("key file") << "file"
                              << "";
    QTest::newRow("missing") << "missing"
                             << "no such file";
    QTest::newRow("folder") << "folder"
                            << "is a folder";
    QTest::newRow("fifo") << "fifo"
                          << "is a FIFO, not a file";
}

void TestHostsMapping::identityMustBeAReadableFile()
{
    QFETCH(QString, kind);
    QFETCH(QString, expected);
    const QString path = m_dir.filePath(QStringLiteral("identity-") + kind);
    if (kind == u"file") {
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
    } else if (kind == u"folder") {
        QVERIFY(QDir().mkpath(path));
    } else if (kind == u"fifo") {
        QVERIFY(::mkfifo(QFile::encodeName(path).constData(), 0600) == 0 || errno == EEXIST);
    }
    const Cluster cluster = caseStudy();
    HostsFile hosts;
    hosts.hosts = {entry("A", "h"), entry("B", "h2"), entry("C", "h3")};
    hosts.hosts[1].identity = path.toStdString();
    // Never opened: a FIFO would block here.
    const Status s = checkHostsForCluster(hosts, cluster);
    if (expected.isEmpty()) {
        QVERIFY2(s.ok(), s ? "" : s.error().message.c_str());
        return;
    }
    QVERIFY(!s);
    const QString message = QString::fromStdString(s.error().message);
    QVERIFY2(message.startsWith(u"machine B: identity: "), qPrintable(message));
    QVERIFY2(message.contains(path) && message.contains(expected), qPrintable(message));

    // The dialog says the same, with the cell selected.
    HostsDialog dialog(cluster, hosts);
    dialog.accept();
    QCOMPARE(dialog.result(), int(QDialog::Rejected));
    QCOMPARE(dialog.errorLabel()->text(), message);
    QCOMPARE(dialog.table()->currentRow(), 1);
    QCOMPARE(dialog.table()->currentColumn(), int(HostsDialog::Identity));
}

void TestHostsMapping::rowsSharingAHostMustAgree()
{
    const Cluster cluster = caseStudy();
    HostsFile hosts;
    hosts.hosts = {entry("A", "h"), entry("B", "other"), entry("C", "h")};
    QVERIFY(checkHostsForCluster(hosts, cluster).ok());
    // Same user@host:port, another work folder: which one would the host use?
    hosts.hosts[2].workdir = "/scratch/elsewhere";
    Status s = checkHostsForCluster(hosts, cluster);
    QVERIFY(!s);
    QString message = QString::fromStdString(s.error().message);
    QVERIFY2(message.startsWith(u"machine C: workdir: ") && message.contains(u"machine A")
                 && message.contains(u"/scratch/elsewhere") && message.contains(u"/scratch/hetplan")
                 && !message.contains(u"hosts["),
             qPrintable(message));
    // Another port is another destination: no conflict.
    hosts.hosts[2].port = 2222;
    QVERIFY(checkHostsForCluster(hosts, cluster).ok());
    hosts.hosts[2].port = kDefaultSshPort;
    hosts.hosts[2].workdir = hosts.hosts[0].workdir;
    hosts.hosts[2].worker = "/opt/hetplan/bin/hetplan-worker";
    s = checkHostsForCluster(hosts, cluster);
    QVERIFY(!s);
    message = QString::fromStdString(s.error().message);
    QVERIFY2(message.startsWith(u"machine C: worker: ") && message.contains(u"machine A"),
             qPrintable(message));
}

HETPLAN_TEST_MAIN(TestHostsMapping)
#include "tst_hosts_mapping.moc"
