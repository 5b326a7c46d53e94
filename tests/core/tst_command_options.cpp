// The one option reader and writer (core/base/command_options.h) and the worker's and the
// probe's command lines built on it (core/launch): what a person may type, the errors they see,
// and that every command line written reads back to the same value.
#include "core/base/command_options.h"
#include "core/launch/probe_command.h"
#include "core/launch/worker_command.h"
#include "tests/test_registry.h"

#include <QtTest>

using namespace hetplan;

namespace {

const CommandOptions::Spec kSpec{{"plan", "seed", "host"}, {"json", "help"}, {"host"}};

std::vector<std::string> tail(const std::vector<std::string> &argv)
{
    return {argv.begin() + 1, argv.end()};
}

} // namespace

class TestCommandOptions : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void readsBothSpellingsFlagsAndRepeats()
    {
        auto o = CommandOptions::parse(
            {"--plan=p.json", "--seed", "7", "--json", "--host", "a", "--host=b", "-h"}, kSpec);
        QVERIFY2(o, o ? "" : o.error().message.c_str());
        QCOMPARE(o->value("plan"), std::optional<std::string>("p.json"));
        QCOMPARE(o->integer("seed", 0, 10).value(), std::optional<int>(7));
        QVERIFY(o->has("json"));
        QVERIFY(o->has("help"));
        QCOMPARE(o->values("host"), (std::vector<std::string>{"a", "b"}));
    }

    void refusals_data()
    {
        QTest::addColumn<QStringList>("words");
        QTest::addColumn<QString>("message");
        QTest::newRow("unknown") << QStringList{QStringLiteral("--frob")}
                                 << QStringLiteral("unknown option --frob; valid: --host --plan "
                                                   "--seed --help --json");
        QTest::newRow("twice") << QStringList{QStringLiteral("--plan"), QStringLiteral("a"),
                                              QStringLiteral("--plan=b")}
                               << QStringLiteral("--plan is given twice");
        QTest::newRow("no value") << QStringList{QStringLiteral("--seed")}
                                  << QStringLiteral("--seed needs a value");
        QTest::newRow("value for a flag")
            << QStringList{QStringLiteral("--json=1")} << QStringLiteral("--json takes no value");
        QTest::newRow("one dash") << QStringList{QStringLiteral("-p")}
                                  << QStringLiteral("options start with two dashes");
    }

    void refusals()
    {
        QFETCH(QStringList, words);
        QFETCH(QString, message);
        std::vector<std::string> list;
        for (const QString &w : words)
            list.push_back(w.toStdString());
        auto o = CommandOptions::parse(list, kSpec);
        QVERIFY(!o);
        QVERIFY2(o.error().message.find(message.toStdString()) != std::string::npos,
                 o.error().message.c_str());
    }

    void rangesAreNamed()
    {
        auto o = CommandOptions::parse({"--seed", "11"}, kSpec);
        QVERIFY(o);
        const auto seed = o->integer("seed", 0, 10);
        QVERIFY(!seed);
        QCOMPARE(seed.error().message, std::string("--seed: 11 is out of range; valid: 0..10"));
    }

    void workerCommandReadsBack()
    {
        WorkerCommand c;
        c.plan = "it's a plan.json";
        c.model = "tiny";
        c.rank = 3;
        c.world = 4;
        c.comm = {"/tmp/rdv", "10.0.0.2", 0.25};
        c.seed = 9;
        c.dumpWeights = "w";
        const auto argv = workerCommandLine("w", c);
        // Defaults are left out: the reader fills them in.
        QVERIFY(std::find(argv.begin(), argv.end(), "--iterations") == argv.end());
        auto options = CommandOptions::parse(tail(argv), workerOptionSpec());
        QVERIFY(options);
        auto back = readWorkerCommand(*options);
        QVERIFY2(back, back ? "" : back.error().message.c_str());
        QCOMPARE(back->plan, c.plan);
        QCOMPARE(back->model, c.model);
        QVERIFY(!back->cluster);
        QCOMPARE(back->rank, 3);
        QCOMPARE(back->comm.timeoutS, 0.25);
        QCOMPARE(back->comm.listenAddress, c.comm.listenAddress);
        QCOMPARE(back->seed, std::uint64_t(9));
        QCOMPARE(back->iterations, 3);
        QCOMPARE(back->dumpWeights, c.dumpWeights);
    }

    void workerShellCommandTakesTheScriptsValues()
    {
        WorkerCommand c;
        c.plan = "it's.json";
        c.comm.rendezvous = "x";
        const std::string line = workerShellCommand(
            "\"$w\"", c, {{"rank", "\"$RANK\""}, {"rendezvous", "\"$R\""}}, {"rendezvous"});
        QCOMPARE(line, std::string("\"$w\" --plan 'it'\\''s.json' --rank \"$RANK\" --world '0' "
                                   "--backend 'gloo' \\\n    --rendezvous \"$R\" "
                                   "--listen-address '127.0.0.1'"));
    }

    void probeCommandReadsBack()
    {
        ProbeCommand c;
        c.quick = true;
        c.repetitions = 3; // --quick's, as the reader sets it: then no --repeat is written
        c.rank = 1;
        c.world = 2;
        c.comm.rendezvous = "redis://h:1";
        c.seqLen = 16;
        const auto argv = probeCommandLine("p", c);
        QVERIFY(std::find(argv.begin(), argv.end(), "--repeat") == argv.end());
        auto options = CommandOptions::parse(tail(argv), probeOptionSpec());
        QVERIFY(options);
        auto back = readProbeCommand(*options);
        QVERIFY2(back, back ? "" : back.error().message.c_str());
        QCOMPARE(back->rank, 1);
        QCOMPARE(back->seqLen, 16);
        QCOMPARE(back->repetitions, 3);
        QCOMPARE(back->comm.rendezvous, c.comm.rendezvous);
        QVERIFY(back->quick && !back->cpuOnly);
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestCommandOptions)
#include "tst_command_options.moc"
