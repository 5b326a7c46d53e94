// `hetplan-cli launch --preflight-only` across three namespace hosts whose links are shaped
// with tbf at two rates (netns_fixture.h), A and B at half the 200 Mbit/s the cluster file claims
// for them (the model assumes half of a claim over TCP) and C at a tenth of its claimed
// 400 Mbit/s: every check's achieved rate is within 15 % of its bottleneck's shaped rate,
// the checks through C are "slow" with both figures and fold into the cluster as measured
// pairs; an agent stopped with SIGSTOP is reported "hung", naming its host; nothing of the job
// is left on any host either way. Needs root (namespaces); skips, saying why, elsewhere.
#include "core/io/files.h"
#include "core/io/formats.h"
#include "core/launch/preflight_fold.h"
#include "tests/runtime/netns_fixture.h"
#include "tests/runtime/run_test_support.h"
#include "tests/test_registry.h"

#include <QDir>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>

using namespace hetplan;
using namespace hetplan::test;
using namespace hetplan::runtime::test;

namespace {

constexpr int kHosts = 3;
const char *const kMachines[kHosts] = {"A", "B", "C"};
// Each host's link, both ways; the cluster file claims 200, 200 and 400 Mbit/s.
const char *const kRates[kHosts] = {"100mbit", "100mbit", "40mbit"};
constexpr double kRateBitsPerS[kHosts] = {100e6, 100e6, 40e6};
constexpr const char *kHangGuardS = "6";

int hostOfMachine(const QString &gpu)
{
    for (int i = 0; i < kHosts; ++i)
        if (gpu.startsWith(QLatin1String(kMachines[i]) + QLatin1Char(':')))
            return i;
    return -1;
}

} // namespace

class TestPreflightEmulated : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void measuresShapedRatesAndFlagsTheSlowLink();
    void stoppedAgentIsHung();

private:
    QString hostsFile() const;
    QStringList preflightArgs() const;
    // The job's processes and folders gone from every host.
    void expectNothingLeft(const char *when);

    NamespaceHosts m_hosts;
    QTemporaryDir m_dir;
};

void TestPreflightEmulated::initTestCase()
{
    if (QString why = m_hosts.create(kHosts); !why.isEmpty())
        QSKIP(qPrintable(QStringLiteral("network namespace hosts: ") + why));
    for (int i = 0; i < kHosts; ++i)
        if (QString why = m_hosts.shape(i, QLatin1String(kRates[i])); !why.isEmpty())
            QSKIP(qPrintable(QStringLiteral("network namespace hosts: shaping: ") + why));
    QVERIFY(m_dir.isValid());
}

QString TestPreflightEmulated::hostsFile() const
{
    QJsonArray entries;
    for (int i = 0; i < kHosts; ++i)
        entries.append(const_cast<NamespaceHosts &>(m_hosts).hostEntry(
            i, QString::fromLatin1(kMachines[i]), m_dir.filePath(QStringLiteral("host-%1").arg(i)),
            projectProgram("hetplan-worker")));
    return writeHostsFile(m_dir.filePath(QStringLiteral("hosts.json")), entries);
}

QStringList TestPreflightEmulated::preflightArgs() const
{
    return {QStringLiteral("launch"),
            QStringLiteral("--plan"),
            runtimeData("preflight.plan.json"),
            QStringLiteral("--cluster"),
            runtimeData("preflight.cluster.json"),
            QStringLiteral("--model"),
            runtimeData("preflight.model.json"),
            QStringLiteral("--hosts"),
            hostsFile(),
            QStringLiteral("--known-hosts"),
            m_dir.filePath(QStringLiteral("known_hosts")),
            QStringLiteral("--accept-new-host-keys"),
            QStringLiteral("--connect-timeout-s"),
            QStringLiteral("5"),
            QStringLiteral("--preflight-only"),
            QStringLiteral("--json"),
            QStringLiteral("--preflight-s"),
            QStringLiteral("1"),
            QStringLiteral("--hang-guard-s"),
            QString::fromLatin1(kHangGuardS)};
}

void TestPreflightEmulated::expectNothingLeft(const char *when)
{
    const QStringList left = m_hosts.jobProcessesLeft();
    QVERIFY2(left.isEmpty(),
             qPrintable(QStringLiteral("%1: processes left: ").arg(QLatin1String(when))
                        + left.join(QStringLiteral(", "))));
    for (int i = 0; i < kHosts; ++i) {
        const QStringList folders = QDir(m_dir.filePath(QStringLiteral("host-%1").arg(i)))
                                        .entryList(QDir::NoDotAndDotDot | QDir::AllEntries);
        QVERIFY2(
            folders.isEmpty(),
            qPrintable(
                QStringLiteral("%1: job folder left on host %2: ").arg(QLatin1String(when)).arg(i)
                + folders.join(QStringLiteral(", "))));
    }
}

// One pre-flight: the hop A↔B (100 Mbit/s) and the gradient groups A–C and B–C (C's 40 Mbit/s).
void TestPreflightEmulated::measuresShapedRatesAndFlagsTheSlowLink()
{
    const QString folded = m_dir.filePath(QStringLiteral("folded.cluster.json"));
    const CliRun run = runCli(preflightArgs() << QStringLiteral("--preflight-out") << folded, 120);
    // Slow checks and nothing hung or failed: exit 3.
    QVERIFY2(run.exitCode == 3,
             qPrintable(QStringLiteral("exit %1\n").arg(run.exitCode) + run.out + run.err));
    const QJsonObject report = QJsonDocument::fromJson(run.out.toUtf8()).object();
    QCOMPARE(report[QStringLiteral("format")].toString(), QStringLiteral("hetplan.preflight/1"));
    qInfo("pre-flight of a 3-host plan: %.1f s (CLI %.1f s)",
          report[QStringLiteral("wall_s")].toDouble(), run.seconds);
    const QJsonArray checks = report[QStringLiteral("checks")].toArray();
    QCOMPARE(checks.size(), 4);
    for (const QJsonValue &value : checks) {
        const QJsonObject check = value.toObject();
        double shapedBytesPerS = 1e30;
        bool throughC = false;
        for (const QJsonValue &member : check[QStringLiteral("members")].toArray()) {
            const int host = hostOfMachine(member.toObject()[QStringLiteral("gpu")].toString());
            QVERIFY(host >= 0);
            shapedBytesPerS = std::min(shapedBytesPerS, kRateBitsPerS[host] / 8);
            throughC = throughC || host == 2;
        }
        const double achieved = check[QStringLiteral("achieved_GBps")].toDouble() * 1e9;
        const double assumed = check[QStringLiteral("assumed_GBps")].toDouble() * 1e9;
        const QString what = QString::fromUtf8(QJsonDocument(check).toJson(QJsonDocument::Compact));
        qInfo("%s: achieved %.2f MB/s, shaped %.2f MB/s, assumed %.2f MB/s, %s",
              qPrintable(check[QStringLiteral("group")].toString()), achieved / 1e6,
              shapedBytesPerS / 1e6, assumed / 1e6,
              qPrintable(check[QStringLiteral("verdict")].toString()));
        QVERIFY2(qAbs(achieved - shapedBytesPerS) <= 0.15 * shapedBytesPerS, qPrintable(what));
        QVERIFY2(check[QStringLiteral("latency_us")].toDouble() > 0, qPrintable(what));
        // nccl-tests' pair: busbw = algbw × 2(n−1)/n for an all-reduce, equal for a hop.
        const double n = check[QStringLiteral("members")].toArray().size();
        const double factor = check.contains(QStringLiteral("from")) ? 1.0 : 2 * (n - 1) / n;
        const double algbw = check[QStringLiteral("algbw_GBps")].toDouble() * 1e9;
        QVERIFY2(algbw > 0 && qAbs(factor * algbw - achieved) <= 1e-6 * achieved, qPrintable(what));
        // The backend's transport, as the run will use it: Gloo's TCP.
        QCOMPARE(check[QStringLiteral("transport")].toString(), QStringLiteral("gloo tcp"));
        if (throughC) {
            QCOMPARE(check[QStringLiteral("verdict")].toString(), QStringLiteral("slow"));
            QVERIFY2(check[QStringLiteral("slow_by")].toDouble() > 2, qPrintable(what));
            QVERIFY2(assumed > 2 * achieved, qPrintable(what));
        } else {
            QCOMPARE(check[QStringLiteral("verdict")].toString(), QStringLiteral("ok"));
        }
    }
    auto text = readTextFile(folded.toStdString());
    QVERIFY(text.ok());
    auto cluster = parseCluster(*text, "folded.cluster.json");
    QVERIFY2(cluster.ok(), cluster.ok() ? "" : cluster.error().message.c_str());
    QCOMPARE(cluster->pairOverrides.size(), std::size_t(3)); // A–B, A–C, B–C
    for (const PairOverride &pair : cluster->pairOverrides) {
        const bool throughC = pair.a == "C:0" || pair.b == "C:0";
        const double shapedGBps = kRateBitsPerS[throughC ? 2 : 0] / 8 / 1e9;
        QVERIFY2(qAbs(pair.bandwidthGBps - shapedGBps) <= 0.15 * shapedGBps,
                 qPrintable(QString::fromStdString(pair.a + "-" + pair.b)));
    }
    QCOMPARE(cluster->origin.figures.size(), std::size_t(6));
    for (const MeasuredFigure &figure : cluster->origin.figures)
        QCOMPARE(figure.source, std::string(kPreflightSource));
    expectNothingLeft("after the pre-flight");
}

// B's agent stopped as soon as it exists: the checks with B's member are hung, naming B's host,
// the job's error names it too, and B's stopped agent is killed with the job folder.
void TestPreflightEmulated::stoppedAgentIsHung()
{
    QProcess cli;
    QElapsedTimer clock;
    clock.start();
    cli.start(projectProgram("hetplan-cli"), preflightArgs());
    int agent = -1;
    while (agent < 0 && clock.elapsed() < 30000 && cli.state() != QProcess::NotRunning) {
        for (int pid : m_hosts.pids(1))
            if (processCommandLine(pid).endsWith(QLatin1String("hetplan-worker agent")))
                agent = pid;
        if (agent < 0)
            QThread::msleep(20);
    }
    QVERIFY2(agent > 0, "B's agent never started");
    QCOMPARE(::kill(agent, SIGSTOP), 0);
    const qint64 stoppedMs = clock.elapsed();
    if (!cli.waitForFinished(60000)) {
        cli.kill();
        cli.waitForFinished();
        QFAIL("the pre-flight did not end after B's agent was stopped");
    }
    const double afterStopS = double(clock.elapsed() - stoppedMs) / 1000;
    qInfo("reported %.1f s after B's agent was stopped (hang guard %s s)", afterStopS, kHangGuardS);
    const QString out = QString::fromUtf8(cli.readAllStandardOutput());
    const QString err = QString::fromUtf8(cli.readAllStandardError());
    QVERIFY2(cli.exitStatus() == QProcess::NormalExit && cli.exitCode() == 4,
             qPrintable(QStringLiteral("exit %1\n").arg(cli.exitCode()) + out + err));
    const QJsonObject report = QJsonDocument::fromJson(out.toUtf8()).object();
    QVERIFY2(report[QStringLiteral("job_error")].toString().contains(m_hosts.address(1)),
             qPrintable(out));
    int hungWithB = 0;
    for (const QJsonValue &value : report[QStringLiteral("checks")].toArray()) {
        const QJsonObject check = value.toObject();
        qInfo("%s: hung: %s", qPrintable(check[QStringLiteral("group")].toString()),
              qPrintable(check[QStringLiteral("detail")].toString()));
        QCOMPARE(check[QStringLiteral("verdict")].toString(), QStringLiteral("hung"));
        for (const QJsonValue &member : check[QStringLiteral("members")].toArray())
            if (member.toObject()[QStringLiteral("gpu")].toString() == QLatin1String("B:0")) {
                const QString detail = check[QStringLiteral("detail")].toString();
                QVERIFY2(detail.contains(QStringLiteral("B:0"))
                             && detail.contains(m_hosts.address(1)),
                         qPrintable(detail));
                ++hungWithB;
            }
    }
    QCOMPARE(hungWithB, 3); // the hop both ways and the gradient group B–C
    expectNothingLeft("after the hung pre-flight");
}

HETPLAN_TEST_GUILESS_MAIN(TestPreflightEmulated)
#include "tst_preflight_emulated.moc"
