// `hetplan-cli export --slurm` starts the same job as `hetplan-cli run`: its sbatch script, run
// against a stand-in srun that starts every task at once with its Slurm variables, trains the
// plan with real hetplan-worker processes (Gloo on loopback) to the loss `run` reaches.
#include "core/io/files.h"
#include "core/io/measurement_json.h"
#include "core/plan/rank_layout.h"
#include "tests/core/export_test_support.h"
#include "tests/core/slurm_test_support.h"
#include "tests/runtime/run_test_support.h"
#include "tests/test_registry.h"

#include <QFileInfo>
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

} // namespace

class TestSlurmExport : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void scriptTrainsLikeRun();
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
    QStringList tasks;
    for (const RankPlacement &r : layout)
        tasks << QStringLiteral("%1:%2").arg(QString::fromStdString(r.host)).arg(r.localRank);
    QProcessEnvironment env;
    env.insert(QStringLiteral("PATH"),
               QFileInfo(hetplan::test::projectProgram("hetplan-worker")).absolutePath()
                   + QLatin1Char(':') + qEnvironmentVariable("PATH"));
    env.insert(QStringLiteral("SLURM_SUBMIT_DIR"), dir.path());
    env.insert(QStringLiteral("SLURM_JOB_ID"), QStringLiteral("42"));
    env.insert(QStringLiteral("HETPLAN_LISTEN_ADDRESS"), QStringLiteral("127.0.0.1"));
    QFile file(script);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const hetplan::test::ScriptRun job
        = hetplan::test::runSbatchScript(file.readAll().toStdString(), tasks, env);
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

HETPLAN_TEST_APPLESS_MAIN(TestSlurmExport)
#include "tst_slurm_export.moc"
