#pragma once

// Runs the hetplan-cli binary the build names in HETPLAN_CLI, for tests of its contract.

#include <QByteArray>
#include <QProcess>
#include <QStringList>

#include <initializer_list>

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

// cli({"plan", "--cluster", "case-study"}, {path}): literal words, then computed ones.
inline CliRun cli(std::initializer_list<const char *> words, const QStringList &more = {})
{
    QStringList arguments;
    for (const char *word : words)
        arguments << QString::fromUtf8(word);
    return cli(arguments + more);
}

} // namespace hetplan::test
