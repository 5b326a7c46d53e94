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

#include <QFile>
#include <QLabel>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

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
    saved.hosts[1].identity = "/keys/id_b";
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

HETPLAN_TEST_MAIN(TestHostsMapping)
#include "tst_hosts_mapping.moc"
