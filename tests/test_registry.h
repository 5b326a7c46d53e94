#pragma once

// Several Qt Test classes in one executable per area (tests/<area>/), one CTest entry per class:
// `<area>-tests tst_unit [Qt Test options]` runs the class that tests/<area>/tst_unit.cpp
// registers, alone in its own process and with the application object its macro names, exactly
// as QTEST_APPLESS_MAIN, QTEST_GUILESS_MAIN and QTEST_MAIN would in an executable of its own.
// One executable per area instead of one per file: the area links and runs moc once.

#include <QtTest>

namespace hetplan::testmain {

using TestEntry = int (*)(int argc, char *argv[]);

// Registers the test of `sourceFile` under its base name ("tst_unit"); called during static
// initialisation by the macros below. Returns true so it can initialise a constant.
bool registerTest(const char *sourceFile, TestEntry entry);

// The name the running test was started by, for a test that starts its own executable again:
// QCoreApplication::applicationFilePath() with {runningTest(), "someTestFunction"}.
const char *runningTest();

} // namespace hetplan::testmain

#define HETPLAN_TEST_WRAPPER(TestObject, ...)                                                      \
    namespace {                                                                                    \
    int hetplanRunTest(int argc, char *argv[])                                                     \
    {                                                                                              \
        QT_PREPEND_NAMESPACE(QTest::Internal::callInitMain)<TestObject>();                         \
        __VA_ARGS__                                                                                \
        TestObject tc;                                                                             \
        QTEST_SET_MAIN_SOURCE_PATH                                                                 \
        return QTest::qExec(&tc, argc, argv);                                                      \
    }                                                                                              \
    [[maybe_unused]] const bool hetplanTestRegistered                                              \
        = ::hetplan::testmain::registerTest(__FILE__, &hetplanRunTest);                            \
    }

// No application object (core tests).
#define HETPLAN_TEST_APPLESS_MAIN(TestObject) HETPLAN_TEST_WRAPPER(TestObject)
// A QCoreApplication (tests that run programs or use timers and event loops).
#define HETPLAN_TEST_GUILESS_MAIN(TestObject)                                                      \
    HETPLAN_TEST_WRAPPER(TestObject, QTEST_QAPP_SETUP(QCoreApplication))
// A QApplication where the area links Qt Widgets (GUI tests).
#define HETPLAN_TEST_MAIN(TestObject) HETPLAN_TEST_WRAPPER(TestObject, QTEST_MAIN_SETUP())
