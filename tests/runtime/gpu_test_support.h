#pragma once

// GPU tests (CTest label `gpu`) run where a CUDA device is usable and are reported as skipped,
// with the driver's reason, everywhere else: HETPLAN_REQUIRE_GPU() in initTestCase() skips the
// whole test, and CTest recognises the skip by its message (tests/CMakeLists.txt).

#include "runtime/cuda/device.h"

#include <QTest>

#define HETPLAN_REQUIRE_GPU()                                                                      \
    do {                                                                                           \
        const auto devices = hetplan::runtime::cuda::deviceCount();                                \
        if (devices.count == 0)                                                                    \
            QSKIP(qPrintable(QStringLiteral("no usable CUDA device: ")                             \
                             + QString::fromStdString(devices.whyNone)));                          \
    } while (false)
