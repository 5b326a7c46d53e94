#include "runtime/probe/probe_args.h"

#include <charconv>
#include <map>
#include <optional>

namespace hetplan::runtime::probe {
namespace {

class Options
{
public:
    explicit Options(std::map<std::string, std::string> values)
        : m_values(std::move(values))
    {}

    std::optional<std::string> take(const std::string &name)
    {
        auto it = m_values.find(name);
        if (it == m_values.end())
            return std::nullopt;
        std::string value = it->second;
        m_values.erase(it);
        return value;
    }

    // Leaves `out` as it is when the option is absent.
    template<typename T>
    void number(const std::string &name, T min, T max, T &out)
    {
        const auto text = take(name);
        if (!text || m_error)
            return;
        T value{};
        const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
        if (ec != std::errc() || end != text->data() + text->size() || value < min || value > max)
            m_error = badInput("--" + name + " " + *text + ": expected a number in "
                               + std::to_string(min) + ".." + std::to_string(max));
        else
            out = value;
    }

    Status finish() const
    {
        if (m_error)
            return *m_error;
        if (!m_values.empty())
            return badInput("unknown option --" + m_values.begin()->first
                            + "; see hetplan-probe --help");
        return okStatus();
    }

private:
    std::map<std::string, std::string> m_values;
    std::optional<Error> m_error;
};

} // namespace

Result<ProbeArgs> parseProbeArgs(const std::vector<std::string> &words)
{
    ProbeArgs a;
    std::map<std::string, std::string> values;
    for (std::size_t i = 0; i < words.size(); ++i) {
        const std::string &w = words[i];
        if (w == "--help" || w == "-h") {
            a.help = true;
            return a;
        }
        if (w == "--quick" || w == "--no-gpu") {
            (w == "--quick" ? a.quick : a.cpuOnly) = true;
            continue;
        }
        if (!w.starts_with("--") || i + 1 >= words.size())
            return badInput("unexpected argument '" + w
                            + "'; every option but --quick and --no-gpu takes a value");
        if (!values.emplace(w.substr(2), words[i + 1]).second)
            return badInput(w + " is given twice");
        ++i;
    }
    if (a.quick)
        a.repetitions = 3;
    Options o(std::move(values));
    o.number("rank", 0, (1 << 16) - 1, a.rank);
    o.number("world", 1, 1 << 16, a.world);
    o.number("micro-batch", 1, 1 << 16, a.microBatch);
    o.number("seq-len", 1, 1 << 20, a.seqLen);
    o.number("tp", 1, 1024, a.tp);
    o.number("repeat", 1, 1 << 16, a.repetitions);
    o.number("blas-threads", 1, 1024, a.blasThreads);
    o.number("triad-mib", 1, 1 << 20, a.triadMiB);
    o.number("timeout-s", 0.001, 86400.0, a.comm.timeoutS);
    a.comm.rendezvous = o.take("rendezvous").value_or("");
    a.comm.listenAddress = o.take("listen-address").value_or(a.comm.listenAddress);
    a.hostName = o.take("host-name").value_or("");
    a.model = o.take("model").value_or(a.model);
    a.out = o.take("out").value_or("");
    if (Status s = o.finish(); !s)
        return s.error();
    if (a.rank >= a.world)
        return badInput("--rank " + std::to_string(a.rank) + " must be below --world "
                        + std::to_string(a.world));
    if (a.world > 1 && a.comm.rendezvous.empty())
        return badInput("--world " + std::to_string(a.world)
                        + " needs --rendezvous DIR|redis://HOST:PORT, where the ranks meet");
    return a;
}

} // namespace hetplan::runtime::probe
