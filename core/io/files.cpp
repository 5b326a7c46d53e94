#include "core/io/files.h"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <random>
#include <sys/stat.h>
#include <unistd.h>

namespace hetplan {

namespace {

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

} // namespace

Result<std::string> readTextFile(const std::string &path, std::size_t maxBytes)
{
    FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
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
        const ssize_t got = ::read(fd.get(), buffer, sizeof buffer);
        if (got < 0 && errno == EINTR)
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

Status writeFileAtomic(const std::string &path, std::string_view content)
{
    struct stat existing
    {
    };
    const bool replacing = ::stat(path.c_str(), &existing) == 0;
    if (replacing && S_ISDIR(existing.st_mode))
        return fileError(path, "is a folder; cannot write a file there", 0);

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
