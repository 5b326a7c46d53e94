#pragma once

// Running an sbatch script of `hetplan-cli export --slurm` without Slurm: a stand-in srun on
// PATH starts the step's command once per task, all at once, each with the variables Slurm
// gives a task (SLURMD_NODENAME, SLURM_LOCALID), and exits with the first failure's status.

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>

#include <string>

namespace hetplan::test {

struct ScriptRun
{
    int exitCode = -1; // -1: crashed or still running after two minutes
    QString out;
    QString err;
    QString srunArgs; // the options the script gave srun, and its command
};

// `tasks`: "node:localid" per task; `env` is added to this process's environment.
inline ScriptRun runSbatchScript(const std::string &script, const QStringList &tasks,
                                 const QProcessEnvironment &env = {})
{
    QTemporaryDir dir;
    QFile srun(dir.filePath(QStringLiteral("srun")));
    srun.open(QIODevice::WriteOnly);
    srun.write("#!/bin/bash\necho \"$@\" > \"$FAKE_SRUN_ARGS\"\n"
               "while [[ $1 == --* ]]; do shift; done\npids=()\n"
               "for task in $FAKE_SRUN_TASKS; do\n"
               "  SLURMD_NODENAME=${task%%:*} SLURM_LOCALID=${task##*:} \"$@\" & pids+=($!)\n"
               "done\nstatus=0\nfor p in \"${pids[@]}\"; do wait \"$p\" || status=$?; done\n"
               "exit $status\n");
    srun.close();
    srun.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    QFile file(dir.filePath(QStringLiteral("job.sh")));
    file.open(QIODevice::WriteOnly);
    file.write(script.data(), qint64(script.size()));
    file.close();
    QProcessEnvironment all = QProcessEnvironment::systemEnvironment();
    all.remove(QStringLiteral("MASTER_PORT"));
    all.insert(env);
    all.insert(QStringLiteral("PATH"),
               dir.path() + QLatin1Char(':') + all.value(QStringLiteral("PATH")));
    all.insert(QStringLiteral("FAKE_SRUN_TASKS"), tasks.join(QLatin1Char(' ')));
    all.insert(QStringLiteral("FAKE_SRUN_ARGS"), dir.filePath(QStringLiteral("args")));
    QProcess bash;
    bash.setProcessEnvironment(all);
    bash.start(QStringLiteral("bash"), {file.fileName()});
    if (!bash.waitForFinished(120000)) {
        bash.kill();
        bash.waitForFinished();
        return {};
    }
    QFile args(dir.filePath(QStringLiteral("args")));
    args.open(QIODevice::ReadOnly);
    return {bash.exitStatus() == QProcess::NormalExit ? bash.exitCode() : -1,
            QString::fromUtf8(bash.readAllStandardOutput()),
            QString::fromUtf8(bash.readAllStandardError()),
            QString::fromUtf8(args.readAll()).trimmed()};
}

} // namespace hetplan::test
