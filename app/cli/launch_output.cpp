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
        print(m_lines.add(event));
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

void LaunchOutput::print(const std::vector<LaunchLines::Line> &lines)
{
    for (const LaunchLines::Line &line : lines) {
        std::ostream &to = line.isStderr ? m_err : m_out;
        to << "[rank " << line.rank << " " << line.host << "] " << line.text << '\n';
        to.flush();
    }
}

void LaunchOutput::flush()
{
    std::lock_guard lock(m_mutex);
    print(m_lines.flush());
}

} // namespace hetplan::cli
