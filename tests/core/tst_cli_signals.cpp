// SIGTERM / SIGINT stop any planner promptly, even inside METIS (which installs its own
// SIGTERM handler around its calls), and the best plan so far is kept.
#include "tests/test_programs.h"
#include "tests/test_registry.h"

#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>

namespace {

struct Stopped
{
    int exitCode = -1; // -1: killed by the signal itself, or still running after 60 s
    qint64 afterSignalMs = -1;
    QByteArray plan;
    QByteArray err;
};

// Starts a search that would run for many minutes on the 240-GPU example, lets it get into
// METIS, sends `signal` and waits.
Stopped stopPlanning(int signal, const QString &out)
{
    QProcess process;
    process.start(hetplan::test::projectProgram("hetplan-cli"),
                  {QStringLiteral("plan"), QStringLiteral("--cluster"),
                   QStringLiteral("large-cluster"), QStringLiteral("--model"),
                   QStringLiteral("llama2-70b"), QStringLiteral("--knob"),
                   QStringLiteral("iterations=100000"), QStringLiteral("--out"), out});
    Stopped result;
    if (!process.waitForStarted())
        return result;
    QTest::qWait(2500);
    ::kill(pid_t(process.processId()), signal);
    QElapsedTimer timer;
    timer.start();
    if (!process.waitForFinished(60000)) {
        process.kill();
        process.waitForFinished();
        return result;
    }
    result.afterSignalMs = timer.elapsed();
    if (process.exitStatus() == QProcess::NormalExit)
        result.exitCode = process.exitCode();
    result.err = process.readAllStandardError();
    QFile file(out);
    if (file.open(QIODevice::ReadOnly))
        result.plan = file.readAll();
    return result;
}

} // namespace

class TestCliSignals : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void stopKeepsTheBestPlan_data()
    {
        QTest::addColumn<int>("signal");
        QTest::addColumn<int>("exitCode");
        QTest::newRow("SIGTERM") << int(SIGTERM) << 143;
        QTest::newRow("SIGINT") << int(SIGINT) << 130;
    }

    void stopKeepsTheBestPlan()
    {
        QFETCH(int, signal);
        QFETCH(int, exitCode);
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("plan.json"));
        const Stopped stopped = stopPlanning(signal, out);
        QCOMPARE(stopped.exitCode, exitCode);
        // A hang check, not a timing test: the search itself would take many minutes.
        QVERIFY2(stopped.afterSignalMs >= 0 && stopped.afterSignalMs < 10000,
                 qPrintable(QString::number(stopped.afterSignalMs)));
        const QJsonObject plan = QJsonDocument::fromJson(stopped.plan).object();
        QCOMPARE(plan[QStringLiteral("format")].toString(), QStringLiteral("hetplan.plan/1"));
        QVERIFY(!plan[QStringLiteral("pipelines")].toArray().isEmpty());
        QVERIFY2(stopped.err.contains("best plan found so far"), stopped.err.constData());
    }

    void timeLimitReturnsTheBestPlan()
    {
        QProcess process;
        QElapsedTimer timer;
        timer.start();
        process.start(hetplan::test::projectProgram("hetplan-cli"),
                      {QStringLiteral("plan"), QStringLiteral("--cluster"),
                       QStringLiteral("large-cluster"), QStringLiteral("--model"),
                       QStringLiteral("llama2-70b"), QStringLiteral("--knob"),
                       QStringLiteral("iterations=100000"), QStringLiteral("--time-limit"),
                       QStringLiteral("2"), QStringLiteral("--json")});
        QVERIFY(process.waitForFinished(60000));
        QCOMPARE(process.exitCode(), 0);
        QVERIFY(timer.elapsed() < 30000);
        const QJsonObject json = QJsonDocument::fromJson(process.readAllStandardOutput()).object();
        QCOMPARE(json[QStringLiteral("stopped_early")].toBool(), true);
        QCOMPARE(json[QStringLiteral("time_limit_reached")].toBool(), true);
        QVERIFY(process.readAllStandardError().contains("time limit"));
    }
};

HETPLAN_TEST_GUILESS_MAIN(TestCliSignals)
#include "tst_cli_signals.moc"
