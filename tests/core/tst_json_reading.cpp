// What every HetPlan file reader does before it reads fields (docs/formats.md): a key written
// twice in one object is refused, wherever the object is, and a large array of objects reads in
// time linear in its size.
#include "core/io/formats.h"
#include "tests/test_registry.h"

#include <QElapsedTimer>
#include <QtTest>

#include <string>

using namespace hetplan;

namespace {

// A cluster file whose one unknown field holds `objects` empty objects: about 3 bytes each.
std::string clusterWithObjects(std::size_t objects)
{
    std::string text = R"({"format": "hetplan.cluster/1", "name": "x", "_padding": [)";
    text.reserve(text.size() + 3 * objects + 2);
    for (std::size_t i = 0; i < objects; ++i) {
        if (i > 0)
            text += ',';
        text += "{}";
    }
    text += "]}";
    return text;
}

} // namespace

class TestJsonReading : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void repeatedKeysAreRefusedAtAnyDepth_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("key");
        QTest::newRow("top level") << R"({"format": "hetplan.cluster/1", "name": "a", "name": "b"})"
                                   << "name";
        QTest::newRow("inside an array's object")
            << R"({"format": "hetplan.cluster/1", "_x": [{"a": 1}, {"b": 1, "b": 2}]})"
            << "b";
        QTest::newRow("nested object")
            << R"({"format": "hetplan.cluster/1", "_x": {"y": {"c": 1, "c": 1}}})"
            << "c";
    }
    void repeatedKeysAreRefusedAtAnyDepth()
    {
        QFETCH(QString, text);
        QFETCH(QString, key);
        auto cluster = parseCluster(text.toStdString(), "c.json");
        QVERIFY(!cluster.ok());
        const QString message = QString::fromStdString(cluster.error().message);
        QVERIFY2(message.startsWith(QStringLiteral("c.json: key '") + key
                                    + QLatin1String("' appears twice")),
                 qPrintable(message));
    }

    void theSameKeyInSiblingObjectsIsFine()
    {
        auto cluster = parseCluster(
            R"({"format": "hetplan.cluster/1", "_x": [{"a": 1}, {"a": 2}, {"a": {"a": 3}}]})",
            "c.json");
        // Refused for what it lacks, not for a repeated key.
        QVERIFY(!cluster.ok());
        QVERIFY2(cluster.error().message.find("appears twice") == std::string::npos,
                 cluster.error().message.c_str());
    }

    // 1 MiB of objects in one array took 74 s when the key check rescanned the array at every
    // object's end; linear, it takes a fraction of a second (make bench times it). The bound here
    // is loose, for a loaded test machine.
    void aLargeArrayOfObjectsReadsInLinearTime()
    {
        const std::string text = clusterWithObjects(350'000);
        QVERIFY(text.size() > 1'000'000);
        QElapsedTimer timer;
        timer.start();
        auto cluster = parseCluster(text, "big.json");
        const qint64 elapsedMs = timer.elapsed();
        // Refused (it describes no machine), and only after reading the whole array.
        QVERIFY(!cluster.ok());
        QVERIFY2(elapsedMs < 10'000, qPrintable(QString::number(elapsedMs) + QLatin1String(" ms")));
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestJsonReading)
#include "tst_json_reading.moc"
