#include "core/io/files.h"

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <random>
#include <sys/stat.h>
#include <unistd.h>

namespace hetplan {

namespace {

// How long a FIFO or device may stay silent before reading it is given up.
constexpr int kInputWaitMs = 5000;

Error fileError(const std::string &path, std::string_view what, int error)
{
    std::string message = path + ": " + std::string(what);
    if (error != 0)
        message += std::string(": ") + std::strerror(error);
    return {ErrorKind::BadInput, std::move(message)};
}

// Closes on every path out of a function.
class FileDescriptor
{
public:
    explicit FileDescriptor(int fd)
        : m_fd(fd)
    {}
    ~FileDescriptor() { close(); }
    FileDescriptor(const FileDescriptor &) = delete;
    FileDescriptor &operator=(const FileDescriptor &) = delete;

    int get() const { return m_fd; }
    int close()
    {
        const int result = m_fd >= 0 ? ::close(m_fd) : 0;
        m_fd = -1;
        return result;
    }

private:
    int m_fd;
};

bool writeAll(int fd, std::string_view content)
{
    while (!content.empty()) {
        const ssize_t written = ::write(fd, content.data(), content.size());
        if (written < 0 && errno == EINTR)
            continue;
        if (written <= 0)
            return false;
        content.remove_prefix(static_cast<std::size_t>(written));
    }
    return true;
}

std::string folderOf(const std::string &path)
{
    const std::size_t slash = path.rfind('/');
    if (slash == std::string::npos)
        return ".";
    return slash == 0 ? "/" : path.substr(0, slash);
}

// Unique within this process by the counter, across processes by pid and a random tag.
std::string temporaryPathFor(const std::string &path)
{
    static std::atomic<unsigned> counter{0};
    thread_local std::mt19937 random{std::random_device{}()};
    return path + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(++counter) + "-"
           + std::to_string(random() % 1000000);
}

// The file a chain of symbolic links ends at (possibly not existing yet); `path` itself when
// it is not a link.
std::string resolvedPath(const std::string &path)
{
    std::string current = path;
    for (int hop = 0; hop < 40; ++hop) {
        struct stat info
        {
        };
        if (::lstat(current.c_str(), &info) != 0 || !S_ISLNK(info.st_mode))
            return current;
        std::string target(std::size_t(PATH_MAX), '\0');
        const ssize_t length = ::readlink(current.c_str(), target.data(), target.size());
        if (length <= 0)
            return current;
        target.resize(std::size_t(length));
        current = target.front() == '/' ? target : folderOf(current) + "/" + target;
    }
    return current;
}

// Devices and FIFOs: opened without O_CREAT or O_TRUNC and written directly. Non-blocking
// open, so a FIFO without a reader is an error instead of a wait forever.
Status writeInPlace(const std::string &path, std::string_view content)
{
    FileDescriptor fd(::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NONBLOCK));
    if (fd.get() < 0)
        return fileError(path, "cannot open for writing", errno);
    const int flags = ::fcntl(fd.get(), F_GETFL);
    if (flags >= 0)
        ::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK);
    if (!writeAll(fd.get(), content)) {
        Error e = fileError(path, "cannot write", errno);
        e.kind = ErrorKind::Internal;
        return e;
    }
    return okStatus();
}

} // namespace

Result<std::string> readTextFile(const std::string &path, std::size_t maxBytes)
{
    // Non-blocking open: opening a FIFO without a writer would otherwise wait forever.
    FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
    if (fd.get() < 0) {
        const int error = errno;
        if (error == ENOENT)
            return fileError(path, "no such file", 0);
        return fileError(path, "cannot open", error);
    }
    struct stat info
    {
    };
    if (::fstat(fd.get(), &info) != 0)
        return fileError(path, "cannot read", errno);
    if (S_ISDIR(info.st_mode))
        return fileError(path, "is a folder, not a file", 0);
    const auto tooLarge = [&](std::size_t bytes) {
        return fileError(path,
                         "is " + std::to_string(bytes) + " bytes; HetPlan reads at most "
                             + std::to_string(maxBytes),
                         0);
    };
    if (S_ISREG(info.st_mode) && static_cast<std::size_t>(info.st_size) > maxBytes)
        return tooLarge(static_cast<std::size_t>(info.st_size));

    // Read up to one byte past the limit: pipes and growing files have no trustworthy size.
    std::string text;
    char buffer[1 << 16];
    for (;;) {
        // A FIFO or device may never deliver (no writer, a terminal): wait a bounded time.
        if (!S_ISREG(info.st_mode)) {
            pollfd wait{fd.get(), POLLIN, 0};
            const int ready = ::poll(&wait, 1, kInputWaitMs);
            if (ready < 0 && errno == EINTR)
                continue;
            if (ready == 0)
                return fileError(path,
                                 "nothing arrived for " + std::to_string(kInputWaitMs / 1000)
                                     + " s (a FIFO without a writer?); save it to a file first",
                                 0);
        }
        const ssize_t got = ::read(fd.get(), buffer, sizeof buffer);
        if (got < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (got < 0)
            return fileError(path, "cannot read", errno);
        if (got == 0)
            break;
        text.append(buffer, static_cast<std::size_t>(got));
        if (text.size() > maxBytes)
            return tooLarge(text.size());
    }
    return text;
}

Status checkWritable(const std::string &path)
{
    struct stat existing
    {
    };
    if (path.empty())
        return fileError("''", "is not a file name", 0);
    const int found = ::stat(path.c_str(), &existing);
    if (found != 0 && errno == ELOOP)
        return fileError(path, "is a loop of symbolic links; name a file", 0);
    if (found == 0) {
        if (S_ISDIR(existing.st_mode))
            return fileError(path, "is a folder; cannot write a file there", 0);
        // The mode bits too: root may write anything, yet a read-only file is a person's
        // "do not overwrite".
        if (S_ISREG(existing.st_mode) && (existing.st_mode & 0222) == 0)
            return fileError(path, "is read-only; refusing to overwrite it", 0);
        if (::access(path.c_str(), W_OK) != 0)
            return fileError(path, "cannot be written", errno);
        if (!S_ISREG(existing.st_mode))
            return okStatus(); // written in place
    }
    const std::string folder = folderOf(resolvedPath(path));
    struct stat info
    {
    };
    if (::stat(folder.c_str(), &info) != 0 || !S_ISDIR(info.st_mode))
        return fileError(path, "the folder " + folder + " does not exist", 0);
    if (::access(folder.c_str(), W_OK | X_OK) != 0)
        return fileError(path, "the folder " + folder + " is not writable", errno);
    return okStatus();
}

Status checkReadableFile(const std::string &path)
{
    struct stat info
    {
    };
    if (::stat(path.c_str(), &info) != 0)
        return errno == ENOENT ? fileError(path, "no such file", 0)
                               : fileError(path, "cannot be read", errno);
    if (S_ISDIR(info.st_mode))
        return fileError(path, "is a folder, not a file", 0);
    if (S_ISFIFO(info.st_mode))
        return fileError(path, "is a FIFO, not a file", 0);
    if (!S_ISREG(info.st_mode))
        return fileError(path, "is a device or a socket, not a file", 0);
    // Non-blocking all the same: the path may have been replaced since the stat.
    FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
    if (fd.get() < 0)
        return fileError(path, "cannot be read", errno);
    if (::fstat(fd.get(), &info) != 0 || !S_ISREG(info.st_mode))
        return fileError(path, "is not a regular file", 0);
    return okStatus();
}

std::string expandHome(const std::string &path)
{
    if (!path.starts_with("~/"))
        return path;
    const char *home = std::getenv("HOME");
    return std::string(home ? home : "") + path.substr(1);
}

bool sameFile(const std::string &a, const std::string &b)
{
    struct stat first
    {
    };
    struct stat second
    {
    };
    return ::stat(a.c_str(), &first) == 0 && ::stat(b.c_str(), &second) == 0
           && first.st_dev == second.st_dev && first.st_ino == second.st_ino;
}

Status writeFileAtomic(const std::string &pathGiven, std::string_view content)
{
    if (Status writable = checkWritable(pathGiven); !writable)
        return writable;
    // A link is written through: its target is what gets replaced, the link stays.
    const std::string path = resolvedPath(pathGiven);
    struct stat existing
    {
    };
    const bool replacing = ::stat(path.c_str(), &existing) == 0;
    if (replacing && !S_ISREG(existing.st_mode))
        return writeInPlace(path, content);

    std::string temporary;
    int fdNumber = -1;
    for (int attempt = 0; attempt < 16 && fdNumber < 0; ++attempt) {
        temporary = temporaryPathFor(path);
        fdNumber = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fdNumber < 0 && errno != EEXIST)
            break;
    }
    if (fdNumber < 0)
        return fileError(path, "cannot create a file in " + folderOf(path), errno);
    FileDescriptor fd(fdNumber);

    const auto fail = [&](std::string_view what, int error) -> Status {
        fd.close();
        ::unlink(temporary.c_str());
        Error e = fileError(path, what, error);
        e.kind = ErrorKind::Internal;
        return e;
    };
    // Keep the permissions a person gave the file we replace.
    if (replacing && ::fchmod(fd.get(), existing.st_mode & 07777) != 0)
        return fail("cannot set permissions", errno);
    if (!writeAll(fd.get(), content))
        return fail("cannot write", errno);
    if (::fsync(fd.get()) != 0)
        return fail("cannot flush to disk", errno);
    if (fd.close() != 0)
        return fail("cannot write", errno);
    if (::rename(temporary.c_str(), path.c_str()) != 0)
        return fail("cannot replace", errno);

    // Make the rename itself durable; a failure here leaves a correct file, so it is ignored.
    FileDescriptor folder(::open(folderOf(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (folder.get() >= 0)
        ::fsync(folder.get());
    return okStatus();
}

} // namespace hetplan
