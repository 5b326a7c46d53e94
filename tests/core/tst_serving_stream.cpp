// The request stream a serving run and its simulation share: Poisson arrivals at the rate
// asked for, a strict trace reader, and HexGen's traffic split by replica throughput.
#include "core/serving/serving_stream.h"
#include "tests/test_registry.h"

#include <QtTest>

#include <cmath>
#include <string>
#include <vector>

using namespace hetplan;

class TestServingStream : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // The mean gap of N exponential gaps of mean 1/λ has standard deviation 1/(λ·√N); within
    // 4 of them for every seed (a wrong rate or a wrong distribution is off by far more).
    void poissonMeanGap_data()
    {
        QTest::addColumn<quint64>("seed");
        QTest::addColumn<double>("ratePerS");
        QTest::newRow("seed 1, 2/s") << quint64(1) << 2.0;
        QTest::newRow("seed 7, 0.25/s") << quint64(7) << 0.25;
        QTest::newRow("seed 42, 40/s") << quint64(42) << 40.0;
    }
    void poissonMeanGap()
    {
        QFETCH(quint64, seed);
        QFETCH(double, ratePerS);
        constexpr int n = 20000;
        PoissonStream stream;
        stream.seed = seed;
        stream.ratePerS = ratePerS;
        stream.requests = n;
        stream.promptTokens = 32;
        stream.outputTokens = 8;
        const std::vector<ServingRequest> requests = poissonRequests(stream);
        QCOMPARE(int(requests.size()), n);
        const double meanGapS = requests.back().arrivalS / n;
        const double tolerance = 4.0 / std::sqrt(double(n));
        QVERIFY2(std::abs(meanGapS * ratePerS - 1.0) < tolerance,
                 qPrintable(QString::number(meanGapS * ratePerS)));
        // Exponential gaps: their standard deviation equals their mean, within 4 standard errors
        // of the sample standard deviation, √(2/N) of it (the exponential's 4th moment is 9/λ⁴).
        double sumSquares = 0;
        double previousS = 0;
        for (const ServingRequest &r : requests) {
            const double gapS = r.arrivalS - previousS;
            sumSquares += (gapS - meanGapS) * (gapS - meanGapS);
            previousS = r.arrivalS;
            QCOMPARE(r.id, int(&r - requests.data()));
            QCOMPARE(r.promptTokens, 32);
            QCOMPARE(r.outputTokens, 8);
            QCOMPARE(r.replica, -1);
        }
        const double sdS = std::sqrt(sumSquares / (n - 1));
        QVERIFY2(std::abs(sdS / meanGapS - 1.0) < 4.0 * std::sqrt(2.0 / n),
                 qPrintable(QString::number(sdS / meanGapS)));
    }

    void sameSeedSameStream()
    {
        PoissonStream stream;
        stream.ratePerS = 3;
        stream.requests = 100;
        const auto a = poissonRequests(stream);
        const auto b = poissonRequests(stream);
        stream.seed = 2;
        const auto c = poissonRequests(stream);
        for (std::size_t i = 0; i < a.size(); ++i)
            QCOMPARE(a[i].arrivalS, b[i].arrivalS);
        QVERIFY(a[5].arrivalS != c[5].arrivalS);
    }

    // --duration: every arrival inside it, about λ·T of them (Poisson count, sd √(λT)).
    void poissonDuration()
    {
        PoissonStream stream;
        stream.ratePerS = 5;
        stream.durationS = 400;
        const auto requests = poissonRequests(stream);
        QVERIFY(requests.back().arrivalS < 400);
        QVERIFY(std::abs(double(requests.size()) - 2000.0) < 4 * std::sqrt(2000.0));
    }

    void traceReads()
    {
        const auto requests = parseServingTrace("# arrival prompt output\n"
                                                "0 128 16\n"
                                                "\n"
                                                "0.5,64,8   # a comment\n"
                                                "  2.25\t512\t1\r\n",
                                                "trace.txt");
        QVERIFY2(requests, requests ? "" : requests.error().message.c_str());
        QCOMPARE(requests->size(), std::size_t(3));
        QCOMPARE((*requests)[1].id, 1);
        QCOMPARE((*requests)[1].arrivalS, 0.5);
        QCOMPARE((*requests)[1].promptTokens, 64);
        QCOMPARE((*requests)[2].arrivalS, 2.25);
        QCOMPARE((*requests)[2].outputTokens, 1);
    }

    // Every hostile line is refused with the file, the line and the field.
    void traceRefuses_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("expected");
        QTest::newRow("empty") << QByteArray("# nothing\n\n") << "trace.txt: no requests";
        QTest::newRow("two fields") << QByteArray("0 1 1\n1 2\n") << "trace.txt: line 2: 2 fields";
        QTest::newRow("four fields") << QByteArray("0 1 1 1\n") << "line 1: 4 fields";
        QTest::newRow("word arrival") << QByteArray("soon 1 1\n") << "line 1: arrival_s: \"soon\"";
        QTest::newRow("nan arrival") << QByteArray("nan 1 1\n") << "arrival_s: \"nan\" is not a";
        QTest::newRow("inf arrival") << QByteArray("inf 1 1\n") << "arrival_s: \"inf\" is not a";
        QTest::newRow("negative arrival") << QByteArray("-1 1 1\n") << "arrival_s: \"-1\" is out";
        QTest::newRow("huge arrival") << QByteArray("1e300 1 1\n") << "is out of range";
        QTest::newRow("zero prompt") << QByteArray("0 0 1\n") << "prompt_tokens: \"0\"";
        QTest::newRow("fraction prompt") << QByteArray("0 1.5 1\n") << "prompt_tokens: \"1.5\"";
        QTest::newRow("huge output")
            << QByteArray("0 1 99999999999999999999\n") << "output_tokens: \"9999";
        QTest::newRow("negative output") << QByteArray("0 1 -4\n") << "output_tokens: \"-4\"";
        QTest::newRow("trailing junk") << QByteArray("0 1 4x\n") << "output_tokens: \"4x\"";
        QTest::newRow("going back")
            << QByteArray("5 1 1\n4 1 1\n") << "line 2: arrival_s: 4 is before the previous line's";
        QTest::newRow("binary") << QByteArray("\x01\x02\xff 1 1\n", 8) << "line 1: arrival_s";
        QTest::newRow("nul byte") << QByteArray("0 1\0 1\n", 7) << "line 1: prompt_tokens";
        QTest::newRow("long field")
            << QByteArray(100000, '7').append(" 1 1\n") << "is out of range";
    }
    void traceRefuses()
    {
        QFETCH(QByteArray, text);
        QFETCH(QString, expected);
        const auto requests = parseServingTrace(
            std::string_view(text.constData(), std::size_t(text.size())), "trace.txt");
        QVERIFY(!requests);
        const QString message = QString::fromStdString(requests.error().message);
        QVERIFY2(message.contains(expected), qPrintable(message));
        QVERIFY2(message.size() < 300, qPrintable(message));
    }

    // Weights 3 : 1 split 3 : 1, interleaved (0 0 1 0 ...), never a run of the slow one.
    void dispatchByThroughput()
    {
        std::vector<ServingRequest> requests(8);
        const std::vector<double> weight{3.0, 1.0};
        dispatchRequests(requests, weight);
        std::vector<int> replicas;
        for (const ServingRequest &r : requests)
            replicas.push_back(r.replica);
        QCOMPARE(replicas, (std::vector<int>{0, 0, 1, 0, 0, 0, 1, 0}));
    }

    void dispatchSkipsReplicasThatCannotServe()
    {
        std::vector<ServingRequest> requests(6);
        dispatchRequests(requests, std::vector<double>{0.0, 2.0, NAN, 2.0});
        for (const ServingRequest &r : requests)
            QVERIFY(r.replica == 1 || r.replica == 3);
        dispatchRequests(requests, std::vector<double>{0.0, 0.0});
        for (const ServingRequest &r : requests)
            QCOMPARE(r.replica, -1);
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestServingStream)
#include "tst_serving_stream.moc"
