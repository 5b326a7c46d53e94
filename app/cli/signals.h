#pragma once

#include <stop_token>

namespace hetplan::cli {

// SIGINT and SIGTERM as a stop request. Some libraries install their own handlers around
// their calls (METIS 5.1 does for SIGTERM), so a handler of ours could be replaced at any
// moment; instead the signals are blocked in every thread and one thread waits for them
// with sigwait(), which no handler can take away. Call start() in main() before any other
// thread exists, so every thread inherits the blocked mask. A library that starts threads
// before main() (OpenBLAS does, at load) would leave them unblocked: a signal could land there
// and run METIS's handler in the wrong thread, so hetplan-cli links no such library
// (runtime/worker/scaled_model.h).
//
// While a command has marked itself stoppable (StoppableScope), a signal requests stop on
// stopToken() and the command finishes with what it has; otherwise the process exits at
// once. Either way the exit code is 128 + the signal number (130 SIGINT, 143 SIGTERM).
void startSignalWatcher();
std::stop_token stopToken();
// 0 until a signal arrived; then its number.
int receivedSignal();
// 128 + receivedSignal(); only meaningful once one arrived.
int signalExitCode();
const char *receivedSignalName();

class StoppableScope
{
public:
    StoppableScope();
    ~StoppableScope();
    StoppableScope(const StoppableScope &) = delete;
    StoppableScope &operator=(const StoppableScope &) = delete;
};

} // namespace hetplan::cli
