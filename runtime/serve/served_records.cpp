#include "runtime/serve/served_records.h"

#include "core/io/files.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace hetplan::runtime {

namespace {

void writeLine(std::ostream &out, const ServedRequest &s)
{
    std::string failure = s.failure;
    std::replace(failure.begin(), failure.end(), '\n', ' ');
    std::replace(failure.begin(), failure.end(), '\t', ' ');
    out << s.id << '\t' << s.replica << '\t' << s.arrivalS << '\t' << s.admittedS << '\t'
        << s.firstTokenS << '\t' << s.finishS << '\t' << s.promptTokens << '\t' << s.outputTokens
        << '\t' << int(s.warmup) << '\t' << int(s.completed) << '\t' << failure << '\n';
}

} // namespace

Status writeServedRecords(const std::string &path, const std::vector<ServedRequest> &served)
{
    std::ostringstream out;
    out.precision(17);
    for (const ServedRequest &s : served)
        writeLine(out, s);
    return writeFileAtomic(path, out.str());
}

Status appendServedRecord(const std::string &path, const ServedRequest &served)
{
    std::ostringstream out;
    out.precision(17);
    writeLine(out, served);
    const std::string line = out.str();
    const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return badInput(path + ": cannot append a served request: " + std::strerror(errno));
    const ssize_t written = ::write(fd, line.data(), line.size());
    const int error = errno;
    ::close(fd);
    if (written != ssize_t(line.size()))
        return badInput(path + ": cannot append a served request: "
                        + (written < 0 ? std::strerror(error) : "a short write"));
    return okStatus();
}

Result<std::vector<ServedRequest>> parseServedRecords(const std::string &text,
                                                      const std::string &source)
{
    // Only whole lines: a journal's last append may have been cut short.
    std::istringstream in(text.substr(0, text.rfind('\n') + 1));
    std::vector<ServedRequest> served;
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
        std::istringstream fields(line);
        ServedRequest s;
        int warmup = 0;
        int completed = 0;
        if (!(fields >> s.id >> s.replica >> s.arrivalS >> s.admittedS >> s.firstTokenS >> s.finishS
              >> s.promptTokens >> s.outputTokens >> warmup >> completed))
            return badInput(source + ":" + std::to_string(number) + ": not a served request");
        s.warmup = warmup != 0;
        s.completed = completed != 0;
        fields.get(); // the tab before the failure
        std::getline(fields, s.failure);
        served.push_back(std::move(s));
    }
    return served;
}

Result<std::vector<ServedRequest>> readServedRecords(const std::string &path)
{
    std::ifstream in(path);
    if (!in)
        return badInput(path + ": cannot read the served requests");
    std::ostringstream text;
    text << in.rdbuf();
    return parseServedRecords(text.str(), path);
}

} // namespace hetplan::runtime
