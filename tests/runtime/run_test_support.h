#pragma once

// Running `hetplan-cli run` from a test: the CLI as a child process, its exit code and output.

#include "tests/test_programs.h"

#include <QProcess>
#include <QString>
#include <QStringList>
#include <QtTest>

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

} // namespace hetplan::runtime::test
