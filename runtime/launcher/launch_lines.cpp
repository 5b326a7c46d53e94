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
    Partial &partial = m_partial[{event.rank, event.isStderr}];
    std::string_view rest = event.text;
    while (!rest.empty()) {
        const std::size_t newline = rest.find('\n');
        const std::string_view piece = rest.substr(0, newline);
        if (!partial.cut) {
            const std::size_t room = kMaxLineBytes - partial.bytes.size();
            partial.bytes.append(piece.substr(0, room));
            if (piece.size() > room) {
                std::string text = lineText(partial.bytes);
                text += kCutMarker;
                done.push_back({event.rank, event.isStderr, event.host, std::move(text)});
                partial.bytes.clear();
                partial.cut = true;
            }
        }
        if (newline == std::string_view::npos)
            break;
        if (!partial.cut)
            done.push_back({event.rank, event.isStderr, event.host, lineText(partial.bytes)});
        partial.bytes.clear();
        partial.cut = false;
        rest.remove_prefix(newline + 1);
    }
    return done;
}

std::vector<LaunchLines::Line> LaunchLines::flush()
{
    std::vector<Line> rest;
    for (auto &[key, partial] : m_partial)
        if (!partial.bytes.empty())
            rest.push_back({key.first, key.second, m_host[key.first], lineText(partial.bytes)});
    m_partial.clear();
    return rest;
}

} // namespace hetplan
