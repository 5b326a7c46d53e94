// The Launch panel's log (app/gui/launch/launch_log.h): a rank's output arrives in pieces, for
// stdout and stderr apart; each pane shows whole lines, a character split across pieces whole,
// and a rank's two streams never mixed within a line.
#include "launch/launch_log.h"
#include "tests/runtime/launch_output_fixture.h"
#include "tests/test_registry.h"

#include <QtTest>

using namespace hetplan;
using hetplan::test::outputPiece;
using namespace hetplan::gui;

namespace {

QStringList lines(const LaunchLog &log, LaunchLog::Grouping grouping, const QString &pane)
{
    const auto &kept = log.lines(grouping, pane);
    return {kept.begin(), kept.end()};
}

} // namespace

class TestLaunchLog : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void panesHoldWholeLines()
    {
        LaunchLog log;
        // "température" with its é (C3 A9) split across rank 1's pieces; rank 1's stderr and
        // rank 0 print in between.
        for (const LaunchEvent &e :
             {outputPiece(1, false, "temp\xC3"), outputPiece(1, true, "warn"),
              outputPiece(0, false, "ok\n"), outputPiece(1, false, "\xA9rature 40\n"),
              outputPiece(1, true, "ing\r\n")})
            log.add(e);
        QCOMPARE(lines(log, LaunchLog::Grouping::Rank, LaunchLog::rankPane(1)),
                 (QStringList{QString::fromUtf8("température 40"), QStringLiteral("warning")}));
        QCOMPARE(lines(log, LaunchLog::Grouping::Host, QStringLiteral("host-0")),
                 QStringList{QStringLiteral("[rank 0] ok")});
        QCOMPARE(
            log.panes(LaunchLog::Grouping::Rank),
            (QStringList{LaunchLog::jobPane(), LaunchLog::rankPane(0), LaunchLog::rankPane(1)}));
    }

    void ranksHavePanesBeforeTheyPrint()
    {
        LaunchLog log;
        const QString h1 = QStringLiteral("u@h1:22");
        const QString h2 = QStringLiteral("u@h2:22");
        log.setRanks({{0, QStringLiteral("A"), h1},
                      {1, QStringLiteral("B"), h1},
                      {2, QStringLiteral("C"), h2}});
        QCOMPARE(log.panes(LaunchLog::Grouping::Rank),
                 (QStringList{LaunchLog::jobPane(), LaunchLog::rankPane(0), LaunchLog::rankPane(1),
                              LaunchLog::rankPane(2)}));
        QCOMPARE(log.panes(LaunchLog::Grouping::Host), (QStringList{LaunchLog::jobPane(), h1, h2}));
        QCOMPARE(log.title(LaunchLog::Grouping::Rank, LaunchLog::rankPane(1)),
                 QString::fromUtf8("rank 1 · B"));
        QVERIFY(log.toolTip(LaunchLog::Grouping::Rank, LaunchLog::rankPane(1)).contains(h1));
        const QString shared = log.toolTip(LaunchLog::Grouping::Host, h1);
        QVERIFY2(shared.contains(u"A, B") && shared.contains(u"0, 1"), qPrintable(shared));
        // A rank's lines go to the pane of the host it was placed on.
        log.add(outputPiece(2, false, "x\n"));
        QCOMPARE(lines(log, LaunchLog::Grouping::Host, h2),
                 QStringList{QStringLiteral("[rank 2] x")});
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestLaunchLog)
#include "tst_launch_log.moc"
