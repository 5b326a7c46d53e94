#pragma once

// What the serving runs' tests check of a run's `--out DIR`: every request of the stream has a
// record, and the unfinished ones say why.

#include "core/io/serving_measurement_json.h"

#include <QFile>
#include <QString>
#include <QtTest>

#include <vector>

namespace hetplan::runtime::test {

// The requests of `outDir`/serving-measurement.json; a file that does not load ends the test.
inline std::vector<ServedRequest> servedRecords(const QString &outDir)
{
    auto read = loadServingMeasurement(
        (outDir + QStringLiteral("/serving-measurement.json")).toStdString());
    if (!read)
        qFatal("%s", read.error().message.c_str());
    return std::move(read)->requests;
}

// Every request of the stream has a record, in id order; the unfinished ones say why.
inline void verifyAccounted(const std::vector<ServedRequest> &served, int requests)
{
    QCOMPARE(int(served.size()), requests);
    for (std::size_t i = 0; i < served.size(); ++i) {
        QCOMPARE(served[i].id, int(i));
        QVERIFY2(served[i].completed || !served[i].failure.empty(), qPrintable(QString::number(i)));
    }
}

// A trace of three requests (arrival, prompt and output tokens: 0 s 7 2, 0.05 s 5 3, 0.1 s 4 4)
// written to `path`, and the check that `served` (its run's records) served them as written.
inline bool writeThreeRequestTrace(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly)
           && file.write("# arrival_s prompt output\n0.0 7 2\n0.05 5 3\n0.1 4 4\n") > 0;
}
inline void verifyThreeRequestTrace(const std::vector<ServedRequest> &served)
{
    verifyAccounted(served, 3);
    QCOMPARE(served[0].arrivalS, 0.0);
    QCOMPARE(served[0].promptTokens, 7);
    QCOMPARE(served[1].outputTokens, 3);
    QCOMPARE(served[2].promptTokens, 4);
    for (const ServedRequest &s : served)
        QVERIFY2(s.completed, s.failure.c_str());
}

} // namespace hetplan::runtime::test
