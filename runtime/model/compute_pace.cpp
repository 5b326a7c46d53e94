#include "runtime/model/compute_pace.h"

#include "core/io/files.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <ctime>
#include <filesystem>
#include <string_view>
#include <thread>

namespace hetplan::runtime {
namespace {

std::atomic<double> g_speed{1.0};
// Seconds this thread still owes its paced compute (negative: overslept), carried between scopes.
thread_local double t_owedS = 0;
// What a thread may carry: a scope's wait is at most this late or early.
constexpr double kMostCarriedS = 0.01;

using Clock = std::chrono::steady_clock;

double threadCpuS()
{
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return double(now.tv_sec) + double(now.tv_nsec) * 1e-9;
}

// `text` without the blanks around it.
std::string_view trimmed(std::string_view text)
{
    constexpr std::string_view kBlanks = " \t\r\n";
    const std::size_t first = text.find_first_not_of(kBlanks);
    if (first == std::string_view::npos)
        return {};
    return text.substr(first, text.find_last_not_of(kBlanks) - first + 1);
}

} // namespace

Result<double> readEmulatedSpeed(const std::string &path)
{
    std::error_code missing;
    if (!std::filesystem::exists(path, missing))
        return 1.0;
    auto text = readTextFile(path);
    if (!text)
        return text.error();
    const std::string_view value = trimmed(*text);
    double speed = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), speed);
    if (ec != std::errc{} || end != value.data() + value.size() || !(speed > 0 && speed <= 1))
        return Error{ErrorKind::BadInput,
                     path + ": holds '" + std::string(value.substr(0, 40))
                         + "'; an emulated host's compute speed is a number above 0 and at most 1"};
    return speed;
}

void setComputeSpeed(double speed)
{
    g_speed.store(speed > 0 && speed <= 1 ? speed : 1.0);
}

double computeSpeed()
{
    return g_speed.load();
}

ComputePace::ComputePace()
    : m_speed(computeSpeed())
{
    resume();
}

ComputePace::~ComputePace()
{
    pause();
}

void ComputePace::pause()
{
    if (!m_counting)
        return;
    m_counting = false;
    const double wallS = std::chrono::duration<double>(Clock::now() - m_wallStart).count();
    const double waitS = (threadCpuS() - m_cpuStartS) / m_speed - wallS + t_owedS;
    if (waitS < kShortestWaitS) {
        t_owedS = std::clamp(waitS, -kMostCarriedS, kMostCarriedS);
        return;
    }
    const Clock::time_point start = Clock::now();
    std::this_thread::sleep_for(std::chrono::duration<double>(waitS));
    const double sleptS = std::chrono::duration<double>(Clock::now() - start).count();
    t_owedS = std::clamp(waitS - sleptS, -kMostCarriedS, kMostCarriedS);
}

void ComputePace::resume()
{
    if (m_speed >= 1 || m_counting)
        return;
    m_counting = true;
    m_cpuStartS = threadCpuS();
    m_wallStart = Clock::now();
}

Status PacedTpComm::allReduceSum(float *data, std::size_t count)
{
    m_pace.pause();
    Status s = m_inner.allReduceSum(data, count);
    m_pace.resume();
    return s;
}

} // namespace hetplan::runtime
