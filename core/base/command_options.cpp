#include "core/base/command_options.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace hetplan {
namespace {

// Whole numbers in full ("16777216", not "1.67772e+07"), fractions as a person writes them.
std::string rangeText(double min, double max)
{
    char text[64];
    std::snprintf(text, sizeof text, "%.15g..%.15g", min, max);
    return text;
}

std::string validOptions(const CommandOptions::Spec &spec)
{
    std::string known;
    for (const auto &o : spec.options)
        known += " --" + o;
    for (const auto &s : spec.switches)
        known += " --" + s;
    return known;
}

Result<double> parseNumber(const std::string &name, const std::string &text, double min, double max)
{
    double value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value))
        return badInput("--" + name + ": '" + text + "' is not a number");
    if (value < min || value > max)
        return badInput("--" + name + ": " + text
                        + " is out of range; valid: " + rangeText(min, max));
    return value;
}

} // namespace

Result<CommandOptions> CommandOptions::parse(const std::vector<std::string> &words,
                                             const Spec &spec)
{
    CommandOptions args;
    for (size_t i = 0; i < words.size(); ++i) {
        const std::string &word = words[i];
        if (word == "-h" && spec.switches.contains("help")) {
            args.m_switches.insert("help");
            continue;
        }
        if (word.size() >= 2 && word[0] == '-' && word[1] != '-')
            return badInput("unknown option " + word + " (options start with two dashes, e.g. -"
                            + word + "); valid:" + validOptions(spec));
        if (word.size() < 3 || word.rfind("--", 0) != 0) {
            args.m_positional.push_back(word);
            continue;
        }
        std::string name = word.substr(2);
        std::optional<std::string> inlineValue;
        if (const auto eq = name.find('='); eq != std::string::npos) {
            inlineValue = name.substr(eq + 1);
            name.resize(eq);
        }
        if (spec.switches.contains(name) && !inlineValue) {
            args.m_switches.insert(name);
        } else if (spec.options.contains(name)) {
            if (!inlineValue && i + 1 >= words.size())
                return badInput("--" + name + " needs a value");
            std::vector<std::string> &values = args.m_values[name];
            if (!values.empty() && !spec.repeated.contains(name))
                return badInput("--" + name + " is given twice; it takes one value");
            values.push_back(inlineValue ? *inlineValue : words[++i]);
        } else if (spec.switches.contains(name)) {
            return badInput("--" + name + " takes no value");
        } else {
            return badInput("unknown option --" + name + "; valid:" + validOptions(spec));
        }
    }
    return args;
}

Status CommandOptions::noPositional(const Spec &spec) const
{
    if (m_positional.empty())
        return okStatus();
    return badInput("unexpected argument '" + m_positional.front()
                    + "'; this command takes only options:" + validOptions(spec));
}

std::optional<std::string> CommandOptions::value(const std::string &name) const
{
    const auto it = m_values.find(name);
    if (it == m_values.end())
        return std::nullopt;
    return it->second.back();
}

std::vector<std::string> CommandOptions::values(const std::string &name) const
{
    const auto it = m_values.find(name);
    return it == m_values.end() ? std::vector<std::string>{} : it->second;
}

Result<std::string> CommandOptions::required(const std::string &name) const
{
    if (auto v = value(name))
        return *v;
    return badInput("--" + name + " is required");
}

Result<std::optional<int>> CommandOptions::integer(const std::string &name, int min, int max) const
{
    const auto text = value(name);
    if (!text)
        return std::optional<int>{};
    int v = 0;
    const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
    if (ec != std::errc() || end != text->data() + text->size())
        return badInput("--" + name + ": '" + *text + "' is not a whole number");
    if (v < min || v > max)
        return badInput("--" + name + ": " + *text
                        + " is out of range; valid: " + rangeText(min, max));
    return std::optional<int>{v};
}

Result<std::optional<double>> CommandOptions::number(const std::string &name, double min,
                                                     double max) const
{
    const auto text = value(name);
    if (!text)
        return std::optional<double>{};
    auto v = parseNumber(name, *text, min, max);
    if (!v)
        return v.error();
    return std::optional<double>{*v};
}

Result<std::vector<double>> CommandOptions::numberList(const std::string &name, double min,
                                                       double max) const
{
    std::vector<double> values;
    const auto text = value(name);
    if (!text)
        return values;
    std::stringstream in(*text);
    std::string item;
    while (std::getline(in, item, ',')) {
        auto v = parseNumber(name, item, min, max);
        if (!v)
            return v.error();
        values.push_back(*v);
    }
    if (values.empty())
        return badInput("--" + name + ": expected a comma-separated list of numbers");
    return values;
}

void CommandLine::option(const std::string &name, const std::string &value)
{
    m_words.push_back("--" + name);
    m_words.push_back(value);
}

void CommandLine::flag(const std::string &name)
{
    m_words.push_back("--" + name);
}

void CommandLine::option(const std::string &name, double value)
{
    char text[32];
    const auto [end, ec] = std::to_chars(text, text + sizeof text, value);
    option(name, std::string(text, ec == std::errc() ? end : text));
}

void CommandLine::option(const std::string &name, long long value)
{
    option(name, std::to_string(value));
}

} // namespace hetplan
