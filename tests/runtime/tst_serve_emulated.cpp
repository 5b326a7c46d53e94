// A serving plan launched on an emulated heterogeneous network: two namespace hosts with
// Debian's stock sshd (netns_fixture.h), their links shaped with tbf to 100 Mbit/s, CPU ranks
// standing for each host's devices (serve-emulated.cluster.json: A's two, B's one, each host its
// own type), Llama-2 7B at --scale 32. Replica 0 is one stage on A; replica 1 runs its first
// stage on B and its second on A, across the shaped links. One launched run calibrates the cluster
// (`calibrate` of its hetplan.serving-measurement/1); a held-out run of other arrivals (another
// seed) then has its p50 latency within 20 % of the calibrated simulator. Needs root (namespaces);
// skips, saying why, elsewhere.
#include "tests/runtime/live_launch.h"
#include "tests/runtime/netns_fixture.h"
#include "tests/runtime/served_check.h"
#include "tests/test_registry.h"

#include <QFileInfo>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace hetplan;
using namespace hetplan::test;
using namespace hetplan::runtime::test;

namespace {

constexpr int kHosts = 2; // A and B
constexpr int kRequests = 30;

// The relative error of the p50 latency that `cluster` simulates for the run measured in
// `measurement`, as `evaluate --measured` prints it ("latency p50  SIM  MEASURED  +12 %"); NaN
// when it prints none.
double p50Error(const QString &cluster, const QString &measurement)
{
    const CliRun evaluated
        = runCli({QStringLiteral("evaluate"), QStringLiteral("--plan"),
                  runtimeData("serve-emulated.plan.json"), QStringLiteral("--cluster"), cluster,
                  QStringLiteral("--measured"), measurement});
    for (const QString &line : evaluated.out.split(QLatin1Char('\n')))
        if (line.startsWith(QLatin1String("latency p50 "))) {
            qInfo("%s: %s", qPrintable(QFileInfo(cluster).fileName()), qPrintable(line));
            // The error is the line's last "N %"; a "*" (outside the interval) may follow it.
            const QRegularExpression percent(QStringLiteral("([-+]?[0-9]+(?:\\.[0-9]+)?) %"));
            QString error;
            for (const QRegularExpressionMatch &match : percent.globalMatch(line))
                error = match.captured(1);
            return error.isEmpty() ? std::nan("") : std::abs(error.toDouble()) / 100;
        }
    qWarning("%s", qPrintable(evaluated.out + evaluated.err));
    return std::nan("");
}

} // namespace

class TestServeEmulated : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void calibratedSimulatorPredictsAHeldOutRun();

private:
    // Launches kRequests of the plan's stream with `seed`; the measurement's folder, or empty.
    QString launch(int seed);

    NamespaceHosts m_hosts;
    QTemporaryDir m_dir;
    QString m_hostsFile;
};

void TestServeEmulated::initTestCase()
{
    if (QString why = m_hosts.create(kHosts); !why.isEmpty())
        QSKIP(qPrintable(QStringLiteral("network namespace hosts: ") + why));
    for (int i = 0; i < kHosts; ++i)
        if (QString why = m_hosts.shape(i, QStringLiteral("100mbit")); !why.isEmpty())
            QSKIP(qPrintable(QStringLiteral("network namespace hosts: shaping: ") + why));
    QVERIFY(m_dir.isValid());
    m_hostsFile = m_hosts.writeHosts({QStringLiteral("A"), QStringLiteral("B")}, m_dir.path(),
                                     projectProgram("hetplan-worker"));
    QVERIFY(!m_hostsFile.isEmpty());
}

QString TestServeEmulated::launch(int seed)
{
    const QString out = m_dir.filePath(QStringLiteral("seed-%1").arg(seed));
    LiveLaunch job;
    job.start(QStringList{QStringLiteral("launch"), QStringLiteral("--plan"),
                          runtimeData("serve-emulated.plan.json"), QStringLiteral("--cluster"),
                          runtimeData("serve-emulated.cluster.json"), QStringLiteral("--scale"),
                          QStringLiteral("32"), QStringLiteral("--requests"),
                          QString::number(kRequests), QStringLiteral("--seed"),
                          QString::number(seed), QStringLiteral("--out"), out}
              + testHostOptions(m_hostsFile, m_dir.filePath(QStringLiteral("known_hosts"))));
    const int code = job.finish(120000);
    if (code != 0) {
        qWarning("launch with seed %d: exit %d\n%s%s", seed, code, qPrintable(job.out),
                 qPrintable(job.err));
        return {};
    }
    return out;
}

void TestServeEmulated::calibratedSimulatorPredictsAHeldOutRun()
{
    const QString fitted = launch(1);
    QVERIFY(!fitted.isEmpty());
    const QString calibrated = m_dir.filePath(QStringLiteral("calibrated.cluster.json"));
    const CliRun calibration
        = runCli({QStringLiteral("calibrate"), QStringLiteral("--cluster"),
                  runtimeData("serve-emulated.cluster.json"), QStringLiteral("--measured"),
                  fitted + QStringLiteral("/serving-measurement.json"), QStringLiteral("--plan"),
                  runtimeData("serve-emulated.plan.json"), QStringLiteral("--out"), calibrated});
    QVERIFY2(calibration.exitCode == 0, qPrintable(calibration.out + calibration.err));
    qInfo("%s", qPrintable(calibration.out.section(QStringLiteral("Residual"), 0, 0)));
    QVERIFY2(calibration.out.contains(QLatin1String("membw_GBps")), qPrintable(calibration.out));

    const QString heldOut = launch(2);
    QVERIFY(!heldOut.isEmpty());
    const std::vector<ServedRequest> served = servedRecords(heldOut);
    verifyAccounted(served, kRequests);
    const QString measurement = heldOut + QStringLiteral("/serving-measurement.json");
    const double before = p50Error(runtimeData("serve-emulated.cluster.json"), measurement);
    const double after = p50Error(calibrated, measurement);
    qInfo("held-out run: p50 latency error %.1f %% before calibration, %.1f %% after", before * 100,
          after * 100);
    QVERIFY2(after <= 0.2, qPrintable(QString::number(after)));
    QVERIFY2(before > after, qPrintable(QString::number(before)));
    const QStringList left = m_hosts.jobProcessesLeft();
    QVERIFY2(left.isEmpty(), qPrintable(left.join(QStringLiteral(", "))));
}

HETPLAN_TEST_GUILESS_MAIN(TestServeEmulated)
#include "tst_serve_emulated.moc"
