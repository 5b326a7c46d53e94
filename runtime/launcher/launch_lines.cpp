#include "runtime/launcher/launch_lines.h"

#include "core/base/utf8.h"

namespace hetplan {
namespace {

std::string lineText(std::string_view bytes)
{
    if (bytes.ends_with('\r'))
        bytes.remove_suffix(1);
    return validUtf8(bytes);
}

} // namespace

std::vector<LaunchLines::Line> LaunchLines::add(const LaunchEvent &event)
{
    std::vector<Line> done;
    if (event.kind != LaunchEvent::Kind::Output)
        return done;
    m_host[event.rank] = event.host;
    std::string &partial = m_partial[{event.rank, event.isStderr}];
    partial += event.text;
    std::size_t start = 0;
    for (std::size_t end; (end = partial.find('\n', start)) != std::string::npos; start = end + 1)
        done.push_back({event.rank, event.isStderr, event.host,
                        lineText(std::string_view(partial).substr(start, end - start))});
    partial.erase(0, start);
    return done;
}

std::vector<LaunchLines::Line> LaunchLines::flush()
{
    std::vector<Line> rest;
    for (auto &[key, partial] : m_partial)
        if (!partial.empty())
            rest.push_back({key.first, key.second, m_host[key.first], lineText(partial)});
    m_partial.clear();
    return rest;
}

} // namespace hetplan
