// The launcher's job layout and shell commands without SSH: which host runs which rank with
// what environment, the worker's command line read back by hetplan-worker's parser, the job
// folder made by a local shell, and the bounded pool the hosts' steps run on.
#include "core/io/files.h"
#include "runtime/launcher/host_pool.h"
#include "runtime/launcher/launch_commands.h"
#include "runtime/launcher/launch_plan.h"
#include "runtime/worker/worker_args.h"
#include "tests/runtime/run_test_support.h"
#include "tests/test_registry.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <chrono>
#include <csignal>
#include <map>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>

using namespace hetplan;
using namespace hetplan::launch;
using namespace hetplan::runtime::test;

namespace {

LaunchSpec asymmetricSpec()
{
    LaunchSpec spec;
    spec.planText = readTextFile(runtimeData("asymmetric.plan.json").toStdString()).value();
    spec.planName = "asymmetric.plan.json";
    spec.modelText = readTextFile(runtimeData("tiny.model.json").toStdString()).value();
    // B and C share one host; A has its own.
    spec.hosts.hosts = {{"A", "10.0.0.5", 22, "train", "", "/scratch", "/opt/hetplan-worker"},
                        {"B", "10.0.0.6", 2222, "", "", "", "hetplan-worker"},
                        {"C", "10.0.0.6", 2222, "", "", "", "hetplan-worker"}};
    return spec;
}

bool has(const std::vector<std::string> &list, const std::string &item)
{
    return std::find(list.begin(), list.end(), item) != list.end();
}

// Runs a command of launch_commands.h in a local shell.
QString shell(const std::string &command, int limitMs = 20000)
{
    QProcess p;
    p.start(QStringLiteral("/bin/sh"), {QStringLiteral("-c"), QString::fromStdString(command)});
    p.waitForFinished(limitMs);
    return QString::fromUtf8(p.readAllStandardOutput()).trimmed();
}

// The words of `argv` joined by spaces, for reading a command line back.
QString joined(const std::vector<std::string> &argv)
{
    QStringList words;
    for (const std::string &w : argv)
        words << QString::fromStdString(w);
    return words.join(QLatin1Char(' '));
}

} // namespace

class TestLaunchPlan : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void ranksMapToTheirMachinesHost();
    void machineWithoutHostIsRefused();
    void badPlanIsRefusedBeforeAnyHost();
    void servingPlanLaysOutItsSchedulers();
    void workerCommandLineReadsBack();
    void probeRanksReadBackTheirCommand();
    void ownCommandGetsTheEnvironment();
    void jobFolderIsPrivateAndFresh();
    void hostStepsRunOnABoundedPool();
    void threadsThatCannotStartAreAnError();
    void rowsSharingAHostMustAgree();
    void homeWorkdirIsUnderTheRemoteHome();
    void identityThatIsNoFileIsRefusedBeforeAnyHost();
    void cliRefusesAFifoBeforeAnyHost_data();
    void cliRefusesAFifoBeforeAnyHost();
};

void TestLaunchPlan::ranksMapToTheirMachinesHost()
{
    auto layout = layoutJob(asymmetricSpec(), "hp-test");
    QVERIFY2(layout.ok(), layout.ok() ? "" : layout.error().message.c_str());
    QCOMPARE(layout->world, 6);
    QCOMPARE(layout->hosts.size(), std::size_t(2)); // B and C share 10.0.0.6:2222
    const HostWork &first = layout->hosts[0];
    QCOMPARE(first.destination, std::string("train@10.0.0.5:22"));
    QCOMPARE(first.jobDir, std::string("/scratch/hp-test"));
    QCOMPARE(layout->hosts[1].jobDir, std::string("hetplan-jobs/hp-test"));
    QCOMPARE(layout->rendezvousAddress, std::string("10.0.0.5"));
    QCOMPARE(first.ranks.size(), std::size_t(2)); // A:0 and A:1
    QCOMPARE(layout->hosts[1].ranks.size(), std::size_t(4));
    QCOMPARE(first.gpusNeeded, 0); // gloo: no GPU check
    // The plan, cluster and model travel with the job, so every host reads the same job.
    QCOMPARE(layout->files.size(), std::size_t(4));
    // LOCAL_RANK counts per machine: A:1 is A's second rank.
    QVERIFY(has(first.ranks[1].environment, "LOCAL_RANK=1"));
    QVERIFY(has(layout->hosts[1].ranks[0].environment, "LOCAL_RANK=0"));
    QVERIFY(first.ranks[1].worker.has_value());
    QCOMPARE(first.ranks[1].executable, std::string("/opt/hetplan-worker"));
    // The process as the host's agent starts it: no shell, the rendezvous through the agent's
    // socket in the job folder, the measurement in the job folder.
    const agent::RankSpec process = rankProcess(first.ranks[1], "/scratch/hp-test", 31337);
    QCOMPARE(process.argv.front(), std::string("/opt/hetplan-worker"));
    const QString printed = joined(process.argv);
    for (const char *part :
         {"--plan plan.json", "--rank 1 --world 6", "--rendezvous unix:/scratch/hp-test/store.sock",
          "--listen-address 10.0.0.5", "--cluster cluster.json", "--model model.json",
          "--out rank-1.json"})
        QVERIFY2(printed.contains(QLatin1String(part)), qPrintable(printed));
    QCOMPARE(process.resultFile, std::string("rank-1.json"));
    QCOMPARE(process.env.at("LOCAL_RANK"), std::string("1"));
    QVERIFY(layout->serveStore);

    LaunchSpec cuda = asymmetricSpec();
    cuda.backend = BackendKind::Cuda;
    auto onGpus = layoutJob(cuda, "hp-test");
    QVERIFY(onGpus.ok());
    QCOMPARE(onGpus->hosts[0].gpusNeeded, 2);
    QCOMPARE(onGpus->hosts[1].gpusNeeded, 3); // B:0..B:2; C's one rank is another machine
}

void TestLaunchPlan::machineWithoutHostIsRefused()
{
    LaunchSpec spec = asymmetricSpec();
    spec.hosts.hosts.pop_back();
    auto layout = layoutJob(spec, "hp-test");
    QVERIFY(!layout.ok());
    QCOMPARE(layout.error().kind, ErrorKind::BadInput);
    QVERIFY2(layout.error().message.find("no entry for machine 'C'") != std::string::npos,
             layout.error().message.c_str());
}

void TestLaunchPlan::badPlanIsRefusedBeforeAnyHost()
{
    LaunchSpec spec = asymmetricSpec();
    spec.planText = "{\"format\": \"hetplan.plan/1\"}";
    auto layout = layoutJob(spec, "hp-test");
    QVERIFY(!layout.ok());
    QVERIFY2(layout.error().message.starts_with("asymmetric.plan.json"),
             layout.error().message.c_str());
}

// A serving plan's ranks serve the stream of the spec's options; each replica's scheduler (its
// first stage's TP leader) writes its records as its result file; a trace travels with the job.
// A person's own command is refused before any host; a GPU backend is laid out as training's.
void TestLaunchPlan::servingPlanLaysOutItsSchedulers()
{
    LaunchSpec spec = asymmetricSpec();
    spec.planText = readTextFile(runtimeData("serving.plan.json").toStdString()).value();
    spec.planName = "serving.plan.json";
    spec.serving.requests = 7;
    spec.serving.rate = 3.5;
    spec.serving.traceText = "0.0 4 4\n";
    auto layout = layoutJob(spec, "hp-test");
    QVERIFY2(layout.ok(), layout.ok() ? "" : layout.error().message.c_str());
    QVERIFY(layout->serving);
    QVERIFY(!layout->measured);
    QCOMPARE(layout->world, 3); // A:0; B:0 and B:1
    QCOMPARE(layout->files.back().name, std::string("trace.txt"));
    QCOMPARE(layout->files.back().content, spec.serving.traceText);
    std::map<int, const RankStart *> ranks;
    for (const HostWork &host : layout->hosts)
        for (const RankStart &rank : host.ranks)
            ranks[rank.rank] = &rank;
    QCOMPARE(ranks.at(0)->schedulerOf, 0);
    QCOMPARE(ranks.at(0)->resultFile, std::string("replica-0.served"));
    QCOMPARE(ranks.at(1)->schedulerOf, 1);
    QCOMPARE(ranks.at(1)->resultFile, std::string("replica-1.served"));
    QCOMPARE(ranks.at(2)->schedulerOf, -1);
    QVERIFY(ranks.at(2)->resultFile.empty());
    const QString printed = joined(rankProcess(*ranks.at(2), "/job", 31337).argv);
    for (const char *part : {"--requests 7", "--rate 3.5", "--trace trace.txt"})
        QVERIFY2(printed.contains(QLatin1String(part)), qPrintable(printed));
    QVERIFY2(!printed.contains(QLatin1String("--out")), qPrintable(printed));

    LaunchSpec own = spec;
    own.command = {"python3", "serve.py"};
    auto refused = layoutJob(own, "hp-test");
    QVERIFY(!refused.ok());
    QCOMPARE(refused.error().kind, ErrorKind::BadInput);
    QVERIFY2(refused.error().message.find("serving.plan.json: a serving plan") == 0,
             refused.error().message.c_str());
    // On GPUs each host is asked for as many devices as it runs ranks of one machine, and every
    // rank serves on the CUDA backend (docs/runtime.md, "Serving runs", "On the GPU").
    LaunchSpec cuda = spec;
    cuda.backend = BackendKind::Cuda;
    auto onGpus = layoutJob(cuda, "hp-test");
    QVERIFY2(onGpus.ok(), onGpus.ok() ? "" : onGpus.error().message.c_str());
    int gpusNeeded = 0;
    for (const HostWork &host : onGpus->hosts) {
        gpusNeeded += host.gpusNeeded;
        for (const RankStart &rank : host.ranks)
            QVERIFY(joined(rankProcess(rank, "/job", 31337).argv)
                        .contains(QLatin1String("--backend cuda")));
    }
    QCOMPARE(gpusNeeded, 3); // A:0, then B:0 and B:1
}

void TestLaunchPlan::workerCommandLineReadsBack()
{
    WorkerCommand args;
    args.plan = "plan.json";
    args.cluster = "cluster.json";
    args.scale = 4;
    args.rank = 2;
    args.world = 5;
    args.comm = {"redis://10.0.0.5:6379", "10.0.0.6", 12.5};
    args.iterations = 7;
    args.seed = 11;
    args.out = "rank-2.json";
    args.backend = BackendKind::Cuda;
    args.device = 1;
    args.ncclSocketIfname = "eth1";
    const std::vector<std::string> argv = workerCommandLine("/bin/w", args);
    QCOMPARE(argv.front(), std::string("/bin/w"));
    auto back = runtime::parseWorkerArgs(std::vector<std::string>(argv.begin() + 1, argv.end()));
    QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
    QCOMPARE(back->plan, args.plan);
    QCOMPARE(back->cluster, args.cluster);
    QVERIFY(!back->model);
    QCOMPARE(back->scale, 4);
    QCOMPARE(back->rank, 2);
    QCOMPARE(back->world, 5);
    QCOMPARE(back->comm.rendezvous, args.comm.rendezvous);
    QCOMPARE(back->comm.listenAddress, args.comm.listenAddress);
    QCOMPARE(back->comm.timeoutS, 12.5);
    QCOMPARE(back->iterations, 7);
    QCOMPARE(back->seed, std::uint64_t(11));
    QCOMPARE(back->out, args.out);
    QVERIFY(back->backend == BackendKind::Cuda);
    QCOMPARE(back->device, std::optional<int>(1));
    QCOMPARE(back->ncclSocketIfname, std::string("eth1"));
}

// Each host's hetplan-probe gets the person's measuring options and its own rank, address and
// name; the model file travels with the job; hetplan-probe reads the command back.
void TestLaunchPlan::probeRanksReadBackTheirCommand()
{
    LaunchSpec spec = asymmetricSpec();
    // As `hetplan-cli probe --hosts --quick --seq-len 16 --model FILE` reads them.
    auto given = CommandOptions::parse(
        {"--quick", "--seq-len", "16", "--model", runtimeData("tiny.model.json").toStdString()},
        probeOptionSpec());
    QVERIFY(given.ok());
    auto measure = readProbeCommand(*given);
    QVERIFY(measure.ok());
    auto layout = layoutProbe(spec, *measure, "hp-test");
    QVERIFY2(layout.ok(), layout.ok() ? "" : layout.error().message.c_str());
    QCOMPARE(layout->world, 2); // B and C share a host
    QCOMPARE(layout->files.back().name, std::string("model.json"));
    for (const HostWork &host : layout->hosts) {
        const RankStart &rank = host.ranks.front();
        QVERIFY(rank.probe.has_value());
        // Beside the host's worker.
        QCOMPARE(rank.executable,
                 std::string(rank.rank == 0 ? "/opt/hetplan-probe" : "hetplan-probe"));
        QCOMPARE(host.worker, rank.rank == 0 ? std::string("/opt/hetplan-worker")
                                             : std::string("hetplan-worker")); // the agent
        const agent::RankSpec process = rankProcess(rank, "/scratch/hp-test", 31337);
        QCOMPARE(process.argv.front(), rank.executable);
        auto options = CommandOptions::parse(
            std::vector<std::string>(process.argv.begin() + 1, process.argv.end()),
            probeOptionSpec());
        QVERIFY2(options.ok(), options.ok() ? "" : options.error().message.c_str());
        auto back = readProbeCommand(*options); // as hetplan-probe reads it
        QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
        QCOMPARE(back->rank, rank.rank);
        QCOMPARE(back->world, 2);
        QCOMPARE(back->comm.rendezvous, std::string("unix:/scratch/hp-test/store.sock"));
        QCOMPARE(back->model, std::string("model.json"));
        QCOMPARE(back->seqLen, 16);
        QVERIFY(back->quick);
        QCOMPARE(back->repetitions, 3);
        QCOMPARE(back->out, std::string(rank.rank == 0 ? "probe.json" : ""));
        QCOMPARE(process.resultFile, back->out);
    }
}

void TestLaunchPlan::ownCommandGetsTheEnvironment()
{
    LaunchSpec spec = asymmetricSpec();
    spec.command = {"sh", "-c", "echo \"$RANK/$WORLD_SIZE $LOCAL_RANK $MASTER_ADDR:$MASTER_PORT\""};
    auto layout = layoutJob(spec, "hp-test");
    QVERIFY(layout.ok());
    QVERIFY(!layout->measured);
    QVERIFY(!layout->serveStore); // its own rendezvous
    const RankStart &rank = layout->hosts[1].ranks[3];
    const agent::RankSpec process = rankProcess(rank, "/scratch/hp-test", 4242);
    QCOMPARE(process.argv, spec.command); // as given, word for word
    QVERIFY(process.resultFile.empty());
    // The environment as the agent adds it, read by a shell as the command would.
    QProcess p;
    QProcessEnvironment env;
    for (const auto &[name, value] : process.env)
        env.insert(QString::fromStdString(name), QString::fromStdString(value));
    p.setProcessEnvironment(env);
    p.start(QString::fromStdString(process.argv[0]),
            {QString::fromStdString(process.argv[1]), QString::fromStdString(process.argv[2])});
    QVERIFY(p.waitForFinished(10000));
    QCOMPARE(QString::fromUtf8(p.readAllStandardOutput()).trimmed(),
             QStringLiteral("%1/6 %2 10.0.0.5:4242").arg(rank.rank).arg(rank.rank == 5 ? 2 : 1));

    // A program named with '=' would be read by the host's `env` as one more variable.
    spec.command = {"/opt/a=b/train"};
    auto refused = layoutJob(spec, "hp-test");
    QVERIFY(!refused.ok());
    QVERIFY2(refused.error().message.find("\"/opt/a=b/train\" contains '='") != std::string::npos,
             refused.error().message.c_str());
}

// The job folder: made with its parents, mode 0700 (it holds the ranks' store socket), never
// an existing one, and its absolute path printed for the agent and the ranks.
void TestLaunchPlan::jobFolderIsPrivateAndFresh()
{
    QTemporaryDir dir;
    const QString jobDir = dir.filePath(QStringLiteral("work dir/hp-test"));
    const std::string command = makeJobFolderCommand(jobDir.toStdString());
    const QString printed = shell(command);
    QCOMPARE(printed, QFileInfo(jobDir).canonicalFilePath());
    struct stat made
    {
    };
    QCOMPARE(::stat(QFile::encodeName(jobDir).constData(), &made), 0);
    QCOMPARE(made.st_mode & 0777, 0700u);
    // A second job with the same folder is refused.
    QProcess again;
    again.start(QStringLiteral("/bin/sh"), {QStringLiteral("-c"), QString::fromStdString(command)});
    QVERIFY(again.waitForFinished(10000));
    QVERIFY(again.exitCode() != 0);
}

// However many hosts, at most the pool's threads work at once, and every host gets its step.
void TestLaunchPlan::hostStepsRunOnABoundedPool()
{
    constexpr std::size_t kHostCount = 200;
    std::atomic<int> now{0};
    std::atomic<int> most{0};
    auto results = onEveryHost<int>(
        kHostCount,
        [&](std::size_t i) -> Result<int> {
            const int here = ++now;
            for (int seen = most.load(); here > seen && !most.compare_exchange_weak(seen, here);)
                ;
            QThread::msleep(2);
            --now;
            return int(i);
        },
        8);
    QCOMPARE(results.size(), kHostCount);
    for (std::size_t i = 0; i < kHostCount; ++i)
        QCOMPARE(*results[i], int(i));
    QVERIFY2(most.load() <= 8, qPrintable(QString::number(most.load())));
    QVERIFY(most.load() >= 1);
}

// Where no thread can be created (the address space is used up, as under a tight `ulimit -v`),
// the hosts' steps end with an Error that says so, not with std::terminate's SIGABRT. In a
// child process, so the limit touches nothing else.
void TestLaunchPlan::threadsThatCannotStartAreAnError()
{
    const pid_t child = ::fork();
    if (child == 0) {
        // glibc keeps the stacks of ended threads for new ones: threads that wait hold them.
        std::atomic<bool> release{false};
        std::vector<std::thread> holders;
        for (int i = 0; i < 8; ++i)
            holders.emplace_back([&release] {
                while (!release)
                    std::this_thread::sleep_for(std::chrono::milliseconds(1));
            });
        // A new thread's stack (8 MiB by default) no longer fits beside what is mapped now.
        rlimit tight{};
        ::getrlimit(RLIMIT_AS, &tight);
        QFile status(QStringLiteral("/proc/self/statm"));
        if (!status.open(QIODevice::ReadOnly))
            ::_exit(3);
        const rlim_t mappedBytes
            = rlim_t(status.readAll().split(' ').value(0).toULongLong()) * rlim_t(::getpagesize());
        tight.rlim_cur = mappedBytes + (rlim_t(2) << 20);
        if (::setrlimit(RLIMIT_AS, &tight) != 0)
            ::_exit(3);
        auto results = onEveryHost<int>(4, [](std::size_t i) -> Result<int> { return int(i); });
        const bool allErrors = std::all_of(results.begin(), results.end(), [](const auto &r) {
            return !r && r.error().message.find("cannot start a thread") != std::string::npos;
        });
        release = true;
        for (std::thread &t : holders)
            t.join();
        ::_exit(allErrors ? 0 : 1);
    }
    int status = 0;
    QCOMPARE(::waitpid(child, &status, 0), child);
    QVERIFY2(!WIFSIGNALED(status),
             qPrintable(QStringLiteral("killed by signal %1").arg(WTERMSIG(status))));
    QCOMPARE(WEXITSTATUS(status), 0);
}

// B and C share 10.0.0.6:2222, one login: a second worker, identity or workdir there used to be
// ignored or used depending on rank order, and only the first was version-checked.
void TestLaunchPlan::rowsSharingAHostMustAgree()
{
    LaunchSpec spec = asymmetricSpec();
    spec.hosts.hosts[2].worker = "/opt/other/hetplan-worker";
    auto layout = layoutJob(spec, "hp-test");
    QVERIFY(!layout.ok());
    QCOMPARE(layout.error().kind, ErrorKind::BadInput);
    QVERIFY2(layout.error().message.starts_with(
                 "hosts file: hosts[2].worker (machine C): \"/opt/other/hetplan-worker\" differs "
                 "from \"hetplan-worker\" of machine B (hosts[1])"),
             layout.error().message.c_str());
    QVERIFY(!layoutProbe(spec, ProbeCommand{}, "hp-test").ok());
    // A worker with '=' would be read as a variable by the host's `env` after preflight passed.
    spec = asymmetricSpec();
    spec.hosts.hosts[0].worker = "/opt/a=b/hetplan-worker";
    layout = layoutJob(spec, "hp-test");
    QVERIFY(!layout.ok());
    QVERIFY2(layout.error().message.find("hosts[0].worker (machine A)") != std::string::npos,
             layout.error().message.c_str());
}

// "~/x" is quoted in every remote command, so it made a folder named "~"; it is the remote
// home's x, where an SSH session starts.
void TestLaunchPlan::homeWorkdirIsUnderTheRemoteHome()
{
    LaunchSpec spec = asymmetricSpec();
    spec.hosts.hosts[0].workdir = "~/scratch";
    spec.hosts.hosts[1].workdir = spec.hosts.hosts[2].workdir = "~";
    auto layout = layoutJob(spec, "hp-test");
    QVERIFY2(layout.ok(), layout.ok() ? "" : layout.error().message.c_str());
    QCOMPARE(layout->hosts[0].jobDir, std::string("scratch/hp-test"));
    QCOMPARE(layout->hosts[1].jobDir, std::string("./hp-test"));
    QCOMPARE(layout->hosts[0].ranks[0].resultFile, std::string("rank-0.json"));
    // As the host's shell runs it from the home: no folder named "~".
    QTemporaryDir home;
    QProcess mkdir;
    mkdir.setWorkingDirectory(home.path());
    mkdir.start(QStringLiteral("/bin/sh"),
                {QStringLiteral("-c"),
                 QString::fromStdString(makeJobFolderCommand(layout->hosts[0].jobDir))});
    QVERIFY(mkdir.waitForFinished());
    QVERIFY(QFileInfo(home.filePath(QStringLiteral("scratch/hp-test"))).isDir());
    QVERIFY(!QFileInfo::exists(home.filePath(QStringLiteral("~"))));
}

void TestLaunchPlan::identityThatIsNoFileIsRefusedBeforeAnyHost()
{
    QTemporaryDir dir;
    const std::string fifo = dir.filePath(QStringLiteral("key")).toStdString();
    QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
    LaunchSpec spec = asymmetricSpec();
    spec.hosts.hosts[0].identity = fifo;
    auto layout = layoutJob(spec, "hp-test");
    QVERIFY(!layout.ok());
    std::string expected = "hosts file: hosts[0].identity (machine A): ";
    expected += fifo;
    expected += ": is a FIFO";
    QVERIFY2(layout.error().message.starts_with(expected), layout.error().message.c_str());
    QVERIFY(!layoutProbe(spec, ProbeCommand{}, "hp-test").ok());
}

void TestLaunchPlan::cliRefusesAFifoBeforeAnyHost_data()
{
    QTest::addColumn<bool>("asIdentity");
    QTest::newRow("identity") << true;
    QTest::newRow("known hosts") << false;
}

// A FIFO as identity or known-hosts file hung the launch in the SSH library's blocking open,
// and the first Ctrl-C was ignored.
void TestLaunchPlan::cliRefusesAFifoBeforeAnyHost()
{
    QFETCH(bool, asIdentity);
    QTemporaryDir dir;
    const QString fifo = dir.filePath(QStringLiteral("fifo"));
    QCOMPARE(::mkfifo(fifo.toLocal8Bit().constData(), 0600), 0);
    // Port 9 on loopback: nothing to reach, and nothing may be reached before the check.
    QString rows;
    for (const char *machine : {"A", "B", "C"})
        rows
            += QStringLiteral(R"({"machine": "%1", "host": "127.0.0.1", "port": 9,
            "workdir": "/tmp"%2},)")
                   .arg(QLatin1String(machine),
                        asIdentity ? QStringLiteral(R"(, "identity": "%1")").arg(fifo) : QString());
    rows.chop(1);
    const QString hosts = dir.filePath(QStringLiteral("hosts.json"));
    QFile file(hosts);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(
        QStringLiteral(R"({"format": "hetplan.hosts/1", "hosts": [%1]})").arg(rows).toUtf8());
    file.close();
    QStringList args{QStringLiteral("launch"),
                     QStringLiteral("--plan"),
                     runtimeData("asymmetric.plan.json"),
                     QStringLiteral("--model"),
                     runtimeData("tiny.model.json"),
                     QStringLiteral("--hosts"),
                     hosts};
    if (!asIdentity)
        args << QStringLiteral("--known-hosts") << fifo;
    const CliRun run = runCli(args, 30);
    QCOMPARE(run.exitCode, 2);
    const QString message
        = (asIdentity ? hosts + QStringLiteral(": hosts[0].identity (machine A): ")
                      : QStringLiteral("--known-hosts "))
          + fifo + QStringLiteral(": is a FIFO");
    QVERIFY2(run.err.contains(message), qPrintable(run.err));
    QVERIFY2(!run.out.contains(QStringLiteral("connecting")), qPrintable(run.out));
}

HETPLAN_TEST_GUILESS_MAIN(TestLaunchPlan)
#include "tst_launch_plan.moc"
