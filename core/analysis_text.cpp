// SPDX-License-Identifier: MIT
#include "core/analysis_internal.h"

#include <algorithm>

namespace cl::analysis::detail {

std::string_view trim(std::string_view s)
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '\n' || s.front() == '\t' || s.front() == '\r'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\n' || s.back() == '\t' || s.back() == '\r'))
        s.remove_suffix(1);
    return s;
}

namespace {
inline char lower(char c) { return (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c; }
} // namespace

bool containsCi(std::string_view hay, std::string_view needle, std::size_t limit)
{
    if (needle.empty())
        return false;
    hay = hay.substr(0, std::min(limit, hay.size()));
    if (needle.size() > hay.size())
        return false;
    const char first = lower(needle[0]);
    const std::size_t last = hay.size() - needle.size();
    for (std::size_t i = 0; i <= last; ++i) {
        if (lower(hay[i]) != first)
            continue;
        std::size_t k = 1;
        while (k < needle.size() && lower(hay[i + k]) == lower(needle[k]))
            ++k;
        if (k == needle.size())
            return true;
    }
    return false;
}

int textContainsAny(const Message &m, const std::vector<std::string> &needles, std::size_t limit)
{
    // Lower-case the scanned prefix once, then let find() (memchr-based) do the work per needle.
    thread_local std::string hay, needle;
    for (const auto &b : m.blocks) {
        if (b.type != BlockType::Text)
            continue;
        hay.assign(b.text, 0, std::min(limit, b.text.size()));
        for (char &c : hay)
            c = lower(c);
        for (std::size_t k = 0; k < needles.size(); ++k) {
            needle = needles[k];
            for (char &c : needle)
                c = lower(c);
            if (!needle.empty() && hay.find(needle) != std::string::npos)
                return int(k);
        }
    }
    return -1;
}

bool hasFence(const Message &m, std::size_t limit)
{
    for (const auto &b : m.blocks)
        if (b.type == BlockType::Text && std::string_view(b.text).substr(0, limit).find("```") != std::string_view::npos)
            return true;
    return false;
}

bool hasCodeOrCommand(const Message &m, std::size_t limit)
{
    for (const auto &b : m.blocks) {
        if (b.type != BlockType::ToolUse)
            continue;
        const ToolKind k = toolKind(b.toolName);
        if (k == ToolKind::Write || k == ToolKind::Edit || k == ToolKind::Shell)
            return true;
    }
    return hasFence(m, limit);
}

bool hasFailedResult(const Message &m)
{
    return std::any_of(m.blocks.begin(), m.blocks.end(),
                       [](const Block &b) { return b.type == BlockType::ToolResult && b.isError; });
}

std::size_t textLength(const Message &m)
{
    std::size_t n = 0;
    for (const auto &b : m.blocks)
        if (b.type == BlockType::Text || b.type == BlockType::ToolResult)
            n += b.text.size();
    return n;
}

} // namespace cl::analysis::detail
