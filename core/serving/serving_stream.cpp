#include "core/serving/serving_stream.h"

#include "core/io/files.h"

#include <charconv>
#include <cmath>

namespace hetplan {

namespace {

// Latest arrival a trace may give: about 116 days, far past any benchmark.
constexpr double kMaxArrivalS = 1e7;

constexpr const char *kTraceFields[] = {"arrival_s", "prompt_tokens", "output_tokens"};

std::string lineError(std::string_view source, int line, std::string_view what)
{
    std::string message(source);
    message += ": line ";
    message += std::to_string(line);
    message += ": ";
    message += what;
    return message;
}

// Splits a trace line (comment removed) into its fields.
std::vector<std::string_view> fieldsOf(std::string_view line)
{
    std::vector<std::string_view> fields;
    std::size_t i = 0;
    const auto separator = [](char c) { return c == ' ' || c == '\t' || c == ',' || c == '\r'; };
    while (i < line.size()) {
        while (i < line.size() && separator(line[i]))
            ++i;
        const std::size_t begin = i;
        while (i < line.size() && !separator(line[i]))
            ++i;
        if (i > begin)
            fields.push_back(line.substr(begin, i - begin));
    }
    return fields;
}

// Why `text` is not a valid value of field `index`, or empty.
std::string checkField(std::string_view text, int index, double &value)
{
    const char *end = text.data() + text.size();
    std::string shown;
    for (const char c : text.substr(0, 40))
        shown += c >= ' ' && c <= '~' ? c : '?';
    if (text.size() > 40)
        shown += "…";
    std::string why = kTraceFields[index];
    why += ": \"";
    why += shown;
    why += "\" ";
    if (index == 0) {
        const auto [ptr, ec] = std::from_chars(text.data(), end, value);
        if (ec == std::errc::result_out_of_range && ptr == end)
            return why + "is out of range; valid: 0 to 1e7 seconds";
        if (ec != std::errc() || ptr != end || !std::isfinite(value))
            return why + "is not a number; valid: seconds from the stream's start, 0 to 1e7";
        if (value < 0 || value > kMaxArrivalS)
            return why + "is out of range; valid: 0 to 1e7 seconds";
        return {};
    }
    int tokens = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), end, tokens);
    if (ec != std::errc() || ptr != end || tokens < 1 || tokens > kMaxRequestTokens)
        return why + "is not a token count; valid: 1.." + std::to_string(kMaxRequestTokens);
    value = tokens;
    return {};
}

} // namespace

double unitExponential(std::mt19937_64 &rng)
{
    const double u = double(rng() >> 11) * 0x1.0p-53;
    return -std::log1p(-u);
}

std::vector<ServingRequest> poissonRequests(const PoissonStream &stream)
{
    std::vector<ServingRequest> requests;
    if (!(stream.ratePerS > 0))
        return requests;
    std::mt19937_64 rng(stream.seed);
    double arrivalS = 0;
    while (int(requests.size()) < kMaxStreamRequests) {
        if (stream.requests > 0 && int(requests.size()) >= stream.requests)
            break;
        arrivalS += unitExponential(rng) / stream.ratePerS;
        if (stream.requests <= 0 && !(arrivalS < stream.durationS))
            break;
        ServingRequest request;
        request.id = int(requests.size());
        request.arrivalS = arrivalS;
        request.promptTokens = stream.promptTokens;
        request.outputTokens = stream.outputTokens;
        requests.push_back(request);
    }
    return requests;
}

Result<std::vector<ServingRequest>> parseServingTrace(std::string_view text,
                                                      std::string_view source)
{
    std::vector<ServingRequest> requests;
    int lineNumber = 0;
    std::size_t pos = 0;
    while (pos < text.size()) {
        std::size_t end = text.find('\n', pos);
        if (end == std::string_view::npos)
            end = text.size();
        std::string_view line = text.substr(pos, end - pos);
        pos = end + 1;
        ++lineNumber;
        line = line.substr(0, line.find('#'));
        const std::vector<std::string_view> fields = fieldsOf(line);
        if (fields.empty())
            continue;
        if (fields.size() != 3) {
            std::string what = std::to_string(fields.size());
            what += fields.size() == 1 ? " field" : " fields";
            what += "; valid: arrival_s prompt_tokens output_tokens";
            return badInput(lineError(source, lineNumber, what));
        }
        double values[3] = {};
        for (int f = 0; f < 3; ++f)
            if (std::string why = checkField(fields[std::size_t(f)], f, values[f]); !why.empty())
                return badInput(lineError(source, lineNumber, why));
        if (!requests.empty() && values[0] < requests.back().arrivalS) {
            std::string what = "arrival_s: ";
            what += fields[0];
            what += " is before the previous line's; valid: arrivals in non-decreasing order";
            return badInput(lineError(source, lineNumber, what));
        }
        if (int(requests.size()) >= kMaxStreamRequests)
            return badInput(lineError(source, lineNumber,
                                      "more than " + std::to_string(kMaxStreamRequests)
                                          + " requests; split the trace"));
        ServingRequest request;
        request.id = int(requests.size());
        request.arrivalS = values[0];
        request.promptTokens = int(values[1]);
        request.outputTokens = int(values[2]);
        requests.push_back(request);
    }
    if (requests.empty()) {
        std::string message(source);
        message += ": no requests; a trace has one line per request: arrival_s prompt_tokens "
                   "output_tokens";
        return badInput(std::move(message));
    }
    return requests;
}

Result<std::vector<ServingRequest>> loadServingTrace(const std::string &path)
{
    auto text = readTextFile(path);
    if (!text)
        return text.error();
    return parseServingTrace(*text, path);
}

std::size_t nextWeightedReplica(std::span<const double> weight, double totalWeight,
                                std::span<double> credit)
{
    const std::size_t replicas = weight.size();
    std::size_t chosen = replicas;
    for (std::size_t r = 0; r < replicas; ++r) {
        const double w = weight[r];
        if (!(std::isfinite(w) && w > 0))
            continue;
        credit[r] += w;
        if (chosen == replicas || credit[r] > credit[chosen])
            chosen = r;
    }
    if (chosen < replicas)
        credit[chosen] -= totalWeight;
    return chosen;
}

void dispatchRequests(std::span<ServingRequest> requests, std::span<const double> replicaWeight)
{
    double totalWeight = 0;
    for (double w : replicaWeight)
        totalWeight += std::isfinite(w) && w > 0 ? w : 0.0;
    std::vector<double> credit(replicaWeight.size(), 0.0);
    for (ServingRequest &request : requests) {
        const std::size_t chosen = nextWeightedReplica(replicaWeight, totalWeight, credit);
        request.replica = chosen < replicaWeight.size() ? int(chosen) : -1;
    }
}

} // namespace hetplan
