#pragma once

// Enum values as files and messages spell them: one table per enum, next to the enum, read by
// the file readers and writers and by every message that names a value.

#include <span>
#include <string_view>

namespace hetplan {

template<typename E>
struct EnumName
{
    std::string_view name;
    E value;
};

template<typename E>
constexpr std::string_view nameOf(std::span<const EnumName<E>> names, E value)
{
    for (const EnumName<E> &n : names)
        if (n.value == value)
            return n.name;
    return names.front().name; // unreachable for a complete table
}

} // namespace hetplan
