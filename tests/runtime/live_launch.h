#pragma once

// A `hetplan-cli launch` running in the background for the launcher's tests: its output as it
// arrives, with when the phases and the first rank line came.

#include "tests/runtime/run_test_support.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QString>
#include <QStringList>

namespace hetplan::test {

// The launch's output as it arrives, with when the first rank line came.
struct LiveLaunch
{
    QProcess process;
    QElapsedTimer clock;
    QString out;
    QString err;
    qint64 firstRankOutputMs = -1;
    qint64 uploadingMs = -1; // preflight done, files going up
    qint64 runningMs = -1;   // ranks starting

    void start(const QStringList &args)
    {
        clock.start();
        process.start(projectProgram("hetplan-cli"), args);
    }
    void read()
    {
        out += QString::fromUtf8(process.readAllStandardOutput());
        err += QString::fromUtf8(process.readAllStandardError());
        for (auto [mark, text] :
             {std::pair{&firstRankOutputMs, "[rank "}, std::pair{&uploadingMs, "launch: uploading"},
              std::pair{&runningMs, "launch: running"}})
            if (*mark < 0 && out.contains(QLatin1String(text)))
                *mark = clock.elapsed();
    }
    // Waits until `text` appears on stdout or the process ends (at most `limitMs`).
    bool waitFor(const QString &text, int limitMs)
    {
        while (clock.elapsed() < limitMs) {
            process.waitForReadyRead(50);
            read();
            if (out.contains(text))
                return true;
            if (process.state() == QProcess::NotRunning)
                return false;
        }
        return false;
    }
    int finish(int limitMs)
    {
        while (process.state() != QProcess::NotRunning && clock.elapsed() < limitMs) {
            process.waitForFinished(50);
            read();
        }
        if (process.state() != QProcess::NotRunning) {
            process.kill();
            process.waitForFinished();
            return -1;
        }
        read();
        return process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    }
};

// The options every test launch on namespace hosts takes: the hosts file, a known-hosts file
// of its own that learns the hosts' keys, short timeouts (a rank's transfers 10 s).
inline QStringList testHostOptions(const QString &hostsFile, const QString &knownHosts)
{
    return {QStringLiteral("--hosts"),
            hostsFile,
            QStringLiteral("--known-hosts"),
            knownHosts,
            QStringLiteral("--accept-new-host-keys"),
            QStringLiteral("--connect-timeout-s"),
            QStringLiteral("5"),
            QStringLiteral("--timeout-s"),
            QStringLiteral("10")};
}

} // namespace hetplan::test
