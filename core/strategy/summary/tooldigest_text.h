// SPDX-License-Identifier: MIT
#pragma once

// Text and tool-input helpers of the microcompact extractor (strategy/summary/tooldigest.cpp), kept apart from the
// per-tool digests: line walks, trimmed excerpts, the first / last meaningful line, input fields.

#include "core/model/transcript.h"

#include <bit>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>
#include <string_view>

namespace cl::strategy::tooldigest::text {

constexpr std::size_t kExcerpt = 80; // code points of an excerpt (a command, a line of output)

std::string_view trim(std::string_view s);
// At most kExcerpt code points, one line, "…" when cut.
std::string excerpt(std::string_view s);
std::size_t lineCount(std::string_view s);
// Meaningful: has a letter or digit (ASCII) or any non-ASCII character; rules like "-----", "```"
// and blank lines are not.
bool meaningful(std::string_view line);
std::string firstMeaningful(std::string_view s);
std::string lastMeaningful(std::string_view s, std::string_view skipPrefix = {});
// The first of `keys` holding a string in the call's input object.
std::string inputString(const Block &use, std::initializer_list<const char *> keys);
std::string toolLabel(const Block &use, const Block &result);
// The call's first path, "+N more" when it names several.
std::string firstPath(const Block &use);

// Calls f(line) for every line (without its '\n'); stops when f returns false.
template <typename F> void forLines(std::string_view s, F f)
{
    std::size_t start = 0;
    while (start < s.size()) {
        const auto nl = s.find('\n', start);
        const std::string_view line = s.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
        if (!f(line))
            return;
        if (nl == std::string_view::npos)
            break;
        start = nl + 1;
    }
}

// forLines without the early stop, eight bytes at a time: a Read result is thousands of short
// lines, and one memchr call per line was the largest cost of the microcompact digests.
template <typename F> void forEveryLine(std::string_view s, F f)
{
    constexpr std::uint64_t kLow7 = 0x7F7F7F7F7F7F7F7Full, kHigh = 0x8080808080808080ull;
    constexpr std::uint64_t kFeeds = 0x0A0A0A0A0A0A0A0Aull;
    std::size_t start = 0, i = 0;
    for (; i + 8 <= s.size(); i += 8) {
        std::uint64_t w;
        std::memcpy(&w, s.data() + i, 8);
        const std::uint64_t x = w ^ kFeeds; // zero bytes where w has '\n'
        for (std::uint64_t feeds = ~(((x & kLow7) + kLow7) | x) & kHigh; feeds; feeds &= feeds - 1) {
            const std::size_t nl = i + std::size_t(std::countr_zero(feeds)) / 8;
            f(s.substr(start, nl - start));
            start = nl + 1;
        }
    }
    for (; i < s.size(); ++i)
        if (s[i] == '\n') {
            f(s.substr(start, i - start));
            start = i + 1;
        }
    if (start < s.size())
        f(s.substr(start));
}

} // namespace cl::strategy::tooldigest::text
