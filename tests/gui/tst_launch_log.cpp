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
};

HETPLAN_TEST_APPLESS_MAIN(TestLaunchLog)
#include "tst_launch_log.moc"
