// hetplan.project/1, the desktop app's document (docs/formats.md, "Project"), read and written
// by core/io without Qt: what is written reads back unchanged, a plain cluster file opens as a
// project, and problems inside a nested document name the field they are in.
#include "core/io/catalog_json.h"
#include "core/io/files.h"
#include "core/io/formats.h"
#include "core/io/project_json.h"
#include "tests/test_registry.h"

#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

using namespace hetplan;

namespace {

Project sample()
{
    Project p;
    auto cluster = findExample("case-study", ExampleKind::Cluster);
    auto read = parseCluster(cluster->text, cluster->path);
    p.cluster = *read;
    p.workload.mode = Mode::Infer;
    p.workload.infer.sloScale = 4;
    p.planner = PlannerKind::HexGen;
    p.costModel = CostModelKind::HexGenPaper;
    p.modelName = "llama2-70b";
    p.hosts.hosts.push_back({"A", "a-host", 22, "", "", "/tmp/hp", "hetplan-worker"});
    return p;
}

} // namespace

class TestProjectJson : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void writtenProjectsReadBackUnchanged();
    void customModelRoundTrips();
    void plainClusterFileOpensAsProject();
    void savesAtomicallyAndReadsBack();
    void badProjectsNameTheField_data();
    void badProjectsNameTheField();
};

void TestProjectJson::writtenProjectsReadBackUnchanged()
{
    const std::string text = writeProject(sample());
    auto read = parseProject(text, "p.hetplan.json");
    QVERIFY2(read.ok(), read.ok() ? "" : read.error().message.c_str());
    QVERIFY(read->cluster == sample().cluster);
    QVERIFY(read->workload == sample().workload);
    QVERIFY(read->planner == PlannerKind::HexGen);
    QVERIFY(read->costModel == CostModelKind::HexGenPaper);
    QCOMPARE(read->modelName, std::string("llama2-70b"));
    QVERIFY(read->hosts.hosts == sample().hosts.hosts);
    QCOMPARE(writeProject(*read), text);
}

void TestProjectJson::customModelRoundTrips()
{
    Project p = sample();
    ModelSpec model = *builtinModelCatalog().find("llama2-7b");
    model.name = "mine";
    model.layers = 6;
    p.customModel = model;
    auto read = parseProject(writeProject(p), "p.hetplan.json");
    QVERIFY2(read.ok(), read.ok() ? "" : read.error().message.c_str());
    QVERIFY(read->customModel.has_value());
    QCOMPARE(read->model()->layers, 6);
    QCOMPARE(read->model()->name, std::string("mine"));
}

void TestProjectJson::plainClusterFileOpensAsProject()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = dir.filePath(QStringLiteral("c.json")).toStdString();
    QVERIFY(writeFileAtomic(path, writeCluster(sample().cluster)).ok());
    auto read = readProjectFile(path);
    QVERIFY2(read.ok(), read.ok() ? "" : read.error().message.c_str());
    QVERIFY(read->cluster == sample().cluster);
    QVERIFY(read->workload == Workload{});
    QVERIFY(!read->lastPlan);
}

void TestProjectJson::savesAtomicallyAndReadsBack()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = dir.filePath(QStringLiteral("p.hetplan.json")).toStdString();
    QVERIFY(saveProjectFile(sample(), path).ok());
    QVERIFY(saveProjectFile(sample(), path).ok()); // over an existing file
    auto read = readProjectFile(path);
    QVERIFY2(read.ok(), read.ok() ? "" : read.error().message.c_str());
    QCOMPARE(writeProject(*read), writeProject(sample()));
    // Only the project itself is left in the folder: no temporary file behind.
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files).size(), 1);
}

void TestProjectJson::badProjectsNameTheField_data()
{
    QTest::addColumn<QString>("from");
    QTest::addColumn<QString>("to");
    QTest::addColumn<QString>("message");
    QTest::newRow("nested cluster")
        << QStringLiteral("\"count\": ") << QStringLiteral("\"count\": -")
        << QStringLiteral(": cluster: machines[");
    QTest::newRow("unknown planner")
        << QStringLiteral("\"planner\": \"hexgen\"") << QStringLiteral("\"planner\": \"nope\"")
        << QStringLiteral("planner");
    QTest::newRow("unknown model")
        << QStringLiteral("\"model\": \"llama2-70b\"") << QStringLiteral("\"model\": \"nope\"")
        << QStringLiteral("not a catalog model");
}

void TestProjectJson::badProjectsNameTheField()
{
    QFETCH(QString, from);
    QFETCH(QString, to);
    QFETCH(QString, message);
    QString text = QString::fromStdString(writeProject(sample()));
    const qsizetype at = text.indexOf(from);
    QVERIFY2(at >= 0, qPrintable(from));
    text.replace(at, from.size(), to);
    auto read = parseProject(text.toStdString(), "p.hetplan.json");
    QVERIFY(!read.ok());
    const QString got = QString::fromStdString(read.error().message);
    QVERIFY2(got.startsWith(QStringLiteral("p.hetplan.json")), qPrintable(got));
    QVERIFY2(got.contains(message), qPrintable(got));
}

HETPLAN_TEST_APPLESS_MAIN(TestProjectJson)
#include "tst_project_json.moc"
