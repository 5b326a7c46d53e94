// hetplan.hosts/1: the launcher's machine-to-host mapping (docs/formats.md, "Hosts"). The writer
// and the strict reader agree, saves are atomic, and bad files are refused with the field's path.
#include "core/io/files.h"
#include "core/io/hosts_json.h"
#include "tests/test_registry.h"

#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

using namespace hetplan;

namespace {

HostsFile sample()
{
    HostsFile f;
    f.hosts.push_back({"A", "10.0.0.5", 22, "train", "~/.ssh/id_ed25519", "/scratch/hetplan",
                       "/usr/bin/hetplan-worker"});
    // Several machines on one host; no user and no identity: the local user and the agent.
    f.hosts.push_back({"B", "gpu-box", 2222, "", "", "/tmp/hp", "hetplan-worker"});
    f.hosts.push_back({"C", "gpu-box", 2222, "", "", "/tmp/hp", "hetplan-worker"});
    return f;
}

} // namespace

class TestHostsJson : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void writtenFilesReadBackUnchanged();
    void defaultsFillAbsentFields();
    void savesAtomically();
    void badFilesNameTheField_data();
    void badFilesNameTheField();
};

void TestHostsJson::writtenFilesReadBackUnchanged()
{
    const std::string text = writeHosts(sample());
    auto read = parseHosts(text, "h.json");
    QVERIFY2(read.ok(), read.ok() ? "" : read.error().message.c_str());
    QVERIFY(read->hosts == sample().hosts);
    QCOMPARE(writeHosts(*read), text);
    QVERIFY(read->find("C") != nullptr);
    QCOMPARE(read->find("C")->port, 2222);
    QVERIFY(read->find("D") == nullptr);
}

void TestHostsJson::defaultsFillAbsentFields()
{
    auto read = parseHosts(R"({"format": "hetplan.hosts/1",
        "hosts": [{"machine": "A", "host": "a", "workdir": "w"}]})",
                           "h.json");
    QVERIFY2(read.ok(), read.ok() ? "" : read.error().message.c_str());
    QCOMPARE(read->hosts[0].port, 22);
    QCOMPARE(read->hosts[0].worker, std::string("hetplan-worker"));
    QVERIFY(read->hosts[0].user.empty());
    QVERIFY(read->hosts[0].identity.empty());
}

void TestHostsJson::savesAtomically()
{
    QTemporaryDir dir;
    const std::string path = dir.filePath(QStringLiteral("hosts.json")).toStdString();
    QVERIFY(saveHosts(path, sample()).ok());
    auto text = readTextFile(path);
    QVERIFY(text.ok());
    QCOMPARE(*text, writeHosts(sample()));
    // Nothing but the file itself is left beside it (no temporary file).
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 1);
    const std::string missing = dir.filePath(QStringLiteral("no/such/hosts.json")).toStdString();
    QVERIFY(!saveHosts(missing, sample()).ok());
}

void TestHostsJson::badFilesNameTheField_data()
{
    QTest::addColumn<QString>("pointer");
    QTest::addColumn<QString>("replacement");
    QTest::addColumn<QString>("expected");
    QTest::newRow("port zero") << "/hosts/0/port"
                               << "0"
                               << "hosts[0].port: 0 is out of range; valid: 1..65535";
    QTest::newRow("port too high") << "/hosts/1/port"
                                   << "65536"
                                   << "hosts[1].port";
    QTest::newRow("port as text") << "/hosts/0/port"
                                  << "\"22\""
                                  << "hosts[0].port";
    QTest::newRow("empty host") << "/hosts/0/host"
                                << "\"\""
                                << "hosts[0].host: must not be empty";
    QTest::newRow("host as option") << "/hosts/1/host"
                                    << "\"-oProxyCommand=x\""
                                    << "hosts[1].host";
    QTest::newRow("newline in workdir") << "/hosts/0/workdir"
                                        << "\"/tmp\\nrm\""
                                        << "hosts[0].workdir";
    QTest::newRow("unknown field") << "/hosts/0/password"
                                   << "\"secret\""
                                   << "hosts[0].password";
    QTest::newRow("no workdir") << "/hosts/2"
                                << R"({"machine": "C", "host": "c"})"
                                << "hosts[2].workdir";
    QTest::newRow("machine twice") << "/hosts/2/machine"
                                   << "\"B\""
                                   << "hosts[2].machine";
    QTest::newRow("no hosts") << "/hosts"
                              << "[]"
                              << "hosts";
    QTest::newRow("wrong format") << "/format"
                                  << "\"hetplan.plan/1\""
                                  << "format";
}

void TestHostsJson::badFilesNameTheField()
{
    QFETCH(QString, pointer);
    QFETCH(QString, replacement);
    QFETCH(QString, expected);
    nlohmann::json doc = nlohmann::json::parse(writeHosts(sample()));
    doc[nlohmann::json::json_pointer(pointer.toStdString())]
        = nlohmann::json::parse(replacement.toStdString());
    auto read = parseHosts(doc.dump(), "bad.hosts.json");
    QVERIFY(!read.ok());
    QCOMPARE(read.error().kind, ErrorKind::BadInput);
    const std::string &message = read.error().message;
    QVERIFY2(message.find("bad.hosts.json") != std::string::npos, message.c_str());
    QVERIFY2(message.find(expected.toStdString()) != std::string::npos, message.c_str());
}

HETPLAN_TEST_APPLESS_MAIN(TestHostsJson)
#include "tst_hosts_json.moc"
