#include "runtime/serve/served_records.h"

#include "core/io/files.h"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace hetplan::runtime {

Status writeServedRecords(const std::string &path, const std::vector<ServedRequest> &served)
{
    std::ostringstream out;
    out.precision(17);
    for (const ServedRequest &s : served) {
        std::string failure = s.failure;
        std::replace(failure.begin(), failure.end(), '\n', ' ');
        std::replace(failure.begin(), failure.end(), '\t', ' ');
        out << s.id << '\t' << s.replica << '\t' << s.arrivalS << '\t' << s.admittedS << '\t'
            << s.firstTokenS << '\t' << s.finishS << '\t' << s.promptTokens << '\t'
            << s.outputTokens << '\t' << int(s.warmup) << '\t' << int(s.completed) << '\t'
            << failure << '\n';
    }
    return writeFileAtomic(path, out.str());
}

Result<std::vector<ServedRequest>> parseServedRecords(const std::string &text,
                                                      const std::string &source)
{
    std::istringstream in(text);
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
