// hetplan-cli export's core (docs/export.md): FlashFlex and HexGen arguments checked field by
// field against the plan, the rank layout file, and the sbatch script, which must parse with
// `bash -n` and, run against a stand-in srun, give every task the rank of the layout.
#include "core/io/plan_export.h"
#include "core/io/slurm_script.h"
#include "tests/core/export_test_support.h"
#include "tests/core/slurm_test_support.h"
#include "tests/test_registry.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <map>
#include <nlohmann/json.hpp>

using namespace hetplan;
using hetplan::test::exportCase;
using hetplan::test::runSbatchScript;
using hetplan::test::ScriptRun;

namespace {

// "--flag value \" lines, as a shell splits them: flag -> its words.
std::map<std::string, std::vector<std::string>> shellWords(const std::string &arguments)
{
    QProcess bash;
    bash.start(QStringLiteral("bash"),
               {QStringLiteral("-c"), QStringLiteral("eval \"set -- $0\"; printf '%s\\n' \"$@\""),
                QString::fromStdString(arguments)});
    bash.waitForFinished();
    std::map<std::string, std::vector<std::string>> words;
    std::string flag;
    for (const QByteArray &line : bash.readAllStandardOutput().split('\n')) {
        const std::string word = line.toStdString();
        if (word.starts_with("--"))
            words[flag = word];
        else if (!word.empty())
            words[flag].push_back(word);
    }
    return words;
}

std::vector<int> ints(const std::vector<std::string> &words)
{
    std::vector<int> values;
    for (const std::string &w : words)
        values.push_back(std::stoi(w));
    return values;
}

int bashSyntaxCheck(const std::string &script)
{
    QProcess bash;
    bash.start(QStringLiteral("bash"), {QStringLiteral("-n")});
    bash.write(script.data(), qint64(script.size()));
    bash.closeWriteChannel();
    bash.waitForFinished();
    return bash.exitCode();
}

std::vector<std::string> directiveValues(const std::string &script, const std::string &option)
{
    std::vector<std::string> values;
    const std::string prefix = "#SBATCH --" + option + "=";
    std::size_t at = 0;
    while ((at = script.find(prefix, at)) != std::string::npos) {
        at += prefix.size();
        values.push_back(script.substr(at, script.find('\n', at) - at));
    }
    return values;
}

} // namespace

class TestPlanExport : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void flashflexArgumentsMatchThePlan();
    void hexgenArgumentsMatchThePlan();
    void plansTheTargetCannotExpressAreRefused_data();
    void plansTheTargetCannotExpressAreRefused();
    void rankLayoutGroupsRanksByHost();
    void slurmScriptStartsEveryRankOnItsNode();
    void slurmScriptWithEvenNodesIsOneComponent();
    void slurmRefusesWhatItCannotWrite();
};

void TestPlanExport::flashflexArgumentsMatchThePlan()
{
    const auto c = exportCase("good/case-study-flashflex.plan.json");
    const auto layout = rankLayout(c.plan, *c.topology);
    auto text = flashflexArguments(c.plan, c.model, layout);
    QVERIFY2(text, text ? "" : text.error().message.c_str());
    auto words = shellWords(*text);
    QCOMPARE(words.size(), std::size_t(6));
    QCOMPARE(ints(words["--total-layer-num"]), std::vector<int>{c.model.layers});
    const auto gpus = nlohmann::json::parse(words["--hetero_configs"].at(0));
    const auto layers = nlohmann::json::parse(words["--layer_partitions"].at(0));
    const auto layouts = nlohmann::json::parse(words["--pp_layouts"].at(0));
    const auto batch = ints(words["--global_bsz_size"]);
    const auto chunks = ints(words["--chunks"]);
    QCOMPARE(gpus.size(), c.plan.pipelines.size());
    int batchTotal = 0;
    for (std::size_t p = 0; p < c.plan.pipelines.size(); ++p) {
        const Pipeline &pipe = c.plan.pipelines[p];
        int layerTotal = 0;
        for (std::size_t s = 0; s < pipe.stages.size(); ++s) {
            QCOMPARE(gpus[p][s].get<int>(), pipe.stages[s].tp);
            QCOMPARE(layers[p][s].get<int>(), pipe.stages[s].layerCount());
            layerTotal += layers[p][s].get<int>();
            // Each stage's ranks are the layout's ranks of that stage, as many as its TP.
            const auto ranks = layouts[p][s].get<std::vector<int>>();
            QCOMPARE(int(ranks.size()), pipe.stages[s].tp);
            for (int r : ranks) {
                QCOMPARE(layout[std::size_t(r)].pipeline, int(p));
                QCOMPARE(layout[std::size_t(r)].stage, int(s));
            }
        }
        QCOMPARE(layerTotal, c.model.layers);
        QCOMPARE(chunks[p], pipe.microBatches);
        batchTotal += batch[p];
    }
    QCOMPARE(batchTotal, c.plan.workload.train.globalBatch);
}

void TestPlanExport::hexgenArgumentsMatchThePlan()
{
    const auto c = exportCase("examples/hexgen-full-price-appendix-f");
    auto replicas = hexgenArguments(c.plan, c.model);
    QVERIFY2(replicas, replicas ? "" : replicas.error().message.c_str());
    QCOMPARE(replicas->size(), c.plan.pipelines.size());
    int nextRank = 0;
    for (std::size_t p = 0; p < replicas->size(); ++p) {
        const HexgenReplica &r = (*replicas)[p];
        auto words = shellWords(r.arguments);
        const auto tp = ints(words["--hetero_config"]);
        const auto partition = ints(words["--pp_partition"]);
        const auto &stages = c.plan.pipelines[p].stages;
        QCOMPARE(tp.size(), stages.size());
        int layerTotal = 0;
        int gpuTotal = 0;
        for (std::size_t s = 0; s < stages.size(); ++s) {
            QCOMPARE(tp[s], stages[s].tp);
            QCOMPARE(int(stages[s].gpus.size()), tp[s]);
            QCOMPARE(partition[s], stages[s].layerCount());
            layerTotal += partition[s];
            gpuTotal += tp[s];
        }
        QCOMPARE(layerTotal, c.model.layers);
        QCOMPARE(r.worldSize, gpuTotal);
        QCOMPARE(r.firstRank, nextRank);
        nextRank += r.worldSize;
    }
    QCOMPARE(nextRank, int(rankLayout(c.plan, *c.topology).size()));
}

void TestPlanExport::plansTheTargetCannotExpressAreRefused_data()
{
    QTest::addColumn<QString>("source");
    QTest::addColumn<QString>("format");
    QTest::addColumn<QString>("why");
    QTest::newRow("serving plan to FlashFlex") << "examples/hexgen-full-price-appendix-f"
                                               << "flashflex"
                                               << "this is a serving plan";
    QTest::newRow("training plan to HexGen") << "examples/hetero-setting-3-hexiscale"
                                             << "hexgen"
                                             << "this is a training plan";
    QTest::newRow("DP inside a stage") << "good/case-study-2pp.plan.json"
                                       << "flashflex"
                                       << "pipeline 0 stage 1 has dp 2";
    QTest::newRow("TP that does not split the heads")
        << "examples/hetero-setting-3-hexiscale"
        << "flashflex"
        << "pipeline 0 stage 0 has tp 8, which does not divide the 52 attention heads";
}

void TestPlanExport::plansTheTargetCannotExpressAreRefused()
{
    QFETCH(QString, source);
    QFETCH(QString, format);
    QFETCH(QString, why);
    const auto c = exportCase(source.toStdString());
    const Error error
        = format == QLatin1String("flashflex")
              ? flashflexArguments(c.plan, c.model, rankLayout(c.plan, *c.topology)).error()
              : hexgenArguments(c.plan, c.model).error();
    QCOMPARE(error.kind, ErrorKind::BadInput);
    QVERIFY2(QString::fromStdString(error.message).contains(why), error.message.c_str());
}

void TestPlanExport::rankLayoutGroupsRanksByHost()
{
    // Machines B and C on one host: their ranks share the node's local ranks, in rank order.
    const auto c = exportCase("good/case-study-2pp.plan.json");
    const auto layout = rankLayout(c.plan, *c.topology, {"a-node", "shared", "shared"});
    const auto j = nlohmann::json::parse(writeRankLayout(c.plan, layout));
    QCOMPARE(j["format"], "hetplan.ranks/1");
    QCOMPARE(j["world_size"].get<int>(), 7);
    QCOMPARE(j["master_addr"], "a-node");
    QCOMPARE(j["nodes"].size(), std::size_t(2));
    QCOMPARE(j["nodes"][1]["host"], "shared");
    QCOMPARE(j["nodes"][1]["ranks"].get<std::vector<int>>(), (std::vector<int>{2, 3, 5, 6}));
    QVERIFY(j["nodes"][1]["cuda_visible_devices"].is_null()); // B:0 and C:0 are not one GPU
    QCOMPARE(j["nodes"][0]["cuda_visible_devices"], "0,1,2");
    const std::vector<int> localRanks{0, 1, 0, 1, 2, 2, 3};
    for (std::size_t r = 0; r < layout.size(); ++r) {
        QCOMPARE(j["ranks"][r]["rank"].get<int>(), int(r));
        QCOMPARE(j["ranks"][r]["local_rank"].get<int>(), localRanks[r]);
        QCOMPARE(j["ranks"][r]["gpu"].get<std::string>(), layout[r].gpuName);
    }
    QCOMPARE(j["ranks"][3]["replica"].get<int>(), 1); // C:1, the stage's second DP replica
}

void TestPlanExport::slurmScriptStartsEveryRankOnItsNode()
{
    const auto c = exportCase("good/case-study-2pp.plan.json");
    const auto layout = rankLayout(c.plan, *c.topology);
    SlurmOptions options;
    options.command = "echo \"$RANK $WORLD_SIZE $LOCAL_RANK $LOCAL_WORLD_SIZE $MASTER_ADDR "
                      "$MASTER_PORT\"";
    auto script = slurmScript(layout, options);
    QVERIFY2(script, script ? "" : script.error().message.c_str());
    QCOMPARE(bashSyntaxCheck(*script), 0);
    // 3 ranks on A, 2 each on C and B: two components of a heterogeneous job.
    QCOMPARE(directiveValues(*script, "nodelist"), (std::vector<std::string>{"A", "C,B"}));
    QCOMPARE(directiveValues(*script, "nodes"), (std::vector<std::string>{"1", "2"}));
    QCOMPARE(directiveValues(*script, "ntasks"), (std::vector<std::string>{"3", "4"}));
    QCOMPARE(directiveValues(*script, "gpus-per-node"), (std::vector<std::string>{"3", "2"}));
    QVERIFY(script->find("#SBATCH hetjob\n") != std::string::npos);

    QStringList tasks;
    QStringList expected;
    for (const RankPlacement &r : layout) {
        tasks << QStringLiteral("%1:%2").arg(QString::fromStdString(r.host)).arg(r.localRank);
        const int onHost = int(std::count_if(layout.begin(), layout.end(),
                                             [&](const auto &o) { return o.host == r.host; }));
        expected << QStringLiteral("%1 7 %2 %3 A 29500").arg(r.rank).arg(r.localRank).arg(onHost);
    }
    const ScriptRun run = runSbatchScript(*script, tasks);
    QVERIFY2(run.exitCode == 0, qPrintable(run.err));
    QStringList lines = run.out.trimmed().split(QLatin1Char('\n'));
    lines.sort(); // the tasks run at once, as srun starts them
    expected.sort();
    QCOMPARE(lines, expected);
    QVERIFY2(run.srunArgs.startsWith(QLatin1String(
                 "--kill-on-bad-exit=1 --mpi=none --het-group=0-1 bash -c hetplan_task ()")),
             qPrintable(run.srunArgs));

    // A task on a node the plan does not use, or one task too many, fails with the reason.
    const ScriptRun stray = runSbatchScript(*script, {QStringLiteral("Z:0")});
    QCOMPARE(stray.exitCode, 1);
    QVERIFY2(stray.err.contains(QLatin1String("node Z holds no rank")), qPrintable(stray.err));
    const ScriptRun extra = runSbatchScript(*script, {QStringLiteral("C:2")});
    QVERIFY2(extra.err.contains(QLatin1String("has 2 ranks, not task 2")), qPrintable(extra.err));
}

void TestPlanExport::slurmScriptWithEvenNodesIsOneComponent()
{
    auto c = exportCase("examples/hexgen-full-price-appendix-f");
    c.plan.pipelines.resize(2); // 8 ranks on each of two machines
    const auto layout = rankLayout(c.plan, *c.topology);
    SlurmOptions options;
    options.worker.plan = "/shared/it's a plan.json";
    auto script = slurmScript(layout, options);
    QVERIFY2(script, script ? "" : script.error().message.c_str());
    QCOMPARE(bashSyntaxCheck(*script), 0);
    QVERIFY(script->find("hetjob") == std::string::npos);
    QCOMPARE(directiveValues(*script, "nodelist"),
             std::vector<std::string>{"ice-3090Ti-0,ice-3090Ti-1"});
    QCOMPARE(directiveValues(*script, "ntasks"), std::vector<std::string>{"16"});
    QCOMPARE(directiveValues(*script, "ntasks-per-node"), std::vector<std::string>{"8"});
    QCOMPARE(directiveValues(*script, "gpus-per-node"), std::vector<std::string>{"8"});
    // The default command is hetplan-worker on the plan, quoted for the shell.
    QVERIFY(script->find("\"$worker\" --plan '/shared/it'\\''s a plan.json' --rank \"$RANK\"")
            != std::string::npos);
    QVERIFY(script->find("    ice-3090Ti-0) ranks=(0 1 2 3 4 5 6 7) worker='hetplan-worker' ;;")
            != std::string::npos);
}

void TestPlanExport::slurmRefusesWhatItCannotWrite()
{
    const auto c = exportCase("good/case-study-2pp.plan.json");
    auto badHost = slurmScript(rankLayout(c.plan, *c.topology, {"gpu box"}), {});
    QVERIFY(!badHost);
    QVERIFY2(badHost.error().message.find("machine 'A' maps to host 'gpu box'")
                 != std::string::npos,
             badHost.error().message.c_str());
    SlurmOptions twoLines;
    twoLines.command = "echo one\necho two";
    auto badCommand = slurmScript(rankLayout(c.plan, *c.topology), twoLines);
    QVERIFY(!badCommand);
    QVERIFY(badCommand.error().message.starts_with("--command: contains a newline"));
}

HETPLAN_TEST_APPLESS_MAIN(TestPlanExport)
#include "tst_plan_export.moc"
