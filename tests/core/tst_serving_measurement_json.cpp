// hetplan.serving-measurement/1: what is written reads back the same, and a file that does not
// account for every request, or breaks the format, is refused naming the file and the field.
#include "core/io/serving_measurement_json.h"
#include "serving_test_fixtures.h"
#include "tests/test_registry.h"

#include <QtTest>

#include <nlohmann/json.hpp>

using namespace hetplan;
using namespace hetplan::testing;

namespace {

using Json = nlohmann::json;

// The hand measurement as JSON, for a test to break.
Json handJson()
{
    return Json::parse(writeServingMeasurement(handMeasurement()));
}

} // namespace

class TestServingMeasurementJson : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void roundTrip()
    {
        const ServingMeasurement m = handMeasurement();
        const std::string text = writeServingMeasurement(m);
        const auto read = parseServingMeasurement(text, "m.json");
        QVERIFY2(read, read ? "" : read.error().message.c_str());
        QCOMPARE(writeServingMeasurement(*read), text);
        QCOMPARE(read->requests.size(), std::size_t(6));
        QCOMPARE(read->requests[5].failure, std::string("no replica can serve it"));
        QCOMPARE(read->requests[2].finishS, m.requests[2].finishS);
        QCOMPARE(read->replicas[1].gpus, (std::vector<std::string>{"B:0", "B:1"}));
        QCOMPARE(read->summary.completed + read->summary.failed, read->summary.requests);
        QCOMPARE(read->summary.latency.p99S, m.summary.latency.p99S);
        QCOMPARE(read->run.windowEndS, 12.0);
        QCOMPARE(read->run.planDigest, std::string("0123456789abcdef"));
    }

    void refuses_data()
    {
        QTest::addColumn<QString>("pointer");  // JSON pointer of the value to change
        QTest::addColumn<QByteArray>("value"); // its new value as JSON; "remove" removes it
        QTest::addColumn<QString>("expected");
        QTest::newRow("other format")
            << "/format" << QByteArray("\"hetplan.measurement/1\"") << "m.json: format";
        QTest::newRow("unknown field")
            << "/requests/1/latency_s" << QByteArray("3") << "requests[1].latency_s: unknown field";
        QTest::newRow("ids out of order")
            << "/requests/2/id" << QByteArray("4") << "requests[2].id: is 4; valid: 2";
        QTest::newRow("completed with a failure")
            << "/requests/1/failure" << QByteArray("\"oops\"") << "requests[1].failure: is given";
        QTest::newRow("failed without why")
            << "/requests/5/failure" << QByteArray("remove") << "requests[5].failure: missing";
        QTest::newRow("a request lost")
            << "/summary/completed" << QByteArray("4")
            << "summary.completed: says 4, the requests list 5 completed";
        QTest::newRow("failures uncounted")
            << "/summary/failed" << QByteArray("0") << "summary.failed: says 0";
        QTest::newRow("replica counts")
            << "/replicas/1/requests" << QByteArray("3") << "replicas[1].requests: says 3";
        QTest::newRow("unlisted replica")
            << "/requests/3/replica" << QByteArray("2") << "requests[3].replica: is 2; valid: -1";
        QTest::newRow("admitted before arrival")
            << "/requests/2/admitted_s" << QByteArray("0.1") << "requests[2].admitted_s: is before";
        QTest::newRow("finish before first token")
            << "/requests/2/finish_s" << QByteArray("4") << "requests[2].finish_s: is before";
        QTest::newRow("negative time")
            << "/requests/0/arrival_s" << QByteArray("-1") << "requests[0].arrival_s";
        QTest::newRow("string time")
            << "/requests/0/finish_s" << QByteArray("\"3.6\"") << "requests[0].finish_s";
        QTest::newRow("window backwards")
            << "/run/window_s" << QByteArray("[5, 1]") << "run.window_s: ends before it begins";
        QTest::newRow("attainment over 1")
            << "/summary/attainment" << QByteArray("1.5") << "summary.attainment";
        QTest::newRow("no digest")
            << "/run/plan_digest" << QByteArray("remove") << "run.plan_digest";
        QTest::newRow("unknown backend")
            << "/run/backend" << QByteArray("\"tpu\"")
            << "run.backend: \"tpu\" is not a known measurement backend";
        QTest::newRow("ranks for GPUs")
            << "/replicas/1/ranks" << QByteArray("[1]") << "replicas[1].ranks: lists 1 ranks";
        QTest::newRow("no requests") << "/requests" << QByteArray("[]") << "requests";
    }
    void refuses()
    {
        QFETCH(QString, pointer);
        QFETCH(QByteArray, value);
        QFETCH(QString, expected);
        Json doc = handJson();
        const Json::json_pointer at(pointer.toStdString());
        if (value == "remove")
            doc[at.parent_pointer()].erase(at.back());
        else
            doc[at] = Json::parse(value.toStdString());
        const auto read = parseServingMeasurement(doc.dump(), "m.json");
        QVERIFY(!read);
        const QString message = QString::fromStdString(read.error().message);
        QVERIFY2(message.startsWith(QStringLiteral("m.json")), qPrintable(message));
        QVERIFY2(message.contains(expected), qPrintable(message));
    }

    void refusesWhatIsNotJson()
    {
        QVERIFY(!parseServingMeasurement("", "m.json"));
        QVERIFY(!parseServingMeasurement("[1, 2]", "m.json"));
        QVERIFY(!parseServingMeasurement(std::string(100, '{'), "m.json"));
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestServingMeasurementJson)
#include "tst_serving_measurement_json.moc"
