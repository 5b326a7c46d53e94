// Streaming a remote command's output without blocking (libssh 0.10 channels).
#include "runtime/launcher/remote_command.h"

#include "runtime/launcher/ssh_session.h"

#include <array>
#include <chrono>
#include <libssh/libssh.h>
#include <poll.h>

namespace hetplan {

namespace {

// Hands everything already buffered on one stream to the sink; -1 on a channel error.
int drain(ssh_channel channel, OutputStream stream, const OutputSink &sink)
{
    std::array<char, 16384> buffer{};
    const int isStderr = stream == OutputStream::Stderr ? 1 : 0;
    int total = 0;
    for (;;) {
        const int n = ssh_channel_read_nonblocking(channel, buffer.data(),
                                                   std::uint32_t(buffer.size()), isStderr);
        if (n == SSH_ERROR)
            return -1;
        if (n <= 0)
            return total;
        if (sink)
            sink(stream, std::string_view(buffer.data(), std::size_t(n)));
        total += n;
    }
}

} // namespace

RemoteCommand::RemoteCommand(ssh_channel_struct *channel, std::string destination,
                             std::string command)
    : m_channel(channel)
    , m_destination(std::move(destination))
    , m_command(std::move(command))
{}

RemoteCommand::~RemoteCommand()
{
    ssh_channel_close(m_channel);
    ssh_channel_free(m_channel);
}

Result<bool> RemoteCommand::poll(int waitMs, const OutputSink &sink)
{
    if (m_exitStatus)
        return false;
    ssh_session session = ssh_channel_get_session(m_channel);
    const std::string step = "reading the output of `" + m_command + "`";
    int got = 0;
    for (OutputStream stream : {OutputStream::Stdout, OutputStream::Stderr}) {
        const int n = drain(m_channel, stream, sink);
        if (n < 0)
            return sshError(session, m_destination, step);
        got += n;
    }
    if (ssh_channel_is_eof(m_channel) != 0) {
        // What arrived between the reads above and the end of the output.
        for (OutputStream stream : {OutputStream::Stdout, OutputStream::Stderr})
            if (drain(m_channel, stream, sink) < 0)
                return sshError(session, m_destination, step);
        if (Status s = finish(); !s)
            return s.error();
        return false;
    }
    // Nothing was buffered: wait for the server, at most waitMs. This wakes on stdout; stderr
    // that arrives meanwhile is buffered by libssh and handed over by the next poll.
    if (got == 0 && waitMs > 0 && ssh_channel_poll_timeout(m_channel, waitMs, 0) == SSH_ERROR)
        return sshError(session, m_destination, step,
                        "the connection to the host may have dropped");
    return true;
}

Status RemoteCommand::finish()
{
    ssh_session session = ssh_channel_get_session(m_channel);
    const int status = ssh_channel_get_exit_status(m_channel);
    if (status < 0) {
        const char *why = ssh_get_error(session);
        return Error{ErrorKind::Internal,
                     m_destination + ": `" + m_command
                         + "` ended without an exit status (killed by a signal, or the "
                           "connection dropped)"
                         + (why != nullptr && *why != '\0' ? ": " + std::string(why) : "")};
    }
    m_exitStatus = status;
    return okStatus();
}

Result<int> RemoteCommand::wait(double timeoutS, const OutputSink &sink)
{
    using Clock = std::chrono::steady_clock;
    const auto deadline = Clock::now() + std::chrono::duration<double>(timeoutS);
    for (;;) {
        Result<bool> running = poll(100, sink);
        if (!running)
            return running.error();
        if (!*running)
            return *m_exitStatus;
        if (Clock::now() > deadline)
            return Error{ErrorKind::Internal,
                         m_destination + ": `" + m_command + "` did not end within "
                             + std::to_string(int(timeoutS)) + " s; it may still run there"};
    }
}

Status RemoteCommand::write(std::string_view bytes)
{
    while (!bytes.empty()) {
        const int n = ssh_channel_write(m_channel, bytes.data(), std::uint32_t(bytes.size()));
        if (n == SSH_ERROR)
            return sshError(ssh_channel_get_session(m_channel), m_destination,
                            "writing to `" + m_command + "`",
                            "the connection to the host may have dropped");
        bytes.remove_prefix(std::size_t(n));
    }
    return okStatus();
}

void RemoteCommand::waitForAny(const std::vector<RemoteCommand *> &commands, int waitMs)
{
    // What libssh had buffered was read by poll(); what is still to come arrives on the
    // sessions' sockets, so waiting for those is enough.
    std::vector<pollfd> sockets;
    for (RemoteCommand *c : commands) {
        const socket_t fd = ssh_get_fd(ssh_channel_get_session(c->m_channel));
        if (fd != SSH_INVALID_SOCKET && !c->m_exitStatus)
            sockets.push_back({fd, POLLIN, 0});
    }
    if (!sockets.empty())
        ::poll(sockets.data(), sockets.size(), waitMs);
}

Result<CommandOutput> runCommand(SshSession &session, const std::string &command, double timeoutS)
{
    auto started = session.start(command);
    if (!started)
        return started.error();
    CommandOutput out;
    auto status = (*started)->wait(timeoutS, [&out](OutputStream stream, std::string_view text) {
        (stream == OutputStream::Stdout ? out.stdoutText : out.stderrText).append(text);
    });
    if (!status)
        return status.error();
    out.exitStatus = *status;
    return out;
}

} // namespace hetplan
