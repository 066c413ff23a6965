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
    std::string storage;
    const std::string_view v = detail::shellCommandView(b, storage);
    return v.data() == storage.data() ? std::move(storage) : std::string(v);
}

namespace detail {

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

} // namespace detail

std::vector<std::string> toolPaths(const Block &b)
{
    std::vector<std::string> out;
    detail::forEachToolPath(b, [&out](std::string_view p) { out.emplace_back(p); });
    return out;
}

std::vector<ToolRound> toolRounds(const Transcript &t, const ConversationView &v)
{
    std::vector<ToolRound> rounds;
    std::size_t chain = 0;
    bool requestSinceLast = true;
    for (std::size_t p = 0; p < v.size(); ++p) {
        detail::prefetchAhead(t, v, p);
        const std::size_t i = v.index[p];
        const Message &m = t.messages[i];
        // One walk over the blocks: tool uses (count) and tool results (user request test).
        std::size_t uses = 0;
        bool results = false;
        for (const auto &b : m.blocks) {
            uses += b.type == BlockType::ToolUse;
            results = results || b.type == BlockType::ToolResult;
        }
        if (m.role == Role::User && !results) {
            requestSinceLast = true;
            continue;
        }
        if (m.role != Role::Assistant || uses == 0)
            continue;
        if (rounds.empty())
            rounds.reserve(64);
        ToolRound &r = rounds.emplace_back();
        r.assistant = i;
        r.calls.reserve(uses);
        for (std::size_t b = 0; b < m.blocks.size(); ++b) {
            const Block &blk = m.blocks[b];
            if (blk.type != BlockType::ToolUse)
                continue;
            ToolCall &c = r.calls.emplace_back();
            c.message = i;
            c.block = b;
            c.id = blk.toolId;
            c.name = blk.toolName;
            c.kind = toolKind(blk.toolName);
            c.resultMessage = blk.pairMessage;
            c.failed = blk.isError;
            if (blk.pairMessage >= 0 && std::size_t(blk.pairMessage) < t.messages.size() && blk.pairBlock >= 0) {
                const Message &rm = t.messages[std::size_t(blk.pairMessage)];
                if (std::size_t(blk.pairBlock) < rm.blocks.size())
                    c.failed = c.failed || rm.blocks[std::size_t(blk.pairBlock)].isError;
                if (std::find(r.results.begin(), r.results.end(), std::size_t(blk.pairMessage)) == r.results.end())
                    r.results.push_back(std::size_t(blk.pairMessage));
            }
            r.failed = r.failed || c.failed;
        }
        std::sort(r.results.begin(), r.results.end());
        if (requestSinceLast && rounds.size() > 1)
            ++chain;
        requestSinceLast = false;
        r.chain = chain;
    }
    return rounds;
}

std::vector<CriticalTool> criticalTools(const Transcript &t, const std::vector<ToolRound> &rounds, const AnalysisOptions &o)
{
    std::vector<CriticalTool> out;
    std::size_t calls = 0;
    for (const auto &round : rounds)
        calls += round.calls.size();
    out.reserve(calls / 2);   // one large allocation rather than a doubling series
    std::string storage;
    for (const auto &round : rounds) {
        for (const auto &c : round.calls) {
            const Block &b = t.messages[c.message].blocks[c.block];
            if (c.kind == ToolKind::Write || c.kind == ToolKind::Edit || c.kind == ToolKind::Delete) {
                std::string reason;
                const std::string_view kind = toolKindName(c.kind);
                reason.reserve(c.name.size() + kind.size() + 18);
                reason.append(c.name).append(" modifies files (").append(kind).append(")");
                out.push_back({c.message, c.block, c.id, c.name, "file_modification", std::move(reason)});
            } else if (c.kind == ToolKind::Shell) {
                const std::string_view cmd = detail::shellCommandView(b, storage);
                for (const auto &pat : o.systemChangePatterns)
                    if (!pat.empty() && cmd.find(pat) != std::string_view::npos) {
                        std::string reason = c.name;
                        reason.append(" command contains \"").append(pat).append("\"");
                        out.push_back({c.message, c.block, c.id, c.name, "system_change",
                                       std::move(reason)});
                        break;
                    }
            }
            if (c.failed)
                out.push_back({c.message, c.block, c.id, c.name, "error_context",
                               c.name + " failed"});
        }
    }
    return out;
}

namespace {

// Whether plainText() would trim to nothing: every text block is whitespace only (the '\n' joins are).
bool blankText(const Message &m)
{
    for (const auto &b : m.blocks)
        if (b.type == BlockType::Text && !detail::trim(b.text).empty())
            return false;
    return true;
}

} // namespace

Facts facts(const Transcript &t, const ConversationView &v)
{
    Facts f;
    // Views into the transcript's tool inputs (stable while t lives): a path is copied once, when new.
    std::unordered_set<std::string_view> seenRead, seenModified;
    std::string storage;
    std::int32_t lastWork = -1;
    for (std::size_t p = 0; p < v.size(); ++p) {
        detail::prefetchAhead(t, v, p);
        const std::size_t i = v.index[p];
        const Message &m = t.messages[i];
        if (m.role == Role::Assistant && !blankText(m))
            lastWork = std::int32_t(i);
        bool results = false;
        for (const auto &b : m.blocks) {
            if (b.type == BlockType::ToolUse) {
                const ToolKind k = toolKind(b.toolName);
                if (k == ToolKind::Read) {
                    detail::forEachToolPath(b, [&](std::string_view path) {
                        if (seenRead.insert(path).second)
                            f.filesRead.emplace_back(path);
                    });
                } else if (k == ToolKind::Write || k == ToolKind::Edit || k == ToolKind::Delete) {
                    detail::forEachToolPath(b, [&](std::string_view path) {
                        if (seenModified.insert(path).second)
                            f.filesModified.emplace_back(path);
                    });
                } else if (k == ToolKind::Shell) {
                    const std::string_view cmd = detail::shellCommandView(b, storage);
                    if (!cmd.empty())
                        f.commands.emplace_back(i, std::string(cmd));
                }
            } else if (b.type == BlockType::ToolResult) {
                results = true;
                if (b.isError) {
                    std::string_view first = b.text;
                    first = first.substr(0, first.find('\n'));
                    f.errors.emplace_back(i, std::string(detail::trim(first)));
                }
            }
        }
        if (m.role == Role::User && !results && !blankText(m)) {
            f.userRequests.emplace_back(i, m.plainText());
            f.pendingTaskIndex = std::int32_t(i);
        }
    }
    if (!f.userRequests.empty())
        f.pendingTask = f.userRequests.back().second;
    if (lastWork >= 0) {
        f.currentWork = t.messages[std::size_t(lastWork)].plainText();
        f.currentWorkIndex = lastWork;
    }
    return f;
}

} // namespace cl::analysis
