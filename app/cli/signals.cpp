#include "app/cli/signals.h"

#include <atomic>
#include <csignal>
#include <mutex>
#include <pthread.h>
#include <thread>
#include <unistd.h>

namespace hetplan::cli {
namespace {

std::stop_source &stopSource()
{
    static std::stop_source source;
    return source;
}

std::atomic<int> g_signal{0};
std::mutex g_scopeMutex; // held while deciding between "stop" and "exit now"
int g_stoppableScopes = 0;

void watch(sigset_t signals)
{
    for (;;) {
        int number = 0;
        if (::sigwait(&signals, &number) != 0)
            continue;
        std::lock_guard lock(g_scopeMutex);
        if (g_signal.load() != 0 || g_stoppableScopes == 0)
            ::_exit(128 + number); // a second signal, or nothing to stop gracefully
        g_signal = number;
        stopSource().request_stop();
    }
}

} // namespace

void startSignalWatcher()
{
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &signals, nullptr);
    std::thread(watch, signals).detach();
}

std::stop_token stopToken()
{
    return stopSource().get_token();
}

int receivedSignal()
{
    return g_signal.load();
}

int signalExitCode()
{
    return 128 + receivedSignal();
}

const char *receivedSignalName()
{
    return receivedSignal() == SIGINT ? "SIGINT" : "SIGTERM";
}

StoppableScope::StoppableScope()
{
    std::lock_guard lock(g_scopeMutex);
    ++g_stoppableScopes;
}

StoppableScope::~StoppableScope()
{
    std::lock_guard lock(g_scopeMutex);
    --g_stoppableScopes;
}

} // namespace hetplan::cli
