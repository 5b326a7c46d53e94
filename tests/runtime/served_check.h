#pragma once

// What the serving runs' tests check of a run's `--out DIR`: every request of the stream has a
// record, and the unfinished ones say why.

#include "core/io/serving_measurement_json.h"

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

} // namespace hetplan::runtime::test
