// The backend options of hetplan-worker and `hetplan-cli run` (docs/runtime.md): what is valid,
// and the refusals a user sees before any rank computes. Needs no GPU.
#include "run_test_support.h"
#include "runtime/worker/worker_args.h"
#include "tests/test_registry.h"

#include <QRegularExpression>

using namespace hetplan;
using namespace hetplan::runtime;
using namespace hetplan::runtime::test;

namespace {

Result<WorkerArgs> parse(std::vector<std::string> extra)
{
    std::vector<std::string> words
        = {"--plan", "p.json", "--rank", "0", "--world", "1", "--rendezvous", "/tmp"};
    words.insert(words.end(), extra.begin(), extra.end());
    return parseWorkerArgs(words);
}

QStringList words(std::initializer_list<const char *> list)
{
    QStringList out;
    for (const char *w : list)
        out << QString::fromUtf8(w);
    return out;
}

} // namespace

class TestGpuRunOptions : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void workerDefaultsToGloo()
    {
        const auto args = parse({});
        QVERIFY(args);
        QVERIFY(args->backend == BackendKind::Gloo);
        QVERIFY(!args->device);
    }

    void workerTakesTheCudaOptions()
    {
        const auto args = parse({"--backend", "cuda", "--device", "3", "--nccl-ib-hca",
                                 "mlx5_0,mlx5_1", "--nccl-socket-ifname", "eth0"});
        QVERIFY2(args, args ? "" : args.error().message.c_str());
        QVERIFY(args->backend == BackendKind::Cuda);
        QCOMPARE(args->device.value_or(-1), 3);
        QCOMPARE(args->ncclIbHca, std::string("mlx5_0,mlx5_1"));
        QCOMPARE(args->ncclSocketIfname, std::string("eth0"));
    }

    void workerRefusals_data()
    {
        QTest::addColumn<QStringList>("extra");
        QTest::addColumn<QString>("named");
        QTest::newRow("unknown backend")
            << words({"--backend", "tpu"}) << QStringLiteral("--backend tpu");
        QTest::newRow("device without cuda")
            << words({"--device", "0"}) << QStringLiteral("need --backend cuda");
        QTest::newRow("NIC list without cuda")
            << words({"--nccl-ib-hca", "mlx5_0"}) << QStringLiteral("need --backend cuda");
        QTest::newRow("negative device")
            << words({"--backend", "cuda", "--device", "-1"})
            << QStringLiteral("--device: -1 is out of range; valid: 0..1023");
        QTest::newRow("dump on the GPU") << words({"--backend", "cuda", "--dump-weights", "w"})
                                         << QStringLiteral("--dump-weights needs --backend gloo");
    }

    void workerRefusals()
    {
        QFETCH(QStringList, extra);
        QFETCH(QString, named);
        std::vector<std::string> added;
        for (const QString &w : extra)
            added.push_back(w.toStdString());
        const auto args = parse(added);
        QVERIFY(!args);
        QCOMPARE(args.error().kind, ErrorKind::BadInput);
        QVERIFY2(args.error().message.find(named.toStdString()) != std::string::npos,
                 args.error().message.c_str());
    }

    void cliRefusesAnUnknownBackendBeforeStartingRanks()
    {
        const CliRun run = runCli(words({"run", "--plan"})
                                  << runtimeData("one-stage.plan.json") << QStringLiteral("--model")
                                  << runtimeData("tiny.model.json") << words({"--backend", "tpu"}));
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(QStringLiteral("--backend tpu: valid: gloo")),
                 qPrintable(run.err));
        QVERIFY(!run.out.contains(QStringLiteral("is process")));
    }

    // Every rank refusing at once (here: no usable GPU) used to end the run with exit 0 and a
    // confusing "a rank left no result", since the ranks were gone before the failure was
    // named. The run fails with the rank's own exit.
    void everyRankFailingAtOnceFailsTheRun()
    {
        const CliRun run
            = runCli(words({"run", "--plan"})
                     << runtimeData("one-stage.plan.json") << QStringLiteral("--model")
                     << runtimeData("tiny.model.json") << words({"--backend", "cuda"}));
        if (run.exitCode == 0)
            QSKIP("a CUDA device is usable here: the ranks do not refuse");
        QVERIFY2(run.err.contains(QStringLiteral("no usable CUDA device"))
                     || run.err.contains(QStringLiteral("without the CUDA backend")),
                 qPrintable(run.err));
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains(QRegularExpression(
                     QStringLiteral("run failed: rank \\d+ exited with status 2"))),
                 qPrintable(run.err));
    }

    // A serving plan on --backend cuda is served by the GPU serving shard (docs/runtime.md,
    // "Serving runs"); it used to be refused before any rank started. Where no device is usable,
    // every rank fails with the device's reason and every request is accounted for as failed.
    void servingOnCudaNeedsOnlyADevice()
    {
        const CliRun run = runCli(words({"run", "--plan"})
                                  << runtimeData("serving.plan.json") << QStringLiteral("--model")
                                  << runtimeData("tiny.model.json")
                                  << words({"--backend", "cuda", "--requests", "2"}));
        if (run.exitCode == 0)
            QSKIP("a CUDA device is usable here: the plan is served");
        QVERIFY2(!run.err.contains(QStringLiteral("gloo only")), qPrintable(run.err));
        QVERIFY2(run.err.contains(QStringLiteral("no usable CUDA device"))
                     || run.err.contains(QStringLiteral("without the CUDA backend")),
                 qPrintable(run.err));
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.out.contains(QStringLiteral("served 0 of 2 requests")), qPrintable(run.out));
    }
};

HETPLAN_TEST_GUILESS_MAIN(TestGpuRunOptions)
#include "tst_gpu_run_options.moc"
