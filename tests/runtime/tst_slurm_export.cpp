// `hetplan-cli export --slurm` starts the same job as `hetplan-cli run`: its sbatch script, run
// against a stand-in srun that starts every task at once with its Slurm variables, trains the
// plan with real hetplan-worker processes (Gloo on loopback) to the loss `run` reaches; paths
// and names that are shell code stay data.
#include "core/io/files.h"
#include "core/io/formats.h"
#include "core/io/measurement_json.h"
#include "core/plan/rank_layout.h"
#include "tests/core/export_test_support.h"
#include "tests/core/slurm_test_support.h"
#include "tests/runtime/run_test_support.h"
#include "tests/test_registry.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

using namespace hetplan;
using hetplan::runtime::test::runCli;

namespace {

std::vector<double> lossOf(const QString &path)
{
    auto text = readTextFile(path.toStdString());
    if (!text)
        return {};
    auto measurement = parseMeasurement(*text, path.toStdString());
    return measurement ? measurement->loss : std::vector<double>{};
}

// One task per rank, "node:localid", as Slurm starts them.
QStringList tasksOf(const std::vector<RankPlacement> &layout)
{
    QStringList tasks;
    for (const RankPlacement &r : layout)
        tasks << QStringLiteral("%1:%2").arg(QString::fromStdString(r.host)).arg(r.localRank);
    return tasks;
}

// The exported script at `path` as job `jobId` submitted from `submitDir`, its ranks listening
// on loopback; `env` adds to that.
hetplan::test::ScriptRun runScript(const QString &path, const QString &submitDir, const char *jobId,
                                   const QStringList &tasks, QProcessEnvironment env)
{
    env.insert(QStringLiteral("SLURM_SUBMIT_DIR"), submitDir);
    env.insert(QStringLiteral("SLURM_JOB_ID"), QString::fromUtf8(jobId));
    env.insert(QStringLiteral("HETPLAN_LISTEN_ADDRESS"), QStringLiteral("127.0.0.1"));
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return hetplan::test::runSbatchScript(file.readAll().toStdString(), tasks, env);
}

// Shell code that creates $HETPLAN_MARKER wherever a value is read as code: a command
// substitution, backticks, a quote that ends a word, `;`, and (`withNewline`) the end word of a
// heredoc on a line of its own.
QString hostileName(bool withNewline)
{
    QString name = QStringLiteral("x$(touch $HETPLAN_MARKER)`touch $HETPLAN_MARKER`;touch "
                                  "$HETPLAN_MARKER;'\"' ;touch $HETPLAN_MARKER;\"");
    if (withNewline)
        name += QStringLiteral(
            "\nHETPLAN_TASK_END\ntouch $HETPLAN_MARKER\n}\ntouch $HETPLAN_MARKER\n");
    return name;
}

bool writeText(const QString &path, const std::string &text)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(text.data(), qint64(text.size())) >= 0;
}

} // namespace

class TestSlurmExport : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void scriptTrainsLikeRun();
    void hostilePathsStayData();
};

void TestSlurmExport::scriptTrainsLikeRun()
{
    const char *source = "good/case-study-2pp.plan.json";
    const QString plan = QStringLiteral(HETPLAN_TEST_DATA_DIR "/") + QLatin1String(source);
    QTemporaryDir dir;
    const QString script = dir.filePath(QStringLiteral("job.sh"));
    const auto exported
        = runCli({QStringLiteral("export"), QStringLiteral("--slurm"), QStringLiteral("--plan"),
                  plan, QStringLiteral("--backend"), QStringLiteral("gloo"),
                  QStringLiteral("--scale"), QStringLiteral("64"), QStringLiteral("--iterations"),
                  QStringLiteral("2"), QStringLiteral("--out"), script});
    QVERIFY2(exported.exitCode == 0, qPrintable(exported.err));

    // One task per rank on the node of its machine (A, C, B), as Slurm would start them.
    const auto c = hetplan::test::exportCase(source);
    const std::vector<RankPlacement> layout = rankLayout(c.plan, *c.topology);
    const QStringList tasks = tasksOf(layout);
    QProcessEnvironment env;
    env.insert(QStringLiteral("PATH"),
               QFileInfo(hetplan::test::projectProgram("hetplan-worker")).absolutePath()
                   + QLatin1Char(':') + qEnvironmentVariable("PATH"));
    const hetplan::test::ScriptRun job = runScript(script, dir.path(), "42", tasks, env);
    QVERIFY2(job.exitCode == 0, qPrintable(job.out + job.err));

    const QString measured = dir.filePath(QStringLiteral("run.json"));
    const auto run
        = runCli({QStringLiteral("run"), QStringLiteral("--plan"), plan, QStringLiteral("--scale"),
                  QStringLiteral("64"), QStringLiteral("--iterations"), QStringLiteral("2"),
                  QStringLiteral("--out"), measured});
    QVERIFY2(run.exitCode == 0, qPrintable(run.err));
    const std::vector<double> expected = lossOf(measured);
    QCOMPARE(expected.size(), std::size_t(2));
    for (const RankPlacement &r : layout) {
        const QString rankFile
            = dir.filePath(QStringLiteral("hetplan-42/rank-%1.json").arg(r.rank));
        const std::vector<double> loss = lossOf(rankFile);
        QCOMPARE(loss.size(), expected.size());
        for (std::size_t i = 0; i < loss.size(); ++i)
            QVERIFY2(std::abs(loss[i] - expected[i]) <= 1e-9 * std::abs(expected[i]),
                     qPrintable(QStringLiteral("rank %1 iteration %2: %3, run: %4")
                                    .arg(r.rank)
                                    .arg(i)
                                    .arg(loss[i])
                                    .arg(expected[i])));
    }
}

void TestSlurmExport::hostilePathsStayData()
{
    const char *source = "good/case-study-2pp.plan.json";
    const auto c = hetplan::test::exportCase(source);
    QTemporaryDir dir;
    // The plan, its cluster and its model in a folder named with a newline and the old heredoc's
    // end word; each node's worker (a hosts file holds no control character) named with the rest.
    const QString folder = dir.filePath(hostileName(true));
    const QString bin = dir.filePath(hostileName(false));
    QVERIFY(QDir().mkpath(folder) && QDir().mkpath(bin));
    const QString plan = folder + QStringLiteral("/plan.json");
    const QString cluster = folder + QStringLiteral("/cluster.json");
    const QString model = folder + QStringLiteral("/model.json");
    QVERIFY(QFile::copy(QStringLiteral(HETPLAN_TEST_DATA_DIR "/") + QLatin1String(source), plan));
    QVERIFY(writeText(cluster, writeCluster(c.topology->cluster())));
    QVERIFY(writeText(model, writeModel(c.model)));
    // The stand-in worker records its arguments, one per line-free NUL-ended field.
    const QString worker = bin + QStringLiteral("/hetplan-worker");
    QVERIFY(writeText(worker, "#!/bin/bash\nprintf '%s\\0' \"$@\" > \"$ARGS_DIR/rank-$RANK\"\n"));
    QVERIFY(QFile::setPermissions(worker, QFile::ReadOwner | QFile::ExeOwner));
    QJsonArray entries;
    for (const Machine &m : c.topology->cluster().machines)
        entries.append(QJsonObject{{QStringLiteral("machine"), QString::fromStdString(m.name)},
                                   {QStringLiteral("host"), QString::fromStdString(m.name)},
                                   {QStringLiteral("workdir"), QStringLiteral("/w")},
                                   {QStringLiteral("worker"), worker}});
    const QString hosts = dir.filePath(QStringLiteral("hosts.json"));
    QVERIFY(writeText(hosts, QJsonDocument(QJsonObject{{QStringLiteral("format"),
                                                        QStringLiteral("hetplan.hosts/1")},
                                                       {QStringLiteral("hosts"), entries}})
                                 .toJson()
                                 .toStdString()));
    const QString script = dir.filePath(QStringLiteral("job.sh"));
    const auto exported
        = runCli({QStringLiteral("export"), QStringLiteral("--slurm"), QStringLiteral("--plan"),
                  plan, QStringLiteral("--cluster"), cluster, QStringLiteral("--model"), model,
                  QStringLiteral("--hosts"), hosts, QStringLiteral("--out"), script});
    QVERIFY2(exported.exitCode == 0, qPrintable(exported.err));

    const std::vector<RankPlacement> layout = rankLayout(c.plan, *c.topology);
    const QStringList tasks = tasksOf(layout);
    const QString marker = dir.filePath(QStringLiteral("marker"));
    QProcessEnvironment env;
    env.insert(QStringLiteral("HETPLAN_MARKER"), marker);
    env.insert(QStringLiteral("ARGS_DIR"), dir.path());
    const hetplan::test::ScriptRun job = runScript(script, dir.path(), "7", tasks, env);
    QVERIFY2(!QFileInfo::exists(marker), "a path was run as shell code");
    QVERIFY2(job.exitCode == 0, qPrintable(job.out + job.err));
    // Every rank's worker got the paths as they are, each one word.
    for (const RankPlacement &r : layout) {
        QFile args(dir.filePath(QStringLiteral("rank-%1").arg(r.rank)));
        QVERIFY2(args.open(QIODevice::ReadOnly), qPrintable(args.fileName()));
        const QStringList words = QString::fromUtf8(args.readAll()).split(QChar(0));
        for (const auto &[option, value] :
             {std::pair{"--plan", plan}, {"--cluster", cluster}, {"--model", model}}) {
            const auto at = words.indexOf(QLatin1String(option));
            QVERIFY2(at >= 0 && at + 1 < words.size(), option);
            QCOMPARE(words[at + 1], value);
        }
        QCOMPARE(words[words.indexOf(QStringLiteral("--rank")) + 1], QString::number(r.rank));
    }
}

HETPLAN_TEST_APPLESS_MAIN(TestSlurmExport)
#include "tst_slurm_export.moc"
