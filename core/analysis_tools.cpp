// SPDX-License-Identifier: MIT
// Tool-level analysis: the conversation view, canonical tool kinds across agents, tool rounds,
// critical tools (seed 001 §6) and the facts of a transcript.
#include "core/analysis.h"
#include "core/analysis_internal.h"

#include <algorithm>
#include <unordered_set>

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
    if (toolKind(b.toolName) != ToolKind::Shell)
        return {};
    const auto &in = b.input;
    if (in.is_string())
        return in.get<std::string>();
    if (!in.is_object())
        return {};
    for (const char *key : {"command", "cmd"}) {
        const auto it = in.find(key);
        if (it == in.end())
            continue;
        if (it->is_string())
            return it->get<std::string>();
        if (it->is_array()) {
            std::vector<std::string> parts;
            for (const auto &p : *it)
                if (p.is_string())
                    parts.push_back(p.get<std::string>());
            // ["bash", "-lc", "cmd"]: the script is what ran.
            if (parts.size() == 3 && (parts[1] == "-lc" || parts[1] == "-c"))
                return parts[2];
            std::string s;
            for (const auto &p : parts)
                s += (s.empty() ? "" : " ") + p;
            return s;
        }
    }
    return {};
}

namespace {

void patchPaths(std::string_view text, std::vector<std::string> &out)
{
    static const char *heads[] = {"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "};
    std::size_t pos = 0;
    while (pos < text.size()) {
        std::size_t eol = text.find('\n', pos);
        if (eol == std::string_view::npos)
            eol = text.size();
        std::string_view line = text.substr(pos, eol - pos);
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        for (const char *h : heads) {
            const std::string_view hv(h);
            if (line.substr(0, hv.size()) == hv && line.size() > hv.size())
                out.emplace_back(line.substr(hv.size()));
        }
        pos = eol + 1;
    }
}

} // namespace

std::vector<std::string> toolPaths(const Block &b)
{
    std::vector<std::string> out;
    const auto &in = b.input;
    if (in.is_string()) {
        patchPaths(in.get_ref<const std::string &>(), out);
        return out;
    }
    if (!in.is_object())
        return out;
    for (const char *key : {"file_path", "path", "absolute_path", "notebook_path"}) {
        const auto it = in.find(key);
        if (it != in.end() && it->is_string() && !it->get_ref<const std::string &>().empty())
            out.push_back(it->get<std::string>());
    }
    if (const auto it = in.find("paths"); it != in.end() && it->is_array())
        for (const auto &p : *it)
            if (p.is_string())
                out.push_back(p.get<std::string>());
    for (const char *key : {"input", "patch"})
        if (const auto it = in.find(key); it != in.end() && it->is_string())
            patchPaths(it->get_ref<const std::string &>(), out);
    return out;
}

std::vector<ToolRound> toolRounds(const Transcript &t, const ConversationView &v)
{
    std::vector<ToolRound> rounds;
    std::size_t chain = 0;
    bool requestSinceLast = true;
    for (std::size_t p = 0; p < v.size(); ++p) {
        const std::size_t i = v.index[p];
        const Message &m = t.messages[i];
        if (isUserRequest(m)) {
            requestSinceLast = true;
            continue;
        }
        if (m.role != Role::Assistant || !m.hasToolUse())
            continue;
        ToolRound r;
        r.assistant = i;
        for (std::size_t b = 0; b < m.blocks.size(); ++b) {
            const Block &blk = m.blocks[b];
            if (blk.type != BlockType::ToolUse)
                continue;
            ToolCall c{i, b, blk.toolId, blk.toolName, toolKind(blk.toolName), blk.pairMessage, blk.isError};
            if (blk.pairMessage >= 0 && std::size_t(blk.pairMessage) < t.messages.size() && blk.pairBlock >= 0) {
                const Message &rm = t.messages[std::size_t(blk.pairMessage)];
                if (std::size_t(blk.pairBlock) < rm.blocks.size())
                    c.failed = c.failed || rm.blocks[std::size_t(blk.pairBlock)].isError;
                if (std::find(r.results.begin(), r.results.end(), std::size_t(blk.pairMessage)) == r.results.end())
                    r.results.push_back(std::size_t(blk.pairMessage));
            }
            r.failed = r.failed || c.failed;
            r.calls.push_back(std::move(c));
        }
        std::sort(r.results.begin(), r.results.end());
        if (requestSinceLast && !rounds.empty())
            ++chain;
        requestSinceLast = false;
        r.chain = chain;
        rounds.push_back(std::move(r));
    }
    return rounds;
}

std::vector<CriticalTool> criticalTools(const Transcript &t, const std::vector<ToolRound> &rounds, const AnalysisOptions &o)
{
    std::vector<CriticalTool> out;
    for (const auto &round : rounds) {
        for (const auto &c : round.calls) {
            const Block &b = t.messages[c.message].blocks[c.block];
            if (c.kind == ToolKind::Write || c.kind == ToolKind::Edit || c.kind == ToolKind::Delete) {
                out.push_back({c.message, c.block, c.id, c.name, "file_modification",
                    c.name + " modifies files (" + std::string(toolKindName(c.kind)) + ")"});
            } else if (c.kind == ToolKind::Shell) {
                const std::string cmd = shellCommand(b);
                for (const auto &pat : o.systemChangePatterns)
                    if (!pat.empty() && cmd.find(pat) != std::string::npos) {
                        out.push_back({c.message, c.block, c.id, c.name, "system_change",
                            c.name + " command contains \"" + pat + "\""});
                        break;
                    }
            }
            if (c.failed)
                out.push_back({c.message, c.block, c.id, c.name, "error_context", c.name + " failed"});
        }
    }
    return out;
}

Facts facts(const Transcript &t, const ConversationView &v)
{
    Facts f;
    std::unordered_set<std::string> seenRead, seenModified;
    for (std::size_t p = 0; p < v.size(); ++p) {
        const std::size_t i = v.index[p];
        const Message &m = t.messages[i];
        if (isUserRequest(m)) {
            std::string text = m.plainText();
            if (!detail::trim(text).empty()) {
                f.userRequests.emplace_back(i, text);
                f.pendingTask = text;
                f.pendingTaskIndex = std::int32_t(i);
            }
        }
        if (m.role == Role::Assistant) {
            std::string text = m.plainText();
            if (!detail::trim(text).empty()) {
                f.currentWork = std::move(text);
                f.currentWorkIndex = std::int32_t(i);
            }
        }
        for (const auto &b : m.blocks) {
            if (b.type == BlockType::ToolUse) {
                const ToolKind k = toolKind(b.toolName);
                if (k == ToolKind::Read) {
                    for (auto &path : toolPaths(b))
                        if (seenRead.insert(path).second)
                            f.filesRead.push_back(path);
                } else if (k == ToolKind::Write || k == ToolKind::Edit || k == ToolKind::Delete) {
                    for (auto &path : toolPaths(b))
                        if (seenModified.insert(path).second)
                            f.filesModified.push_back(path);
                } else if (k == ToolKind::Shell) {
                    std::string cmd = shellCommand(b);
                    if (!cmd.empty())
                        f.commands.emplace_back(i, std::move(cmd));
                }
            } else if (b.type == BlockType::ToolResult && b.isError) {
                std::string_view first = b.text;
                first = first.substr(0, first.find('\n'));
                f.errors.emplace_back(i, std::string(detail::trim(first)));
            }
        }
    }
    return f;
}

} // namespace cl::analysis
