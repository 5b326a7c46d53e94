#include "core/import/import_evidence.h"

#include <algorithm>

namespace hetplan::importing {

std::optional<Candidate> Figures::chosen() const
{
    if (candidates.empty())
        return std::nullopt;
    const Priority best = std::ranges::max(candidates, {}, &Candidate::priority).priority;
    std::vector<const Candidate *> top;
    for (const Candidate &c : candidates)
        if (c.priority == best)
            top.push_back(&c);
    if (top.size() == 1)
        return *top.front();
    std::ranges::sort(top, {}, &Candidate::value);
    const std::size_t n = top.size();
    Candidate out;
    out.priority = best;
    out.value = n % 2 == 1 ? top[n / 2]->value : (top[n / 2 - 1]->value + top[n / 2]->value) / 2;
    constexpr std::size_t kShownSources = 3;
    for (std::size_t i = 0; i < n && i < kShownSources; ++i)
        out.source += (i == 0 ? "" : "; ") + top[i]->source;
    if (n > kShownSources)
        out.source += "; and " + std::to_string(n - kShownSources) + " more";
    out.how = "median of " + std::to_string(n) + " figures, each " + top.front()->how;
    return out;
}

MachineDraft *Evidence::machine(std::string_view name)
{
    const auto it = std::ranges::find(machines, name, &MachineDraft::name);
    return it == machines.end() ? nullptr : &*it;
}

TypeDraft *Evidence::type(std::string_view name)
{
    const auto it
        = std::ranges::find_if(types, [&](const TypeDraft &t) { return t.type.name == name; });
    return it == types.end() ? nullptr : &*it;
}

std::string machineNameOf(std::string_view host)
{
    std::string name(host.substr(0, std::min(host.find('#'), host.size())));
    if (!name.empty() && name.find_first_not_of("0123456789.") != std::string::npos)
        name = name.substr(0, name.find('.')); // a host name, not an IPv4 address
    std::ranges::replace(name, ':', '-');
    constexpr std::size_t kMaxMachineNameChars = 128; // the cluster file's limit on names
    return name.empty() ? std::string("host") : name.substr(0, kMaxMachineNameChars);
}

Result<MachineDraft *> machineForFile(Evidence &evidence, const std::string &source)
{
    const std::size_t slash = source.find_last_of('/');
    const std::string file = slash == std::string::npos ? source : source.substr(slash + 1);
    const std::string stem = file.substr(0, file.find('.'));
    for (MachineDraft &m : evidence.machines)
        if (m.name == machineNameOf(stem) || m.host == stem)
            return &m;
    if (evidence.machines.size() == 1)
        return &evidence.machines.front();
    if (evidence.machines.empty())
        return badInput(source
                        + ": says how a host's GPUs are linked, but no probe file or "
                          "nccl-tests log among the inputs names the host's GPUs; import "
                          "it together with one");
    std::string names;
    for (const MachineDraft &m : evidence.machines)
        names += (names.empty() ? "" : ", ") + m.name;
    return badInput(source
                    + ": cannot tell which machine this is about; name the file after "
                      "its host (e.g. "
                    + evidence.machines.front().name + ".topo.txt); valid hosts: " + names);
}

} // namespace hetplan::importing
