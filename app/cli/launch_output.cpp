#include "app/cli/launch_output.h"

namespace hetplan::cli {

namespace {

const char *phaseName(JobPhase phase)
{
    switch (phase) {
    case JobPhase::Connecting:
        return "connecting to every host (preflight)";
    case JobPhase::Uploading:
        return "uploading the job's files";
    case JobPhase::Running:
        return "running";
    case JobPhase::Done:
        return "done";
    case JobPhase::Failed:
        return "failed";
    case JobPhase::Cancelled:
        return "cancelled";
    }
    return "";
}

} // namespace

void LaunchOutput::operator()(const LaunchEvent &event)
{
    std::lock_guard lock(m_mutex);
    switch (event.kind) {
    case LaunchEvent::Kind::Output:
        m_hosts[event.rank] = event.host;
        printLines(event);
        break;
    case LaunchEvent::Kind::Phase:
        m_out << "hetplan-cli launch: " << phaseName(event.phase) << std::endl;
        break;
    case LaunchEvent::Kind::UnknownKey:
        m_err << "hetplan-cli launch: " << event.host << " offers an unknown " << event.keyType
              << " host key " << event.fingerprint << std::endl;
        break;
    case LaunchEvent::Kind::Message:
        m_err << "hetplan-cli launch: " << (event.host.empty() ? "" : event.host + ": ")
              << event.text << std::endl;
        break;
    }
}

void LaunchOutput::printLines(const LaunchEvent &event)
{
    std::string &partial = m_partial[{event.rank, event.isStderr}];
    partial += event.text;
    std::ostream &to = event.isStderr ? m_err : m_out;
    const std::string prefix = "[rank " + std::to_string(event.rank) + " " + event.host + "] ";
    std::size_t start = 0;
    for (std::size_t end; (end = partial.find('\n', start)) != std::string::npos; start = end + 1)
        to << prefix << std::string_view(partial).substr(start, end - start) << '\n';
    partial.erase(0, start);
    to.flush();
}

void LaunchOutput::flush()
{
    std::lock_guard lock(m_mutex);
    for (auto &[key, partial] : m_partial)
        if (!partial.empty()) {
            (key.second ? m_err : m_out) << "[rank " << key.first << " " << m_hosts[key.first]
                                         << "] " << partial << std::endl;
            partial.clear();
        }
}

} // namespace hetplan::cli
