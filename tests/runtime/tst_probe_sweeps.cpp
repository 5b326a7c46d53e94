// A pair whose sweep is not plausible (a latency spike on a busy host) is swept again, at most
// twice more; what the ranks agree on decides; a pair still flagged after its last sweep is
// kept flagged, and the report says how often a pair was measured.
#include "runtime/probe/pair_sweeps.h"
#include "runtime/probe/probe_report.h"
#include "tests/test_registry.h"

#include <QTest>

#include <sstream>

using namespace hetplan;
using namespace hetplan::runtime::probe;

namespace {

SizePoint point(double bytes, double timeUs)
{
    const double GBps = bytes / timeUs / 1e3;
    return {bytes, {5, timeUs, timeUs * 0.95, timeUs * 1.1}, {5, GBps, GBps / 1.1, GBps / 0.95}};
}

// A sweep of A-B at 0.1 GB/s; `spiked`: its 4-byte messages stalled for 2 ms, so 4 KiB took
// less than half of that (not-monotone).
ProbedPair sweepOf(bool spiked)
{
    ProbedPair p;
    p.a = {"A", -1};
    p.b = {"B", -1};
    p.method = "gloo-tcp";
    p.sizes = {point(4, spiked ? 2000 : 60), point(4096, 101), point(1 << 20, 10546),
               point(16 << 20, 167832)};
    summarizePair(p);
    return p;
}

// Sweeps that are spiked as `spikes` says, in order (then plausible), counted in `calls`.
struct Sweeps
{
    std::vector<bool> spikes;
    int calls = 0;

    Result<ProbedPair> operator()()
    {
        const bool spiked = std::size_t(calls) < spikes.size() && spikes[std::size_t(calls)];
        ++calls;
        return sweepOf(spiked);
    }
};

} // namespace

class TestProbeSweeps : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void plausibleSweepIsMeasuredOnce()
    {
        std::ostringstream log;
        Sweeps sweeps{{false}};
        const auto pair = sweepPair(log, std::ref(sweeps));
        QVERIFY(pair.ok());
        QCOMPARE(sweeps.calls, 1);
        QCOMPARE(pair->sweeps, 1);
        QVERIFY(log.str().empty());
    }

    void spikedSweepIsMeasuredAgain()
    {
        std::ostringstream log;
        Sweeps sweeps{{true}};
        const auto pair = sweepPair(log, std::ref(sweeps));
        QVERIFY(pair.ok());
        QCOMPARE(sweeps.calls, 2);
        QCOMPARE(pair->sweeps, 2);
        QVERIFY(plausibilityFlags(*pair, "pairs[0]").empty());
        QCOMPARE(pair->latencyUs, 60.0); // the second sweep's, not the spike
        const std::string said = log.str();
        QVERIFY2(said.find("A - B: sweep 1 of at most 3 is not plausible (not-monotone at "
                           "pair.sizes[1].time_us")
                     != std::string::npos,
                 said.c_str());
        QVERIFY2(said.find("measuring it again") != std::string::npos, said.c_str());
    }

    void stillFlaggedAfterThreeSweepsIsKeptFlagged()
    {
        std::ostringstream log;
        Sweeps sweeps{{true, true, true, true}};
        const auto pair = sweepPair(log, std::ref(sweeps));
        QVERIFY(pair.ok());
        QCOMPARE(sweeps.calls, kMaxPairSweeps);
        QCOMPARE(pair->sweeps, kMaxPairSweeps);
        QCOMPARE(plausibilityFlags(*pair, "pairs[0]").size(), std::size_t(1));
    }

    // Over the network every rank sweeps again when any asks: a rank that only answered (its
    // own times plausible) follows the initiator, and an initiator follows the others' no.
    void theRanksAgreementDecides()
    {
        std::ostringstream log;
        Sweeps answering{{false, false}};
        int votes = 0;
        const auto followed = sweepPair(log, std::ref(answering), [&](bool) -> Result<bool> {
            return ++votes == 1; // the initiator asked once
        });
        QVERIFY(followed.ok());
        QCOMPARE(answering.calls, 2);

        Sweeps alone{{true, true}};
        const auto refused = sweepPair(log, std::ref(alone), [](bool) -> Result<bool> {
            return Error{ErrorKind::Internal, "rank 1 is gone"};
        });
        QVERIFY(!refused.ok());
        QCOMPARE(refused.error().message, std::string("rank 1 is gone"));
        QCOMPARE(alone.calls, 1);
    }

    void reportSaysHowOftenAPairWasMeasured()
    {
        Probe probe;
        probe.pairs = {sweepOf(false), sweepOf(false)};
        probe.pairs[1].sweeps = 3;
        std::ostringstream out;
        printReport(out, probe);
        const std::string report = out.str();
        QVERIFY2(report.find("measured 3 times: the earlier sweeps were not plausible")
                     != std::string::npos,
                 report.c_str());
        QCOMPARE(report.find("measured 1 times"), std::string::npos);
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestProbeSweeps)
#include "tst_probe_sweeps.moc"
