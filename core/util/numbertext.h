// SPDX-License-Identifier: MIT
#pragma once

// Numbers as text for reports and the command line.

#include <cstdint>
#include <string>

namespace cl::util {

// 1234567 -> "1,234,567"
inline std::string grouped(std::int64_t n)
{
    std::string s = std::to_string(n < 0 ? -n : n);
    for (int i = int(s.size()) - 3; i > 0; i -= 3)
        s.insert(std::size_t(i), ",");
    return (n < 0 ? "-" : "") + s;
}

} // namespace cl::util
