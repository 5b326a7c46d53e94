// The bounded pool of host steps (host_pool.h).
#include "runtime/launcher/host_pool.h"

#include <algorithm>
#include <atomic>
#include <system_error>
#include <thread>

namespace hetplan::launch {

Status forEachHost(std::size_t count, const std::function<void(std::size_t)> &step,
                   std::size_t maxThreads)
{
    std::atomic<std::size_t> next{0};
    const auto work = [&next, &step, count] {
        for (std::size_t i = next++; i < count; i = next++)
            step(i);
    };
    std::vector<std::thread> threads;
    std::string failure;
    const std::size_t wanted = std::min(count, std::max<std::size_t>(maxThreads, 1));
    threads.reserve(wanted);
    for (std::size_t t = 0; t < wanted; ++t) {
        try {
            threads.emplace_back(work);
        } catch (const std::system_error &e) {
            failure = e.what();
            break;
        }
    }
    for (std::thread &t : threads)
        t.join();
    if (threads.empty() && count > 0)
        return Error{ErrorKind::Internal, "cannot start a thread for the hosts' work (" + failure
                                              + "); the system's thread or memory limit is "
                                                "reached: close other programs or raise "
                                                "`ulimit -u`"};
    return okStatus();
}

} // namespace hetplan::launch
