// SPDX-License-Identifier: MIT
#include "core/analysis_internal.h"

namespace cl::analysis::detail {

std::string_view trim(std::string_view s)
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '\n' || s.front() == '\t' || s.front() == '\r'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\n' || s.back() == '\t' || s.back() == '\r'))
        s.remove_suffix(1);
    return s;
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

} // namespace cl::analysis::detail
