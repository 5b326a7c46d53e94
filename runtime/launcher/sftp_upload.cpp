// SshSession::upload and download by SFTP. An upload goes to a temporary name, then a rename
// over the target, so a reader on the host never sees half a file.
#include "runtime/launcher/remote_command.h"
#include "runtime/launcher/ssh_session.h"

#include <fcntl.h>
#include <libssh/libssh.h>
#include <libssh/sftp.h>
#include <memory>
#include <random>

namespace hetplan {

namespace {

struct SftpFree
{
    void operator()(sftp_session s) const { sftp_free(s); }
};

// libssh's doc/sftp.dox: 16 KiB requests suit most servers.
constexpr std::size_t kChunkBytes = std::size_t(16) * 1024;

std::string temporaryName(const std::string &path)
{
    std::random_device random;
    return path + ".tmp-" + std::to_string(random() % 1000000000u);
}

Status writeAll(sftp_session sftp, const std::string &path, const std::string &content, int mode)
{
    sftp_file file = sftp_open(sftp, path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, mode_t(mode));
    if (file == nullptr)
        return Error{};
    std::size_t done = 0;
    while (done < content.size()) {
        const std::size_t n = std::min(kChunkBytes, content.size() - done);
        const ssize_t written = sftp_write(file, content.data() + done, n);
        if (written <= 0) {
            sftp_close(file);
            return Error{};
        }
        done += std::size_t(written);
    }
    return sftp_close(file) == SSH_OK ? okStatus() : Status(Error{});
}

using SftpPtr = std::unique_ptr<sftp_session_struct, SftpFree>;

Result<SftpPtr> openSftp(ssh_session session, const std::string &destination,
                         const std::string &step)
{
    SftpPtr sftp(sftp_new(session));
    if (!sftp || sftp_init(sftp.get()) != SSH_OK)
        return sshError(session, destination, step + " (starting SFTP)",
                        "check that sshd on the host has an sftp Subsystem");
    return sftp;
}

} // namespace

Result<std::string> SshSession::download(const std::string &remotePath, std::size_t maxBytes)
{
    const std::string step = "downloading " + remotePath;
    auto sftp = openSftp(m_session, m_destination, step);
    if (!sftp)
        return sftp.error();
    sftp_file file = sftp_open(sftp->get(), remotePath.c_str(), O_RDONLY, 0);
    if (file == nullptr)
        return sshError(m_session, m_destination, step,
                        "SFTP error " + std::to_string(sftp_get_error(sftp->get()))
                            + "; check that the file exists and is readable");
    std::string content;
    std::string chunk(kChunkBytes, '\0');
    for (;;) {
        const ssize_t n = sftp_read(file, chunk.data(), chunk.size());
        if (n < 0) {
            sftp_close(file);
            return sshError(m_session, m_destination, step + " (reading)");
        }
        if (n == 0)
            break;
        content.append(chunk.data(), std::size_t(n));
        if (content.size() > maxBytes) {
            sftp_close(file);
            return Error{ErrorKind::Internal, m_destination + ": " + step + ": larger than "
                                                  + std::to_string(maxBytes >> 20) + " MiB"};
        }
    }
    sftp_close(file);
    return content;
}

Status SshSession::upload(const std::string &content, const std::string &remotePath, int mode)
{
    return upload({{remotePath, content}}, mode);
}

Status SshSession::upload(const std::vector<std::pair<std::string, std::string>> &files, int mode)
{
    if (files.empty())
        return okStatus();
    auto opened = openSftp(m_session, m_destination, "uploading " + files.front().first);
    if (!opened)
        return opened.error();
    SftpPtr sftp = std::move(opened).value();
    for (const auto &[remotePath, content] : files)
        if (Status s = uploadOne(sftp.get(), content, remotePath, mode); !s)
            return s;
    return okStatus();
}

Status SshSession::uploadOne(sftp_session_struct *sftp, const std::string &content,
                             const std::string &remotePath, int mode)
{
    const std::string step = "uploading " + remotePath;
    const std::string temporary = temporaryName(remotePath);
    if (!writeAll(sftp, temporary, content, mode)) {
        Error e = sshError(m_session, m_destination, step + " (writing " + temporary + ")",
                           "check that the folder exists, is writable and has space");
        sftp_unlink(sftp, temporary.c_str());
        return e;
    }
    if (sftp_rename(sftp, temporary.c_str(), remotePath.c_str()) == SSH_OK)
        return okStatus();
    // SFTP v3's rename refuses an existing target on OpenSSH, and libssh 0.10 cannot send the
    // posix-rename extension; `mv -f` is rename(2) on one file system, just as atomic.
    Result<CommandOutput> moved
        = runCommand(*this, "mv -f -- " + shellQuote(temporary) + " " + shellQuote(remotePath),
                     m_target.timeoutS);
    if (moved && moved->exitStatus == 0)
        return okStatus();
    sftp_unlink(sftp, temporary.c_str());
    return Error{ErrorKind::Internal,
                 m_destination + ": " + step + " failed: renaming " + temporary
                     + " over it: " + (moved ? moved->stderrText : moved.error().message)};
}

} // namespace hetplan
