#include "runtime/model/compute_pace.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
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

std::string trimmed(std::string text)
{
    const auto blank
        = [](unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
    while (!text.empty() && blank(static_cast<unsigned char>(text.back())))
        text.pop_back();
    const auto first = std::find_if_not(
        text.begin(), text.end(), [&](char c) { return blank(static_cast<unsigned char>(c)); });
    return {first, text.end()};
}

} // namespace

Result<double> readEmulatedSpeed(const std::string &path)
{
    std::error_code missing;
    if (!std::filesystem::exists(path, missing))
        return 1.0;
    std::ifstream in(path);
    if (!in)
        return Error{ErrorKind::BadInput,
                     path + ": cannot be read (an emulated host's compute speed)"};
    std::ostringstream text;
    text << in.rdbuf();
    const std::string value = trimmed(text.str());
    double speed = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), speed);
    if (ec != std::errc{} || end != value.data() + value.size() || !(speed > 0 && speed <= 1))
        return Error{ErrorKind::BadInput,
                     path + ": holds '" + value.substr(0, 40)
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
