// Project files: round trip, atomic save, bad files refused without touching the open
// document, autosave and recovery.
#include "core/catalog/catalog.h"
#include "core/io/formats.h"
#include "model/cluster_model.h"
#include "model/document.h"
#include "tests/test_registry.h"

#include <QFile>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include <algorithm>
#include <csignal>
#include <random>
#include <sys/resource.h>

using namespace hetplan;
using namespace hetplan::gui;

namespace {

const QString kBadDir = QStringLiteral(HETPLAN_GUI_TEST_DATA_DIR "/bad/");

QByteArray contents(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

void writeBytes(const QString &path, const QByteArray &bytes)
{
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    QCOMPARE(file.write(bytes), bytes.size());
}

// A few edits of every kind, so that a round trip has something to lose.
void edit(ClusterModel &model)
{
    Machine m;
    m.name = "D";
    m.gpu = "H100-80G";
    m.count = 4;
    m.host = "node-d";
    m.nic = NicKind::InfiniBand;
    m.position = {123.25, -7.5};
    const auto d = model.addMachine(m);
    QVERIFY(d.ok());
    const auto link
        = model.addLink(*d, model.nodeByName("eth"), Link{{}, {}, LinkKind::Roce, 12.5, 3.0});
    QVERIFY(link.ok());
    model.moveNodes({{model.nodeByName("A"), {1.0 / 3.0, 2e6}}});
}

} // namespace

class TestProject : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void saveOpenRoundTrip_data();
    void saveOpenRoundTrip();
    void projectSettingsRoundTrip();
    void interruptedSaveKeepsOldFile();
    void badFilesAreRefused_data();
    void badFilesAreRefused();
    void autosaveRecoversUnsavedEdits();
    void cleanSaveRemovesAutosave();
    void aClusterWithoutALayoutOpensSpreadOut();

private:
    QTemporaryDir m_dir;
};

void TestProject::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true); // autosaves go to a test location
    QVERIFY(m_dir.isValid());
}

void TestProject::saveOpenRoundTrip_data()
{
    QTest::addColumn<QString>("example");
    for (const Example &e : bundledExamples())
        if (e.kind == ExampleKind::Cluster)
            QTest::newRow(e.name.c_str()) << QString::fromStdString(e.name);
}

void TestProject::saveOpenRoundTrip()
{
    QFETCH(QString, example);
    Document original;
    QVERIFY(original.openExample(example).ok());
    if (example == QLatin1String("case-study"))
        edit(*original.clusterModel());
    const QString path = m_dir.filePath(example + QStringLiteral(".hetplan.json"));
    QVERIFY(original.save(path).ok());
    QVERIFY(!original.isModified());

    Document reopened;
    const Status opened = reopened.open(path);
    QVERIFY2(opened.ok(), opened.ok() ? "" : opened.error().message.c_str());
    QCOMPARE(writeCluster(reopened.clusterModel()->cluster()),
             writeCluster(original.clusterModel()->cluster()));
    QVERIFY(reopened.clusterModel()->cluster() == original.clusterModel()->cluster());
    QCOMPARE(reopened.filePath(), original.filePath());
    QVERIFY(!reopened.isModified());
}

void TestProject::projectSettingsRoundTrip()
{
    Document document;
    QVERIFY(document.openExample(QStringLiteral("case-study")).ok());
    Workload w;
    w.mode = Mode::Infer;
    w.infer.promptLen = 1024;
    w.infer.outputLen = 64;
    w.infer.requestRatePerS = 2.5;
    w.infer.sloS = 4;
    document.setWorkload(w);
    document.setModelName("llama2-70b");
    document.setPlanner(PlannerKind::HexGen);
    document.setCostModel(CostModelKind::HexGenPaper);
    QVERIFY(document.isModified());
    const QString path = m_dir.filePath(QStringLiteral("settings.hetplan.json"));
    QVERIFY(document.save(path).ok());

    Document reopened;
    QVERIFY(reopened.open(path).ok());
    const Project p = reopened.project();
    QVERIFY(p.workload == w);
    QCOMPARE(p.modelName, std::string("llama2-70b"));
    QVERIFY(p.planner == PlannerKind::HexGen);
    QVERIFY(p.costModel == CostModelKind::HexGenPaper);
    QCOMPARE(writeProject(p), writeProject(document.project()));
}

void TestProject::interruptedSaveKeepsOldFile()
{
    Document document;
    QVERIFY(document.openExample(QStringLiteral("large-cluster")).ok());
    const QString path = m_dir.filePath(QStringLiteral("interrupted.hetplan.json"));
    QVERIFY(document.save(path).ok());
    const QByteArray saved = contents(path);
    QVERIFY(saved.size() > 4096);

    edit(*document.clusterModel());
    // The file system refuses the write after 4 KiB, halfway through the new content (the
    // way a full disk does); the signal a process gets for that is ignored, as a daemon would.
    rlimit old{};
    QCOMPARE(getrlimit(RLIMIT_FSIZE, &old), 0);
    const auto previousHandler = std::signal(SIGXFSZ, SIG_IGN);
    rlimit small = old;
    small.rlim_cur = 4096;
    QCOMPARE(setrlimit(RLIMIT_FSIZE, &small), 0);
    const Status status = document.save(path);
    QCOMPARE(setrlimit(RLIMIT_FSIZE, &old), 0);
    std::signal(SIGXFSZ, previousHandler);

    QVERIFY(!status.ok());
    QVERIFY2(status.error().message.find("interrupted.hetplan.json") != std::string::npos,
             status.error().message.c_str());
    QCOMPARE(contents(path), saved);
    QVERIFY(document.isModified()); // the edits are still unsaved
    QCOMPARE(QDir(m_dir.path())
                 .entryList(QDir::Files | QDir::Hidden)
                 .filter(QStringLiteral("interrupted")),
             QStringList{QStringLiteral("interrupted.hetplan.json")}); // no temporary left
}

void TestProject::badFilesAreRefused_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QStringList>("expected"); // parts of the message

    const auto row = [](const char *name, QStringList expected) {
        QTest::newRow(name) << QString::fromLatin1(name) << expected;
    };
    row("truncated.cluster.json",
        {QStringLiteral("truncated.cluster.json"), QStringLiteral("line")});
    row("wrong-format.json", {QStringLiteral("format"), QStringLiteral("hetplan.project/1")});
    row("newer-major.project.json", {QStringLiteral("format"), QStringLiteral("project/2")});
    row("negative-count.cluster.json",
        {QStringLiteral("machines[0].count"), QStringLiteral("1..1024")});
    row("huge-count.cluster.json",
        {QStringLiteral("machines[0].count"), QStringLiteral("1..1024")});
    row("unknown-gpu.cluster.json", {QStringLiteral("machines[0].gpu"), QStringLiteral("GTX-9999"),
                                     QStringLiteral("A100-80G")});
    row("dangling-link.cluster.json", {QStringLiteral("links[0].b"), QStringLiteral("\"B\"")});
    row("negative-count.project.json",
        {QStringLiteral("cluster"), QStringLiteral("machines[0].count")});
    row("unknown-model.project.json",
        {QStringLiteral("model"), QStringLiteral("gpt-7"), QStringLiteral("llama2-13b")});
    row("unknown-planner.project.json",
        {QStringLiteral("planner"), QStringLiteral("random"), QStringLiteral("hexiscale")});
    row("negative-batch.project.json", {QStringLiteral("workload.global_batch")});
    row("junk-10mb.bin", {QStringLiteral("junk-10mb.bin")});
    row("binary.bin", {QStringLiteral("binary.bin")});
    row("missing.json", {QStringLiteral("missing.json")});
    row("/dev/zero", {QStringLiteral("/dev/zero")});
    row("a folder", {QStringLiteral("folder")});
}

void TestProject::badFilesAreRefused()
{
    QFETCH(QString, file);
    QFETCH(QStringList, expected);
    QString path = file.startsWith(QLatin1Char('/')) ? file : kBadDir + file;
    if (file == QLatin1String("a folder"))
        path = m_dir.path();
    if (file.endsWith(QLatin1String(".bin"))) {
        // Generated rather than kept in the repository.
        path = m_dir.filePath(file);
        std::mt19937 rng(42);
        QByteArray bytes(file.startsWith(QLatin1String("junk")) ? 10 << 20 : 4096, '\0');
        for (char &c : bytes)
            c = file.startsWith(QLatin1String("junk")) ? "{[\"a:,1e999}]"[rng() % 13]
                                                       : char(rng() % 256);
        writeBytes(path, bytes);
    }

    Document document;
    QVERIFY(document.openExample(QStringLiteral("case-study")).ok());
    edit(*document.clusterModel());
    const Project before = document.project();
    const int undoSteps = document.clusterModel()->undoStack()->count();

    const Status status = document.open(path);
    QVERIFY(!status.ok());
    const QString message = QString::fromStdString(status.error().message);
    for (const QString &part : expected)
        QVERIFY2(message.contains(part), qPrintable(message));
    QCOMPARE(writeProject(document.project()), writeProject(before));
    QCOMPARE(document.clusterModel()->undoStack()->count(), undoSteps);
    QVERIFY(document.isModified());
    QVERIFY(document.filePath().isEmpty());

    const Status imported = document.importCluster(path);
    QVERIFY(!imported.ok());
    QCOMPARE(writeProject(document.project()), writeProject(before));
}

void TestProject::autosaveRecoversUnsavedEdits()
{
    Document document;
    QVERIFY(document.openExample(QStringLiteral("case-study")).ok());
    const QString path = m_dir.filePath(QStringLiteral("recover.hetplan.json"));
    QVERIFY(document.save(path).ok());
    QVERIFY(!Document::recoverableAutosave(path));

    edit(*document.clusterModel());
    Workload w = document.project().workload;
    w.train.globalBatch = 48;
    document.setWorkload(w);
    const QString unsaved = QString::fromStdString(writeProject(document.project()));
    QVERIFY(document.writeAutosave().ok());
    // The saved file is older than its autosave (as after a crash minutes later).
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadWrite));
    QVERIFY(file.setFileTime(QDateTime::currentDateTime().addSecs(-60),
                             QFileDevice::FileModificationTime));
    file.close();

    // A new process: the file opens as saved, and the autosave is offered.
    Document restarted;
    QVERIFY(restarted.open(path).ok());
    QVERIFY(restarted.project().workload.train.globalBatch != 48);
    const auto autosave = Document::recoverableAutosave(path);
    QVERIFY(autosave);
    QVERIFY(restarted.recover(*autosave, path).ok());
    QCOMPARE(QString::fromStdString(writeProject(restarted.project())), unsaved);
    QCOMPARE(restarted.filePath(), document.filePath());
    QVERIFY(restarted.isModified());
}

void TestProject::cleanSaveRemovesAutosave()
{
    Document document;
    QVERIFY(document.openExample(QStringLiteral("case-study")).ok());
    edit(*document.clusterModel());
    QVERIFY(document.writeAutosave().ok()); // untitled
    QVERIFY(Document::recoverableAutosave({}));
    const QString path = m_dir.filePath(QStringLiteral("clean.hetplan.json"));
    QVERIFY(document.save(path).ok());
    QVERIFY(!Document::recoverableAutosave({}));
    QVERIFY(!QFile::exists(document.autosavePath()));
}

// hetplan-cli import of an older release, or a hand-written file, gives every node the same
// spot: the canvas opens with them spread out, and opening is no edit.
void TestProject::aClusterWithoutALayoutOpensSpreadOut()
{
    Document example;
    QVERIFY(example.openExample(QStringLiteral("case-study")).ok());
    Cluster stacked = example.clusterModel()->cluster();
    for (Machine &m : stacked.machines)
        m.position = {};
    for (Switch &s : stacked.switches)
        s.position = {};
    const QString path = m_dir.filePath(QStringLiteral("stacked.cluster.json"));
    writeBytes(path, QByteArray::fromStdString(writeCluster(stacked)));

    Document document;
    QVERIFY(document.open(path).ok());
    std::vector<std::pair<double, double>> spots;
    for (const Machine &m : document.clusterModel()->cluster().machines)
        spots.emplace_back(m.position.x, m.position.y);
    for (const Switch &s : document.clusterModel()->cluster().switches)
        spots.emplace_back(s.position.x, s.position.y);
    std::ranges::sort(spots);
    QVERIFY(std::ranges::adjacent_find(spots) == spots.end());
    QVERIFY(!document.isModified());
    QCOMPARE(document.clusterModel()->undoStack()->count(), 0);
}

HETPLAN_TEST_MAIN(TestProject)
#include "tst_project.moc"
