#include "core/import/text_lines.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace hetplan {

std::string trimmed(std::string_view text)
{
    std::size_t begin = 0;
    std::size_t end = text.size();
    while (begin < end && std::isspace(static_cast<unsigned char>(text[begin])))
        ++begin;
    while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1])))
        --end;
    return std::string(text.substr(begin, end - begin));
}

bool LineCursor::next(std::string_view &line)
{
    if (m_rest.empty())
        return false;
    std::size_t end = m_rest.find('\n');
    if (end == std::string_view::npos)
        end = m_rest.size();
    line = m_rest.substr(0, end);
    if (!line.empty() && line.back() == '\r')
        line.remove_suffix(1);
    m_rest.remove_prefix(std::min(end + 1, m_rest.size()));
    ++m_number;
    return true;
}

std::vector<std::string_view> splitLines(std::string_view text)
{
    std::vector<std::string_view> lines;
    LineCursor cursor(text);
    for (std::string_view line; cursor.next(line);)
        lines.push_back(line);
    return lines;
}

bool hasControlCharacter(std::string_view text)
{
    return std::ranges::any_of(text, [](char c) {
        const auto u = static_cast<unsigned char>(c);
        return u < 0x20 || u == 0x7f;
    });
}

std::string quotedForMessage(std::string_view text)
{
    constexpr std::size_t kShownChars = 80;
    std::string out = "\"";
    for (std::size_t i = 0; i < text.size() && i < kShownChars; ++i) {
        const auto u = static_cast<unsigned char>(text[i]);
        if (u < 0x20 || u == 0x7f || text[i] == '"' || text[i] == '\\') {
            char escaped[8];
            std::snprintf(escaped, sizeof escaped, "\\x%02x", unsigned(u));
            out += escaped;
        } else {
            out += text[i];
        }
    }
    if (text.size() > kShownChars)
        out += "…";
    out += '"';
    return out;
}

std::vector<std::string> splitWords(std::string_view line)
{
    std::vector<std::string> words;
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t'))
            ++i;
        const std::size_t start = i;
        while (i < line.size() && line[i] != ' ' && line[i] != '\t')
            ++i;
        if (i > start)
            words.emplace_back(line.substr(start, i - start));
    }
    return words;
}

std::optional<double> parseWordNumber(std::string_view word)
{
    if (word.empty() || word.front() == '+')
        return std::nullopt;
    double value = 0;
    const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), value);
    if (ec != std::errc() || end != word.data() + word.size() || !std::isfinite(value))
        return std::nullopt;
    return value;
}

std::string figureText(double value, int significant)
{
    char buffer[48];
    std::snprintf(buffer, sizeof buffer, "%.*g", significant, value);
    return buffer;
}

} // namespace hetplan
