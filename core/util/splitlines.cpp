// SPDX-License-Identifier: MIT
#include "core/util/splitlines.h"

#include "core/util/parallel.h"

namespace cl::json {

namespace {
constexpr std::size_t kTwoThreadBytes = std::size_t(8) << 20;
}

std::vector<LineSpan> splitLinesOnThreads(std::string_view buffer, int threads)
{
    if (threads < 2 || buffer.size() < kTwoThreadBytes)
        return splitLines(buffer);
    // The first half ends with the line end at or after the middle (none: one half is the whole).
    const std::size_t nl = buffer.find('\n', buffer.size() / 2);
    if (nl == std::string_view::npos || nl + 1 == buffer.size())
        return splitLines(buffer);
    const std::size_t cut = nl + 1;
    std::vector<LineSpan> halves[2];
    onTwoThreads([&](std::size_t k) { halves[k] = splitLines(k == 0 ? buffer.substr(0, cut) : buffer.substr(cut)); });
    std::vector<LineSpan> &lines = halves[0];
    const auto firstLines = std::uint32_t(lines.size());
    lines.reserve(lines.size() + halves[1].size());
    for (LineSpan s : halves[1]) {
        s.offset += std::uint32_t(cut);
        s.line += firstLines;
        lines.push_back(s);
    }
    return lines;
}

} // namespace cl::json
