#pragma once

#include "core/base/result.h"

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

struct ssh_channel_struct;

namespace hetplan {

enum class OutputStream { Stdout, Stderr };

// Receives a command's output as it arrives, in pieces of any size (a line may be split).
using OutputSink = std::function<void(OutputStream, std::string_view)>;

// A command running on its own channel of an SshSession (which must outlive it). Closing the
// channel does not stop the remote command: stopping is a second command (kill of its process
// group), because OpenSSH 9 refuses signal requests for root logins.
class RemoteCommand
{
public:
    RemoteCommand(ssh_channel_struct *channel, std::string destination, std::string command);
    ~RemoteCommand();
    RemoteCommand(const RemoteCommand &) = delete;
    RemoteCommand &operator=(const RemoteCommand &) = delete;

    // Hands what has arrived on stdout and stderr to `sink`, waiting at most `waitMs` for
    // something to arrive, so a caller can watch many commands and still react to Cancel.
    // Returns whether the command still runs; once it has ended, exitStatus() is set.
    Result<bool> poll(int waitMs, const OutputSink &sink);

    // Polls until the command ends or `timeoutS` passes (then an Error; the command is left
    // running). Returns the exit status.
    Result<int> wait(double timeoutS, const OutputSink &sink);

    // Sends `bytes` to the command's stdin, all of them (waiting while the server's window is
    // full).
    Status write(std::string_view bytes);

    // Waits at most `waitMs` until one of `commands` has something to read or has ended, so
    // one thread can watch the channels of many hosts.
    static void waitForAny(const std::vector<RemoteCommand *> &commands, int waitMs);

    // The exit status once ended. A command that ends without one (killed by a signal, the
    // connection dropped) makes poll() return an Error instead: unknown is not success.
    std::optional<int> exitStatus() const { return m_exitStatus; }

private:
    Status finish();

    ssh_channel_struct *m_channel; // owned
    std::string m_destination;
    std::string m_command;
    std::optional<int> m_exitStatus;
};

// Runs `command` to its end and collects its output, for short commands (checks, kills).
struct CommandOutput
{
    int exitStatus = -1;
    std::string stdoutText;
    std::string stderrText;
};
class SshSession;
Result<CommandOutput> runCommand(SshSession &session, const std::string &command, double timeoutS);

} // namespace hetplan
