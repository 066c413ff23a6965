// SPDX-License-Identifier: MIT
#pragma once

// Numbers and durations as text for reports, the command line and the views.

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

// A duration in milliseconds: "850 ms", "7.4 s", "3 min 4 s", "2 h 5 min"; "" when negative (unknown).
inline std::string durationText(std::int64_t ms)
{
    if (ms < 0)
        return {};
    if (ms < 1000)
        return std::to_string(ms) + " ms";
    if (ms < 60'000) {
        const std::int64_t tenths = ms / 100;
        return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) + " s";
    }
    if (ms < 3'600'000)
        return std::to_string(ms / 60'000) + " min " + std::to_string(ms % 60'000 / 1000) + " s";
    return std::to_string(ms / 3'600'000) + " h " + std::to_string(ms % 3'600'000 / 60'000) + " min";
}

} // namespace cl::util
