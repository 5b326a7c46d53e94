#pragma once

// Running `hetplan-cli run` from a test: the CLI as a child process, its exit code and output.

#include "tests/test_programs.h"

#include <QElapsedTimer>
#include <QList>
#include <QProcess>
#include <QRegularExpression>
#include <QString>
#include <QStringList>
#include <QtTest>

#include <memory>
#include <sys/types.h>
#include <vector>

namespace hetplan::runtime::test {

// The runtime tests' data files. HETPLAN_TEST_SOURCE_DIR points at another checkout where the
// test programs run away from the tree they were built in (scripts/gpu-check.sh on a GPU host).
inline QString runtimeData(const char *name)
{
    const QString moved = qEnvironmentVariable("HETPLAN_TEST_SOURCE_DIR");
    const QString root = moved.isEmpty() ? QStringLiteral(HETPLAN_SOURCE_DIR) : moved;
    return root + QStringLiteral("/tests/runtime/data/") + QString::fromUtf8(name);
}

struct CliRun
{
    int exitCode = -1;
    QString out;
    QString err;
    double seconds = 0;
};

// Runs hetplan-cli with `args` to completion (at most `limitS` seconds).
inline CliRun runCli(const QStringList &args, int limitS = 280)
{
    QProcess process;
    QElapsedTimer clock;
    clock.start();
    process.start(hetplan::test::projectProgram("hetplan-cli"), args);
    if (!process.waitForFinished(limitS * 1000)) {
        process.kill();
        process.waitForFinished();
    }
    CliRun run;
    run.seconds = double(clock.elapsed()) / 1000.0;
    run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    run.out = QString::fromUtf8(process.readAllStandardOutput());
    run.err = QString::fromUtf8(process.readAllStandardError());
    return run;
}

// hetplan-cli started in the background and followed, for tests that act on a run in progress;
// killed, if still running, when it goes out of scope.
class BackgroundCli
{
public:
    explicit BackgroundCli(const QStringList &args)
    {
        m_process.setProcessChannelMode(QProcess::SeparateChannels);
        m_process.start(hetplan::test::projectProgram("hetplan-cli"), args);
    }
    ~BackgroundCli()
    {
        m_process.kill();
        m_process.waitForFinished();
    }
    BackgroundCli(const BackgroundCli &) = delete;
    BackgroundCli &operator=(const BackgroundCli &) = delete;

    // Reads the output until every one of `markers` has appeared (60 s at most); returns the
    // ranks' process ids the run announced.
    QList<pid_t> waitForOutput(const QStringList &markers)
    {
        const QRegularExpression pidLine(QStringLiteral("rank (\\d+) is process (\\d+)"));
        const auto seen = [&] {
            for (const QString &marker : markers)
                if (!m_out.contains(marker))
                    return false;
            return true;
        };
        QElapsedTimer clock;
        clock.start();
        while (clock.elapsed() < 60000 && !seen()) {
            m_process.waitForReadyRead(200);
            m_out += QString::fromUtf8(m_process.readAllStandardOutput());
        }
        QList<pid_t> pids;
        for (const auto &match : pidLine.globalMatch(m_out))
            pids.append(pid_t(match.captured(2).toLongLong()));
        return pids;
    }

    // Waits for the run to end; its exit code, output and how long it took from now.
    CliRun finish(int limitS)
    {
        QElapsedTimer clock;
        clock.start();
        CliRun run;
        if (!m_process.waitForFinished(limitS * 1000))
            return run;
        run.seconds = double(clock.elapsed()) / 1000.0;
        run.exitCode = m_process.exitStatus() == QProcess::NormalExit ? m_process.exitCode() : -1;
        run.out = m_out + QString::fromUtf8(m_process.readAllStandardOutput());
        run.err = QString::fromUtf8(m_process.readAllStandardError());
        return run;
    }
    qint64 pid() const { return m_process.processId(); }

private:
    QProcess m_process;
    QString m_out;
};

// hetplan-probe on `ranks` local ranks (loopback) meeting in the folder `rendezvous`, each with
// `args` after its rank, world and rendezvous; true when every rank exits 0 within 240 s.
inline bool probeLocalRanks(int ranks, const QString &rendezvous, const QStringList &args)
{
    std::vector<std::unique_ptr<QProcess>> processes;
    for (int r = 0; r < ranks; ++r) {
        auto p = std::make_unique<QProcess>();
        p->start(hetplan::test::projectProgram("hetplan-probe"),
                 QStringList{QStringLiteral("--rank"), QString::number(r),
                             QStringLiteral("--world"), QString::number(ranks),
                             QStringLiteral("--rendezvous"), rendezvous,
                             QStringLiteral("--listen-address"), QStringLiteral("127.0.0.1")}
                     + args);
        processes.push_back(std::move(p));
    }
    bool ok = true;
    for (auto &p : processes) {
        if (!p->waitForFinished(240 * 1000)) {
            p->kill();
            p->waitForFinished();
        }
        ok = ok && p->exitStatus() == QProcess::NormalExit && p->exitCode() == 0;
        if (!ok)
            qWarning("probe: %s", p->readAllStandardError().constData());
    }
    return ok;
}

} // namespace hetplan::runtime::test
