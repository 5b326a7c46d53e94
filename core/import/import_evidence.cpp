#include "core/import/import_evidence.h"

#include "core/import/text_lines.h"

#include <algorithm>
#include <utility>

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

bool RunDraft::holds(std::size_t machine) const
{
    return std::ranges::binary_search(machines, machine);
}

MachineDraft *Evidence::machine(std::string_view name)
{
    return const_cast<MachineDraft *>(std::as_const(*this).machine(name));
}

const MachineDraft *Evidence::machine(std::string_view name) const
{
    const auto it = m_byName.find(std::string(name));
    return it == m_byName.end() ? nullptr : &machines[it->second];
}

MachineDraft *Evidence::host(std::string_view host)
{
    if (MachineDraft *same = machine(host))
        return same;
    const std::string label = firstLabel(host);
    if (label != host) // "node-a.example.org" for a machine "node-a"
        return machine(label);
    // "node-a" for the one machine "node-a.<domain>".
    const auto it = m_byLabel.find(label);
    return it == m_byLabel.end() || it->second == kAmbiguous ? nullptr : &machines[it->second];
}

Result<MachineDraft *> Evidence::addMachine(MachineDraft draft, const std::string &where)
{
    if (machines.size() >= std::size_t(kMaxMachines))
        return badInput(where + ": host " + quotedForMessage(draft.host) + " would be machine "
                        + std::to_string(machines.size() + 1) + "; a cluster holds at most "
                        + std::to_string(kMaxMachines) + " machines");
    draft.name = draft.host;
    machines.push_back(std::move(draft));
    index(machines.size() - 1);
    return &machines.back();
}

void Evidence::index(std::size_t i)
{
    const std::string &name = machines[i].name;
    m_byName.emplace(name, i);
    if (const std::string label = firstLabel(name); label != name)
        if (const auto [it, added] = m_byLabel.emplace(label, i); !added)
            it->second = kAmbiguous;
}

void Evidence::reindex()
{
    m_byName.clear();
    m_byLabel.clear();
    for (std::size_t i = 0; i < machines.size(); ++i)
        index(i);
}

TypeDraft *Evidence::type(std::string_view name)
{
    const auto it
        = std::ranges::find_if(types, [&](const TypeDraft &t) { return t.type.name == name; });
    return it == types.end() ? nullptr : &*it;
}

std::string hostOf(std::string_view name)
{
    return std::string(name.substr(0, std::min(name.find('#'), name.size())));
}

std::string firstLabel(std::string_view host)
{
    if (!host.empty() && host.find_first_not_of("0123456789.") == std::string_view::npos)
        return std::string(host); // an IPv4 address, not a host name
    return std::string(host.substr(0, std::min(host.find('.'), host.size())));
}

Result<MachineDraft *> machineForFile(Evidence &evidence, const std::string &source)
{
    const std::size_t slash = source.find_last_of('/');
    const std::string file = slash == std::string::npos ? source : source.substr(slash + 1);
    const std::string stem = file.substr(0, file.find('.'));
    if (MachineDraft *m = evidence.host(stem))
        return m;
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
