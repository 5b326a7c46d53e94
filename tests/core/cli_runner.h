#pragma once

// Runs the hetplan-cli binary the build names in HETPLAN_CLI, for tests of its contract.

#include <QByteArray>
#include <QProcess>
#include <QStringList>

namespace hetplan::test {

struct CliRun
{
    int exitCode = -1; // −1: crashed or did not finish in two minutes
    QByteArray out;
    QByteArray err;
};

inline CliRun cli(const QStringList &arguments)
{
    QProcess process;
    process.start(QStringLiteral(HETPLAN_CLI), arguments);
    if (!process.waitForFinished(120000)) {
        process.kill();
        process.waitForFinished();
        return {};
    }
    return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
            process.readAllStandardOutput(), process.readAllStandardError()};
}

} // namespace hetplan::test
