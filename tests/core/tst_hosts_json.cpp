// hetplan.hosts/1: the launcher's machine-to-host mapping (docs/formats.md, "Hosts"). The writer
// and the strict reader agree, saves are atomic, and bad files are refused with the field's path.
#include "core/io/files.h"
#include "core/io/hosts_json.h"
#include "tests/test_registry.h"

#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>
#include <sys/stat.h>

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
    void identityFilesAreCheckedWithoutOpening_data();
    void identityFilesAreCheckedWithoutOpening();
    void homeWorkdirsAndSharedHostsThatAgreeAreRead();
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
                               << "hosts[0].port (machine A): 0 is out of range; valid: 1..65535";
    QTest::newRow("port too high") << "/hosts/1/port"
                                   << "65536"
                                   << "hosts[1].port";
    QTest::newRow("port as text") << "/hosts/0/port"
                                  << "\"22\""
                                  << "hosts[0].port";
    QTest::newRow("empty host") << "/hosts/0/host"
                                << "\"\""
                                << "hosts[0].host (machine A): must not be empty";
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
                                << "hosts[2].workdir (machine C)";
    QTest::newRow("machine twice") << "/hosts/2/machine"
                                   << "\"B\""
                                   << "hosts[2].machine";
    QTest::newRow("no hosts") << "/hosts"
                              << "[]"
                              << "hosts";
    QTest::newRow("wrong format") << "/format"
                                  << "\"hetplan.plan/1\""
                                  << "format";
    // B and C share gpu-box:2222: one login, so one workdir, identity and worker, whichever
    // row's rank comes first.
    QTest::newRow("shared host, other workdir")
        << "/hosts/2/workdir"
        << "\"/elsewhere\""
        << "hosts[2].workdir (machine C): \"/elsewhere\" differs from \"/tmp/hp\" of machine B "
           "(hosts[1]), which has the same destination gpu-box:2222";
    QTest::newRow("shared host, other identity") << "/hosts/1/identity"
                                                 << "\"~/.ssh/other\""
                                                 << "hosts[2].identity (machine C)";
    QTest::newRow("shared host, other worker") << "/hosts/2/worker"
                                               << "\"/opt/hetplan-worker\""
                                               << "hosts[2].worker (machine C)";
    QTest::newRow("worker with =") << "/hosts/0/worker"
                                   << "\"/opt/a=b/hetplan-worker\""
                                   << "hosts[0].worker (machine A): \"/opt/a=b/hetplan-worker\" "
                                      "contains '='";
    QTest::newRow("worker under ~") << "/hosts/0/worker"
                                    << "\"~/bin/hetplan-worker\""
                                    << "hosts[0].worker (machine A): \"~/bin/hetplan-worker\": '~' "
                                       "is not expanded";
    QTest::newRow("relative worker") << "/hosts/0/worker"
                                     << "\"bin/hetplan-worker\""
                                     << "hosts[0].worker (machine A): \"bin/hetplan-worker\" is "
                                        "relative";
    QTest::newRow("worker as option") << "/hosts/0/worker"
                                      << "\"-x\""
                                      << "hosts[0].worker (machine A): must not start with '-'";
    QTest::newRow("another user's home") << "/hosts/0/workdir"
                                         << "\"~bob/hp\""
                                         << "hosts[0].workdir (machine A): \"~bob/hp\": another "
                                            "user's home";
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

void TestHostsJson::identityFilesAreCheckedWithoutOpening_data()
{
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("expected");
    // A FIFO used to hang the launch inside the SSH library's blocking open.
    QTest::newRow("FIFO") << "fifo"
                          << "is a FIFO, not a file";
    QTest::newRow("folder") << "folder"
                            << "is a folder, not a file";
    QTest::newRow("missing") << "missing"
                             << "no such file";
}

void TestHostsJson::identityFilesAreCheckedWithoutOpening()
{
    QFETCH(QString, kind);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    const std::string path = dir.filePath(kind).toStdString();
    if (kind == QLatin1String("fifo"))
        QCOMPARE(::mkfifo(path.c_str(), 0600), 0);
    else if (kind == QLatin1String("folder"))
        QVERIFY(QDir(dir.path()).mkdir(kind));
    HostsFile hosts = sample();
    hosts.hosts[0].identity = "";
    hosts.hosts[1].identity = hosts.hosts[2].identity = path;
    const Status checked = checkIdentityFiles(hosts, "h.json");
    QVERIFY(!checked);
    const std::string &message = checked.error().message;
    QVERIFY2(message.starts_with("h.json: hosts[1].identity (machine B): " + path + ": "
                                 + expected.toStdString()),
             message.c_str());

    // A readable key file passes; so does a row without one (the SSH agent).
    const std::string key = dir.filePath(QStringLiteral("key")).toStdString();
    QVERIFY(writeFileAtomic(key, "not checked as a key here").ok());
    hosts.hosts[1].identity = hosts.hosts[2].identity = key;
    QVERIFY(checkIdentityFiles(hosts, "h.json").ok());
}

void TestHostsJson::homeWorkdirsAndSharedHostsThatAgreeAreRead()
{
    HostsFile hosts = sample();
    hosts.hosts[0].workdir = "~/hetplan";
    hosts.hosts[1].workdir = hosts.hosts[2].workdir = "~";
    auto read = parseHosts(writeHosts(hosts), "h.json");
    QVERIFY2(read.ok(), read.ok() ? "" : read.error().message.c_str());
    QVERIFY(read->hosts == hosts.hosts);
    // The same host under another user or port is another login: its rows may differ.
    hosts.hosts[2].port = 2223;
    hosts.hosts[2].workdir = "/other";
    QVERIFY(checkHostRows(hosts, "h.json").ok());
}

HETPLAN_TEST_APPLESS_MAIN(TestHostsJson)
#include "tst_hosts_json.moc"
