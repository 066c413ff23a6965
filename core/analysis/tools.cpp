// SPDX-License-Identifier: MIT
// Tool-level analysis: the conversation view, canonical tool kinds across agents, shell commands and
// paths of a call (rounds, critical tools and facts: analysis/toolpass.cpp).
#include "core/analysis/analysis.h"
#include "core/analysis/internal.h"

#include <algorithm>

namespace cl::analysis {

ConversationView conversationView(const Transcript &t)
{
    ConversationView v;
    v.position.assign(t.messages.size(), -1);
    v.index.reserve(t.messages.size());
    for (std::size_t i = 0; i < t.messages.size(); ++i) {
        const Message &m = t.messages[i];
        if (!m.isConversation() || m.sidechain)
            continue;
        v.position[i] = std::int32_t(v.index.size());
        v.index.push_back(i);
    }
    return v;
}

bool isUserRequest(const Message &m)
{
    return m.role == Role::User && !m.hasToolResult();
}

std::string_view toolKindName(ToolKind k)
{
    switch (k) {
    case ToolKind::Read: return "read";
    case ToolKind::Write: return "write";
    case ToolKind::Edit: return "edit";
    case ToolKind::Delete: return "delete";
    case ToolKind::Shell: return "shell";
    case ToolKind::Other: break;
    }
    return "other";
}

ToolKind toolKind(std::string_view n)
{
    // Claude Code / Codex / Gemini CLI names; see analysis.h for the table.
    if (n == "Read" || n == "NotebookRead" || n == "read_file" || n == "read_many_files" || n == "view")
        return ToolKind::Read;
    if (n == "Write" || n == "write_file" || n == "create_file")
        return ToolKind::Write;
    if (n == "Edit" || n == "MultiEdit" || n == "NotebookEdit" || n == "replace" || n == "edit" || n == "apply_patch"
        || n == "str_replace_based_edit_tool")
        return ToolKind::Edit;
    if (n == "Delete" || n == "delete_file")
        return ToolKind::Delete;
    if (n == "Bash" || n == "shell" || n == "local_shell" || n == "exec_command" || n == "container.exec"
        || n == "run_shell_command" || n == "BashOutput")
        return ToolKind::Shell;
    return ToolKind::Other;
}

std::string shellCommand(const Block &b)
{
    std::string storage;
    const std::string_view v = shellCommandView(b, storage);
    return v.data() == storage.data() ? std::move(storage) : std::string(v);
}

std::string_view shellCommandView(const Block &b, std::string &storage)
{
    storage.clear();
    if (toolKind(b.toolName) != ToolKind::Shell)
        return storage;
    const auto &in = b.input;
    if (in.is_string())
        return in.get_ref<const std::string &>();
    if (!in.is_object())
        return storage;
    // One pass over the members rather than two tree lookups; "command" is preferred over "cmd".
    const nlohmann::json *found[2] = {};
    for (auto m = in.begin(); m != in.end(); ++m) {
        const std::string &k = m.key();
        if (k == "command")
            found[0] = &m.value();
        else if (k == "cmd")
            found[1] = &m.value();
    }
    for (const nlohmann::json *it : found) {
        if (!it)
            continue;
        if (it->is_string())
            return it->get_ref<const std::string &>();
        if (it->is_array()) {
            std::string_view parts[3];
            std::size_t count = 0;
            for (const auto &p : *it)
                if (p.is_string() && count++ < 3)
                    parts[count - 1] = p.get_ref<const std::string &>();
            // ["bash", "-lc", "cmd"]: the script is what ran.
            if (count == 3 && (parts[1] == "-lc" || parts[1] == "-c"))
                return parts[2];
            for (const auto &p : *it)
                if (p.is_string()) {
                    if (!storage.empty())
                        storage += ' ';
                    storage += p.get_ref<const std::string &>();
                }
            return storage;
        }
    }
    return storage;
}

std::vector<std::string> toolPaths(const Block &b)
{
    std::vector<std::string> out;
    forEachToolPath(b, [&out](std::string_view p) { out.emplace_back(p); });
    return out;
}

} // namespace cl::analysis
