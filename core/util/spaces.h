// SPDX-License-Identifier: MIT
#pragma once

// ASCII whitespace (space, tab, line feed, carriage return) at the ends of a text, and inside it.

#include <string>
#include <string_view>

namespace cl::util {

constexpr bool isAsciiSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// Without leading and trailing whitespace.
constexpr std::string_view trimSpaces(std::string_view s)
{
    while (!s.empty() && isAsciiSpace(s.front()))
        s.remove_prefix(1);
    while (!s.empty() && isAsciiSpace(s.back()))
        s.remove_suffix(1);
    return s;
}

// Every whitespace run as one space, trimmed.
inline std::string collapseSpaces(std::string_view s)
{
    std::string out;
    out.reserve(s.size());
    bool gap = false;
    for (const char c : s) {
        if (isAsciiSpace(c)) {
            gap = !out.empty();
            continue;
        }
        if (gap)
            out.push_back(' ');
        gap = false;
        out.push_back(c);
    }
    return out;
}

} // namespace cl::util
