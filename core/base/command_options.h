#pragma once

// The one reader and writer of command-line options, shared by hetplan-cli, hetplan-worker and
// hetplan-probe: `--name value` or `--name=value` options, `--flag` switches, options given
// more than once where the command allows it, and positional words.

#include "core/base/result.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace hetplan {

// A parsed command line. Anything the command does not declare is an error naming the word
// and listing the valid options.
class CommandOptions
{
public:
    struct Spec
    {
        Spec(std::set<std::string> valued = {}, std::set<std::string> flags = {},
             std::set<std::string> repeatable = {})
            : options(std::move(valued))
            , switches(std::move(flags))
            , repeated(std::move(repeatable))
        {}
        std::set<std::string> options;  // take a value: "--cluster FILE"
        std::set<std::string> switches; // take none: "--json"; "help" also answers "-h"
        std::set<std::string> repeated; // options that may be given more than once
    };

    static Result<CommandOptions> parse(const std::vector<std::string> &words, const Spec &spec);

    bool has(const std::string &name) const
    {
        return m_values.contains(name) || m_switches.contains(name);
    }
    // The value of an option; for a repeated one, the last.
    std::optional<std::string> value(const std::string &name) const;
    // Every value of an option, in command-line order.
    std::vector<std::string> values(const std::string &name) const;
    const std::vector<std::string> &positional() const { return m_positional; }
    // Every option given with a value, by name (without the "--").
    const std::map<std::string, std::vector<std::string>> &valuedOptions() const
    {
        return m_values;
    }

    // Typed access; errors name the option and the valid range.
    Result<std::optional<int>> integer(const std::string &name, int min, int max) const;
    Result<std::optional<double>> number(const std::string &name, double min, double max) const;
    Result<std::vector<double>> numberList(const std::string &name, double min, double max) const;
    Result<std::string> required(const std::string &name) const;
    // For commands that take no positional arguments: the first one is an error naming it
    // and listing the valid options.
    Status noPositional(const Spec &spec) const;

private:
    std::map<std::string, std::vector<std::string>> m_values;
    std::set<std::string> m_switches;
    std::vector<std::string> m_positional;
};

// The writing side: a command line built option by option, in the spelling parse() reads.
class CommandLine
{
public:
    explicit CommandLine(std::string executable) { m_words.push_back(std::move(executable)); }

    void option(const std::string &name, const std::string &value);
    void flag(const std::string &name);
    // Numbers in the shortest text that reads back to the same value ("12.5", "60", "1e-06").
    void option(const std::string &name, double value);
    void option(const std::string &name, long long value);
    void option(const std::string &name, int value) { option(name, static_cast<long long>(value)); }

    // The executable first, then "--name" "value" pairs and "--flag"s as added.
    const std::vector<std::string> &words() const { return m_words; }

private:
    std::vector<std::string> m_words;
};

} // namespace hetplan
