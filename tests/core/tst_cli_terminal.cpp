// What hetplan-cli prints never carries a control character from a file (or a remote host):
// an escape sequence in a machine name would otherwise rewrite the terminal. Data written on
// request to standard output (`--out -`) passes unchanged.
#include "core/base/utf8.h"
#include "tests/core/cli_runner.h"
#include "tests/test_registry.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

namespace {

using hetplan::test::cli;

const QByteArray kReplacement = "\xEF\xBF\xBD"; // U+FFFD

// ESC (a window title, clear screen), BEL, CSI as a C1 character, DEL and a carriage return.
const char *const kHostileName = "A\\u001b]0;pwned\\u0007\\u001b[2J\\u009b31m\\u007f\\r";

// The control characters a terminal acts on, as they would reach it.
bool hasControl(const QByteArray &bytes)
{
    for (qsizetype i = 0; i < bytes.size(); ++i) {
        const auto c = static_cast<unsigned char>(bytes[i]);
        if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7F)
            return true;
        if (c == 0xC2 && i + 1 < bytes.size() && static_cast<unsigned char>(bytes[i + 1]) < 0xA0)
            return true;
    }
    return false;
}

QString writeFile(const QString &path, const QByteArray &content)
{
    QFile file(path);
    if (file.open(QIODevice::WriteOnly))
        file.write(content);
    return path;
}

// Two machines named `name` + "1" and `name` + "2" (JSON text); the link's first end is
// `linkName` + "1".
QByteArray cluster(const QByteArray &name, const QByteArray &linkName)
{
    const QByteArray intra
        = R"("intra": {"kind": "nvlink", "bandwidth_GBps": 200, "latency_us": 5})";
    return R"({"format": "hetplan.cluster/1", "name": "t", "machines": [
        {"name": ")"
           + name + R"(1", "gpu": "A800-80G", "count": 2, )" + intra + R"(},
        {"name": ")"
           + name + R"(2", "gpu": "A800-80G", "count": 2, )" + intra + R"(}],
        "links": [{"a": ")"
           + linkName + R"(1", "b": ")" + name + R"(2", "bandwidth_GBps": 1, "latency_us": 50}]})";
}

} // namespace

class TestCliTerminal : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void controlCharactersAreReplaced()
    {
        const std::string text = hetplan::terminalText("a\x1b[2Jb\tc\n\xC2\x9B\x7f\xC3\xA9\xFF");
        QCOMPARE(QByteArray::fromStdString(text), QByteArray("a") + kReplacement + "[2Jb\tc\n"
                                                      + kReplacement + kReplacement + "\xC3\xA9"
                                                      + kReplacement);
    }

    void namesFromFilesReachTheTerminalWithoutControls()
    {
        QTemporaryDir dir;
        const QString file = writeFile(dir.filePath(QStringLiteral("c.json")),
                                       cluster(kHostileName, kHostileName));
        const auto plan
            = cli({"plan", "--model", "llama2-7b", "--cost-model", "hexiscale-paper", "--cluster"},
                  {file});
        QVERIFY2(plan.exitCode == 0, plan.err.constData());
        QVERIFY2(plan.out.contains("A" + kReplacement + "]0;pwned" + kReplacement + kReplacement
                                   + "[2J" + kReplacement + "31m"),
                 plan.out.constData());
        QVERIFY(!hasControl(plan.out));
        QVERIFY(!hasControl(plan.err));
        // An error quoting the name: the link names a machine that is not there.
        const QString broken
            = writeFile(dir.filePath(QStringLiteral("broken.json")), cluster("A", kHostileName));
        // (machines A1 and A2; the link's end is the hostile name)
        const auto refused = cli({"plan", "--model", "llama2-7b", "--cluster"}, {broken});
        QCOMPARE(refused.exitCode, 2);
        QVERIFY2(refused.err.contains("pwned"), refused.err.constData());
        QVERIFY(!hasControl(refused.err));
    }

    void dataOnStandardOutputIsUnchanged()
    {
        QTemporaryDir dir;
        const QString folder = dir.filePath(QString::fromUtf8("plans\x1b[1m"));
        QVERIFY(QDir().mkpath(folder));
        const QString plan = folder + QStringLiteral("/p.json");
        QVERIFY(QFile::copy(QStringLiteral(HETPLAN_TEST_DATA_DIR "/good/case-study-2pp.plan.json"),
                            plan));
        const auto script = cli({"export", "--slurm", "--out", "-", "--plan"}, {plan});
        QVERIFY2(script.exitCode == 0, script.err.constData());
        QVERIFY2(script.out.contains(plan.toUtf8()), script.out.constData());
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestCliTerminal)
#include "tst_cli_terminal.moc"
