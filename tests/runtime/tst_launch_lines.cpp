// A launch's rank output as whole lines (runtime/launcher/launch_lines.h): pieces of two ranks'
// stdout and stderr interleaved, a line and a multibyte character split across pieces, as the
// CLI and the app's Launch panel receive them.
#include "runtime/launcher/launch_lines.h"
#include "tests/runtime/launch_output_fixture.h"
#include "tests/test_registry.h"

#include <QtTest>

using namespace hetplan;
using hetplan::test::outputPiece;

namespace {

// "rank/stream: text" for each line, in the order they were handed out.
QStringList texts(const std::vector<LaunchLines::Line> &lines)
{
    QStringList out;
    for (const LaunchLines::Line &l : lines)
        out << QStringLiteral("%1/%2 %3: %4")
                   .arg(l.rank)
                   .arg(l.isStderr ? QStringLiteral("err") : QStringLiteral("out"))
                   .arg(QString::fromStdString(l.host), QString::fromStdString(l.text));
    return out;
}

} // namespace

class TestLaunchLines : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void piecesBecomeWholeLinesPerRankAndStream()
    {
        // "grüße" with its ü (C3 BC) split between two pieces of rank 0's stdout, while rank 1
        // and rank 0's stderr print in between.
        LaunchLines lines;
        QStringList got;
        for (const LaunchEvent &e :
             {outputPiece(0, false, "step 1 gr\xC3"), outputPiece(1, false, "loss "),
              outputPiece(0, true, "warn"), outputPiece(0, false, "\xBC\xC3\x9F"),
              outputPiece(1, true, "slow\r\n"), outputPiece(0, false, "e\nstep 2"),
              outputPiece(1, false, "2.5\nloss 2.4\n"), outputPiece(0, true, "ing: x\n")})
            got << texts(lines.add(e));
        QCOMPARE(got, (QStringList{QStringLiteral("1/err host-1: slow"),
                                   QString::fromUtf8("0/out host-0: step 1 grüße"),
                                   QStringLiteral("1/out host-1: loss 2.5"),
                                   QStringLiteral("1/out host-1: loss 2.4"),
                                   QStringLiteral("0/err host-0: warning: x")}));
        // Rank 0's last words came without a newline.
        QCOMPARE(texts(lines.flush()), QStringList{QStringLiteral("0/out host-0: step 2")});
        QVERIFY(lines.flush().empty());
    }

    void invalidBytesBecomeReplacementCharacters()
    {
        LaunchLines lines;
        const auto done = lines.add(outputPiece(2, false,
                                                "a\xFF"
                                                "b\xC3\n"));
        QCOMPARE(texts(done), QStringList{QString::fromUtf8("2/out host-2: a\uFFFDb\uFFFD")});
    }

    // Output without newlines grew the launcher without bound (480 MB in a minute): a line is
    // handed out cut at 64 KiB, marked, and the rest of it dropped up to its newline.
    void longLinesAreCutAndTheirRestDropped()
    {
        constexpr std::size_t kLimit = 64 * 1024; // docs/launcher.md, "Output"
        constexpr std::string_view kMarker = " [hetplan: line cut at 64 KiB]";
        LaunchLines lines;
        const std::string chunk(60 * 1024, 'x');
        std::vector<LaunchLines::Line> got;
        for (int i = 0; i < 256; ++i) { // 15 MiB in one line, in pieces
            auto done = lines.add(outputPiece(3, false, chunk));
            got.insert(got.end(), done.begin(), done.end());
        }
        QCOMPARE(got.size(), std::size_t(1)); // cut as soon as the limit was passed
        QCOMPARE(got[0].text.size(), kLimit + kMarker.size());
        QVERIFY(got[0].text.ends_with(kMarker));
        QVERIFY(got[0].text.starts_with(std::string(1000, 'x')));
        // The same rank's stderr and the next line after the newline are untouched.
        QCOMPARE(texts(lines.add(outputPiece(3, true, "warn\n"))),
                 QStringList{QStringLiteral("3/err host-3: warn")});
        std::string rest = chunk;
        rest += "\nnext\n";
        QCOMPARE(texts(lines.add(outputPiece(3, false, rest))),
                 QStringList{QStringLiteral("3/out host-3: next")});
        QVERIFY(lines.flush().empty()); // nothing of the long line is held

        // One piece far past the limit, then a line of exactly the limit, which is whole.
        std::string huge(1 << 20, 'y');
        huge += '\n';
        auto big = lines.add(outputPiece(4, false, huge));
        QCOMPARE(big.size(), std::size_t(1));
        QVERIFY(big[0].text.ends_with(kMarker));
        auto exact = lines.add(outputPiece(4, false, std::string(kLimit, 'z')));
        QVERIFY(exact.empty());
        exact = lines.add(outputPiece(4, false, "\n"));
        QCOMPARE(exact.size(), std::size_t(1));
        QCOMPARE(exact[0].text, std::string(kLimit, 'z'));
    }

    void otherEventsAreNoLines()
    {
        LaunchLines lines;
        LaunchEvent message;
        message.text = "host B disconnected\n";
        QVERIFY(lines.add(message).empty());
        QVERIFY(lines.flush().empty());
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestLaunchLines)
#include "tst_launch_lines.moc"
