#pragma once

#include "core/base/result.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace hetplan::cli {

// Parsed command line of one subcommand: `--name value` options, `--flag` switches and
// positional arguments. Anything not declared by the subcommand is an error (exit 2).
class Args
{
public:
    struct Spec
    {
        std::set<std::string> options;  // take a value: "--cluster FILE"
        std::set<std::string> switches; // take none: "--json"
    };

    static Result<Args> parse(const std::vector<std::string> &words, const Spec &spec);

    bool has(const std::string &name) const
    {
        return m_values.contains(name) || m_switches.contains(name);
    }
    std::optional<std::string> value(const std::string &name) const;
    const std::vector<std::string> &positional() const { return m_positional; }

    // Typed access; errors name the option and the valid range.
    Result<std::optional<int>> integer(const std::string &name, int min, int max) const;
    Result<std::optional<double>> number(const std::string &name, double min, double max) const;
    Result<std::vector<double>> numberList(const std::string &name, double min, double max) const;
    Result<std::string> required(const std::string &name) const;
    // For commands that take no positional arguments: the first one is an error naming it
    // and listing the valid options.
    Status noPositional(const Spec &spec) const;

private:
    std::map<std::string, std::string> m_values;
    std::set<std::string> m_switches;
    std::vector<std::string> m_positional;
};

} // namespace hetplan::cli
