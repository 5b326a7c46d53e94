// Every command that reads a file, fed generated hostile files (docs/formats.md, "Rules every
// reader follows"): each is refused with exit code 2, the message names the file the person gave,
// and the command answers within a bound that grows with the input's size. Nothing here is a copied
// sample: each case is made from a rule (empty, not JSON, a wrong type, nesting, a huge array,
// control bytes…).
#include "tests/core/cli_runner.h"
#include "tests/test_registry.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <functional>
#include <sys/stat.h>

namespace {

using hetplan::test::cli;

// One hostile file: its name and how to make it at `path`.
struct HostileCase
{
    const char *name;
    std::function<void(const QString &path)> make;
};

void writeBytes(const QString &path, const QByteArray &bytes)
{
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size())
        qFatal("cannot write %s", qPrintable(path));
}

QByteArray repeated(const QByteArray &piece, int times)
{
    QByteArray out;
    out.reserve(piece.size() * times);
    for (int i = 0; i < times; ++i)
        out += piece;
    return out;
}

// `format` is the file's declared format; the cases are the same for every format.
std::vector<HostileCase> hostileCases(const QByteArray &format)
{
    const QByteArray head = "{\"format\": \"" + format + "\"";
    return {
        {"empty", [](const QString &p) { writeBytes(p, {}); }},
        {"not JSON", [](const QString &p) { writeBytes(p, "machines:\n  - A100 x8\n"); }},
        {"binary",
         [](const QString &p) {
             writeBytes(p, QByteArray("\x7f"
                                      "ELF\x02\x01\x01\0\0\xff\xfe",
                                      12));
         }},
        {"cut short", [head](const QString &p) { writeBytes(p, head + ", \"name\": \"x"); }},
        {"array at the top", [](const QString &p) { writeBytes(p, "[1, 2, 3]"); }},
        {"wrong format", [](const QString &p) { writeBytes(p, "{\"format\": \"something/9\"}"); }},
        {"format of another kind",
         [](const QString &p) { writeBytes(p, "{\"format\": \"hetplan.workload/1\"}"); }},
        {"repeated key",
         [head](const QString &p) { writeBytes(p, head + ", \"format\": \"x\"}"); }},
        {"deep nesting",
         [head](const QString &p) {
             writeBytes(p,
                        head + ", \"_x\": " + repeated("[", 100000) + repeated("]", 100000) + "}");
         }},
        {"1 MiB array of objects",
         [head](const QString &p) {
             writeBytes(p, head + ", \"_x\": [{}" + repeated(",{}", 350000) + "]}");
         }},
        {"huge number", [head](const QString &p) { writeBytes(p, head + ", \"_x\": 1e999999}"); }},
        {"control bytes in a string",
         [head](const QString &p) { writeBytes(p, head + ", \"name\": \"a\x1b[2Jb\"}"); }},
        {"invalid UTF-8",
         [head](const QString &p) { writeBytes(p, head + ", \"name\": \"\xff\xfe\"}"); }},
        {"a folder", [](const QString &p) { QDir().mkpath(p); }},
        {"missing", [](const QString &) {}},
        {"a loop of links",
         [](const QString &p) {
             QFile::link(p + QStringLiteral(".other"), p);
             QFile::link(p, p + QStringLiteral(".other"));
         }},
        {"a FIFO", [](const QString &p) { ::mkfifo(p.toLocal8Bit().constData(), 0600); }},
    };
}

// One command reading one file: the words, with FILE where the hostile file goes, and the
// format the file is meant to have.
struct Reader
{
    const char *name;
    QStringList words;
    QByteArray format;
};

QStringList words(std::initializer_list<const char *> list)
{
    QStringList out;
    for (const char *w : list)
        out << QString::fromUtf8(w);
    return out;
}

std::vector<Reader> readers()
{
    return {
        {"plan --cluster", words({"plan", "--model", "llama2-7b", "--cluster", "FILE"}),
         "hetplan.cluster/1"},
        {"plan --model", words({"plan", "--cluster", "case-study", "--model", "FILE"}),
         "hetplan.model/1"},
        {"plan --workload",
         words({"plan", "--cluster", "case-study", "--model", "llama2-7b", "--workload", "FILE"}),
         "hetplan.workload/1"},
        {"evaluate --plan", words({"evaluate", "--plan", "FILE"}), "hetplan.plan/1"},
        {"evaluate --measured", words({"evaluate", "--plan", "PLAN", "--measured", "FILE"}),
         "hetplan.measurement/1"},
        {"validate", words({"validate", "FILE"}), "hetplan.cluster/1"},
        {"import", words({"import", "FILE", "--out", "OUT"}), "hetplan.probe/1"},
        {"calibrate --measured",
         words({"calibrate", "--cluster", "case-study", "--measured", "FILE", "--out", "OUT"}),
         "hetplan.measurement/1"},
        {"export --hosts", words({"export", "--plan", "PLAN", "--slurm", "--hosts", "FILE"}),
         "hetplan.hosts/1"},
        {"launch --hosts", words({"launch", "--plan", "PLAN", "--hosts", "FILE"}),
         "hetplan.hosts/1"},
        {"run --plan", words({"run", "--plan", "FILE"}), "hetplan.plan/1"},
    };
}

} // namespace

class TestHostileInputs : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void everyReaderRefusesClearlyAndQuickly_data()
    {
        QTest::addColumn<QStringList>("words");
        QTest::addColumn<int>("caseIndex");
        QTest::addColumn<QByteArray>("format");
        for (const Reader &reader : readers()) {
            const std::vector<HostileCase> cases = hostileCases(reader.format);
            for (int i = 0; i < int(cases.size()); ++i)
                QTest::addRow("%s: %s", reader.name, cases[std::size_t(i)].name)
                    << reader.words << i << reader.format;
        }
    }

    void everyReaderRefusesClearlyAndQuickly()
    {
        QFETCH(QStringList, words);
        QFETCH(int, caseIndex);
        QFETCH(QByteArray, format);
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("hostile-input.json"));
        hostileCases(format)[std::size_t(caseIndex)].make(file);
        QStringList arguments;
        for (const QString &word : words)
            arguments << (word == QLatin1String("FILE")   ? file
                          : word == QLatin1String("OUT")  ? dir.filePath(QStringLiteral("out.json"))
                          : word == QLatin1String("PLAN") ? QStringLiteral(
                                HETPLAN_SOURCE_DIR "/resources/examples/"
                                                   "hetero-setting-3-hexiscale.plan.json")
                                                          : word);
        QFileInfo info(file);
        const qint64 bytes = info.isFile() ? info.size() : 0;
        QElapsedTimer timer;
        timer.start();
        const hetplan::test::CliRun run = cli(arguments);
        const qint64 elapsedMs = timer.elapsed();
        QVERIFY2(run.exitCode == 2, qPrintable(QStringLiteral("exit %1: %2")
                                                   .arg(run.exitCode)
                                                   .arg(QString::fromUtf8(run.err.left(600)))));
        QVERIFY2(run.err.contains("hostile-input.json"), run.err.left(600).constData());
        // Loose, for a loaded 2-core machine: 1 MiB reads in well under a second (make bench).
        const qint64 boundMs = 15000 + bytes / 100;
        QVERIFY2(elapsedMs < boundMs,
                 qPrintable(QString::number(elapsedMs) + QLatin1String(" ms")));
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("out.json"))));
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestHostileInputs)
#include "tst_hostile_inputs.moc"
