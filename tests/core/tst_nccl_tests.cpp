// nccl-tests and nvbandwidth outputs, generated in the documented layouts (import_fixtures.h),
// parse by their column names into the figures they were generated from; broken or
// inconsistent logs are refused naming the file, the line and what would be valid.
#include "core/import/nccl_tests.h"
#include "core/import/nvbandwidth.h"
#include "import_fixtures.h"
#include "tests/test_registry.h"

#include <QRegularExpression>
#include <QTest>

#include <cmath>

using namespace hetplan;
using namespace hetplan::fixtures;

Q_DECLARE_METATYPE(hetplan::fixtures::LogLayout)

namespace {

std::vector<LogRank> ranksOn(const std::string &host, int count)
{
    std::vector<LogRank> ranks;
    for (int d = 0; d < count; ++d)
        ranks.push_back({host, d});
    return ranks;
}

QString errorOf(std::string_view text, std::string_view source)
{
    auto log = parseNcclTests(text, source);
    return log ? QString() : QString::fromStdString(log.error().message);
}

} // namespace

class TestNcclTests : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void layouts_data()
    {
        QTest::addColumn<LogLayout>("layout");
        QTest::newRow("current") << LogLayout::Current;
        QTest::newRow("old: no root, error column") << LogLayout::Old;
        QTest::newRow("-I statistics columns") << LogLayout::Statistics;
        QTest::newRow("timestamps") << LogLayout::Timestamps;
    }

    void layouts()
    {
        QFETCH(LogLayout, layout);
        LogSpec spec;
        spec.ranks = ranksOn("node-a", 8);
        spec.busBwGBps = 180;
        spec.layout = layout;
        // The old layout has no "Collective test starting" line: the file name tells.
        auto log = parseNcclTests(ncclLog(spec), "logs/all_reduce_perf.log");
        QVERIFY2(log.ok(), log.ok() ? "" : log.error().message.c_str());
        QVERIFY(log->collective == NcclCollective::AllReduce);
        QCOMPARE(log->ranks.size(), std::size_t(8));
        QCOMPARE(log->ranks[3].host, std::string("node-a"));
        QCOMPARE(log->ranks[3].device, 3);
        QCOMPARE(log->ranks[3].deviceName, std::string("NVIDIA H100 80GB HBM3"));
        QCOMPARE(log->rows.size(), std::size_t(28)); // 8 B … 1 GiB
        const NcclRow &last = log->rows.back();
        QCOMPARE(last.bytes, double(1 << 30));
        // What the generator printed: 1 GiB at 180 GB/s after 14 ring steps of 5 us.
        const double timeUs = 14 * 5 + last.bytes * 1.75 / 180e3;
        QVERIFY2(std::abs(last.timeUs - timeUs) < 0.01, qPrintable(QString::number(last.timeUs)));
        QVERIFY2(std::abs(last.busBwGBps - last.bytes * 1.75 / timeUs / 1e3) < 0.01,
                 qPrintable(QString::number(last.busBwGBps)));
        QVERIFY(std::abs(last.algBwGBps * 2 * 7 / 8 - last.busBwGBps) < 0.02);
        QVERIFY(last.hasInPlace);
        QVERIFY(last.inPlaceTimeUs > last.timeUs); // the in-place group, not a statistic
        QVERIFY(std::abs(log->rows.front().timeUs - 14 * 5) < 0.1);
    }

    void collectivesAndFactors()
    {
        QCOMPARE(busBwFactor(NcclCollective::AllReduce, 8), 1.75);
        QCOMPARE(busBwFactor(NcclCollective::AllGather, 4), 0.75);
        QCOMPARE(busBwFactor(NcclCollective::ReduceScatter, 2), 0.5);
        QCOMPARE(busBwFactor(NcclCollective::AllToAll, 4), 0.75);
        QCOMPARE(busBwFactor(NcclCollective::Broadcast, 16), 1.0);
        QCOMPARE(busBwFactor(NcclCollective::SendRecv, 2), 1.0);
        for (const char *name :
             {"all_gather", "reduce_scatter", "sendrecv", "broadcast", "alltoall"}) {
            LogSpec spec;
            spec.collective = name;
            spec.ranks = ranksOn("h", 4);
            auto log = parseNcclTests(ncclLog(spec), "run.log");
            QVERIFY2(log.ok(), log.ok() ? "" : log.error().message.c_str());
            QCOMPARE(log->collectiveName, std::string(name));
        }
    }

    void ranksAcrossHosts()
    {
        LogSpec spec;
        spec.ranks = ranksOn("node-a.cluster.local", 2);
        for (const LogRank &r : ranksOn("node-b", 2))
            spec.ranks.push_back(r);
        auto log = parseNcclTests(ncclLog(spec), "x.log");
        QVERIFY(log.ok());
        // The whole name: the import makes machine names of it (docs/import.md, "Machine names").
        QCOMPARE(log->ranks[0].host, std::string("node-a.cluster.local"));
        QCOMPARE(log->ranks[2].host, std::string("node-b"));
        QCOMPARE(log->ranks[2].device, 0);
    }

    void refused_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("source");
        QTest::addColumn<QStringList>("expected");
        LogSpec spec;
        spec.ranks = ranksOn("node-a", 4);
        spec.maxBytes = 1 << 20;
        const QString good = QString::fromStdString(ncclLog(spec));
        QString missingRank = good;
        missingRank.remove(QRegularExpression(QStringLiteral("#  Rank  3[^\n]*\n")));
        QTest::newRow("busbw of other ranks")
            << missingRank << "a.log"
            << QStringList{QStringLiteral("a.log: line "), QStringLiteral("is not algbw"),
                           QStringLiteral("over the 3 ranks")};
        QString shortRow = good;
        shortRow.replace(QStringLiteral("  0.00      0\n"), QStringLiteral("\n"));
        QTest::newRow("short row")
            << shortRow << "b.log"
            << QStringList{QStringLiteral("b.log: line "), QStringLiteral("the header on line")};
        QString badNumber = good;
        badNumber.replace(QStringLiteral("   30.00"), QStringLiteral("   fast!"));
        QTest::newRow("bad time") << badNumber << "c.log"
                                  << QStringList{QStringLiteral("time \"fast!\" is not a number"),
                                                 QStringLiteral("valid: a number > 0")};
        QString noHeader = good;
        noHeader.remove(QRegularExpression(QStringLiteral("#       size[^\n]*\n")));
        QTest::newRow("no header")
            << noHeader << "d.log" << QStringList{QStringLiteral("a data row before the column")};
        QString noRanks = good;
        noRanks.remove(QRegularExpression(QStringLiteral("#  Rank[^\n]*\n")));
        QTest::newRow("no ranks") << noRanks << "e.log"
                                  << QStringList{QStringLiteral("no \"#  Rank R")};
        QString unnamed = good;
        unnamed.remove(QRegularExpression(QStringLiteral("# Collective test[^\n]*\n")));
        QTest::newRow("unnamed") << unnamed << "run1.log"
                                 << QStringList{QStringLiteral("cannot tell which collective"),
                                                QStringLiteral("valid: all_reduce")};
        QString twice = good;
        twice.replace(QStringLiteral("Rank  1 Group  0 Pid   4001 on     node-a device  1"),
                      QStringLiteral("Rank  0 Group  0 Pid   4001 on     node-a device  1"));
        QTest::newRow("rank twice") << twice << "f.log"
                                    << QStringList{QStringLiteral("rank 0 is node-a device 1"),
                                                   QStringLiteral("one log is one run")};
    }

    void refused()
    {
        QFETCH(QString, text);
        QFETCH(QString, source);
        QFETCH(QStringList, expected);
        const QString message = errorOf(text.toStdString(), source.toStdString());
        QVERIFY2(!message.isEmpty(), "accepted");
        QVERIFY2(message.startsWith(source + QStringLiteral(": ")), qPrintable(message));
        for (const QString &part : expected)
            QVERIFY2(message.contains(part),
                     qPrintable(message + QStringLiteral("\n lacks ") + part));
    }

    void nvbandwidthMatrices()
    {
        const std::vector<std::vector<double>> gbps{{0, 390, 385}, {391, 0, -1}, {388, 120.5, 0}};
        auto out = parseNvbandwidth(nvbandwidthOutput(gbps), "node-a.nvbandwidth.txt");
        QVERIFY2(out.ok(), out.ok() ? "" : out.error().message.c_str());
        QCOMPARE(out->deviceNames.size(), std::size_t(3));
        QCOMPARE(out->deviceNames[1], std::string("NVIDIA H100 80GB HBM3"));
        QCOMPARE(out->matrices.size(), std::size_t(2));
        const NvbandwidthMatrix &read = out->matrices[0];
        QVERIFY(read.isPairBandwidth());
        QVERIFY(!out->matrices[1].isPairBandwidth()); // bidirectional
        QCOMPARE(read.unit, std::string("GB/s"));
        QCOMPARE(*read.cells[2][1], 120.5);
        QVERIFY(!read.cells[1][2].has_value()); // N/A
        QVERIFY(!read.cells[0][0].has_value());

        std::string broken = nvbandwidthOutput(gbps);
        broken.replace(broken.find("120.50"), 6, "fast");
        auto refused = parseNvbandwidth(broken, "n.txt");
        QVERIFY(!refused.ok());
        QVERIFY2(refused.error().message.find("n.txt: line ") == 0
                     && refused.error().message.find("valid: a figure >= 0 or N/A")
                            != std::string::npos,
                 refused.error().message.c_str());
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestNcclTests)
#include "tst_nccl_tests.moc"
