#pragma once

// Runs the hetplan-cli next to the test (tests/test_programs.h), for tests of its contract.

#include "tests/test_programs.h"

#include <QByteArray>
#include <QFile>
#include <QProcess>
#include <QStringList>
#include <QTemporaryDir>

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
    process.start(hetplan::test::projectProgram("hetplan-cli"), arguments);
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

// Writes `content` to `name` in `dir` and returns its path: an input file for a command.
inline QString writeFile(const QTemporaryDir &dir, const char *name, const QByteArray &content)
{
    const QString path = dir.filePath(QString::fromUtf8(name));
    QFile file(path);
    if (file.open(QIODevice::WriteOnly))
        file.write(content);
    return path;
}

} // namespace hetplan::test
