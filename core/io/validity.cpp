// SPDX-License-Identifier: MIT
// Validity rules of the API request formats (formats.md), checked on the neutral model as loaded
// from that format, and tool pairing for the agent session formats.
#include "core/io/validity.h"

#include "core/io/loader.h"
#include "core/io/writer.h"

#include <map>
#include <set>

namespace cl {

namespace {

using Violations = std::vector<Violation>;

void add(Violations &v, std::size_t message, std::string reason)
{
    v.push_back(Violation{static_cast<int>(message), std::move(reason)});
}

// Messages that are part of the request, in order.
std::vector<std::size_t> requestMessages(const Transcript &t)
{
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < t.messages.size(); ++i)
        if (t.messages[i].isConversation() && !t.messages[i].sidechain)
            out.push_back(i);
    return out;
}

bool isReasoningOnly(const Message &m)
{
    if (m.blocks.empty())
        return false;
    for (const auto &b : m.blocks)
        if (b.type != BlockType::Thinking && b.type != BlockType::RedactedThinking)
            return false;
    return true;
}

std::set<std::string> toolUseIds(const Message &m)
{
    std::set<std::string> ids;
    for (const auto &b : m.blocks)
        if (b.type == BlockType::ToolUse)
            ids.insert(b.toolId);
    return ids;
}

std::set<std::string> toolResultIds(const Message &m)
{
    std::set<std::string> ids;
    for (const auto &b : m.blocks)
        if (b.type == BlockType::ToolResult)
            ids.insert(b.toolId);
    return ids;
}

// Every call and result needs its id as a string: the agents and APIs reject a request whose id is
// missing or of another type (the loaders read such an id as empty, with a diagnostic).
void checkIds(const Transcript &t, const std::vector<std::size_t> &idx, Violations &v, std::string_view call,
              std::string_view result, std::string_view idName)
{
    for (const auto i : idx)
        for (const auto &b : t.messages[i].blocks) {
            if (b.type == BlockType::ToolUse && b.toolId.empty() && !b.serverSide)
                add(v, i, std::string(call) + " (" + b.toolName + ") without a string " + std::string(idName));
            else if (b.type == BlockType::ToolResult && b.toolId.empty())
                add(v, i, std::string(result) + " without a string " + std::string(idName));
        }
}

// Skips the system prompt that the format keeps outside the message list (the loaders put it first).
std::size_t skipLeadingSystem(const Transcript &t, const std::vector<std::size_t> &idx)
{
    std::size_t k = 0;
    while (k < idx.size() && t.messages[idx[k]].role == Role::System)
        ++k;
    return k;
}

// Shared by anthropic and gemini: strict user/assistant pairs of calls and results.
void checkTurnPairs(const Transcript &t, const std::vector<std::size_t> &idx, std::size_t first, Violations &v,
                    std::string_view call, std::string_view result, std::string_view assistantName)
{
    for (std::size_t k = first; k < idx.size(); ++k) {
        const Message &m = t.messages[idx[k]];
        const Message *next = k + 1 < idx.size() ? &t.messages[idx[k + 1]] : nullptr;
        const Message *prev = k > first ? &t.messages[idx[k - 1]] : nullptr;
        if (m.role == Role::Assistant) {
            const auto answered = next && next->role == Role::User ? toolResultIds(*next) : std::set<std::string>();
            for (const auto &b : m.blocks) {
                if (b.serverSide) // Anthropic's own tools: call and result in this message
                    continue;
                if (b.type == BlockType::ToolUse && !answered.count(b.toolId))
                    add(v, idx[k], std::string(call) + " " + b.toolId + " (" + b.toolName + ") is not answered by a " + std::string(result) + " in the next user message");
                if (b.type == BlockType::ToolResult)
                    add(v, idx[k], std::string(result) + " " + b.toolId + " inside an " + std::string(assistantName) + " message");
            }
        } else {
            const auto issued = prev && prev->role == Role::Assistant ? toolUseIds(*prev) : std::set<std::string>();
            for (const auto &b : m.blocks) {
                if (b.serverSide) {
                    add(v, idx[k], "server tool block " + b.toolId + " outside an " + std::string(assistantName) + " message");
                    continue;
                }
                if (b.type == BlockType::ToolResult && !issued.count(b.toolId))
                    add(v, idx[k], std::string(result) + " " + b.toolId + " does not answer a " + std::string(call) + " of the previous " + std::string(assistantName) + " message");
                if (b.type == BlockType::ToolUse)
                    add(v, idx[k], std::string(call) + " " + b.toolId + " outside an " + std::string(assistantName) + " message");
            }
        }
    }
}

void anthropicRules(const Transcript &t, Violations &v)
{
    const auto idx = requestMessages(t);
    const std::size_t first = skipLeadingSystem(t, idx);
    if (first == idx.size()) {
        v.push_back({-1, "request has no messages"});
        return;
    }
    Role prev = Role::Unknown;
    for (std::size_t k = first; k < idx.size(); ++k) {
        const Message &m = t.messages[idx[k]];
        if (m.role != Role::User && m.role != Role::Assistant) {
            add(v, idx[k], "role " + std::string(roleName(m.role)) + " is not allowed in messages (user or assistant)");
        } else if (k == first && m.role != Role::User) {
            add(v, idx[k], "the first message must be from the user");
        } else if (m.role == prev) {
            add(v, idx[k], "two " + std::string(roleName(m.role)) + " messages in a row: roles must alternate");
        }
        prev = m.role;
        if (m.blocks.empty())
            add(v, idx[k], "empty content");
        for (const auto &b : m.blocks) {
            if (b.type == BlockType::Text && b.text.empty())
                add(v, idx[k], "empty text block");
            if ((b.type == BlockType::Thinking || b.type == BlockType::RedactedThinking) && m.role != Role::Assistant)
                add(v, idx[k], "thinking block outside an assistant message");
        }
    }
    checkIds(t, idx, v, "tool_use", "tool_result", "id");
    checkTurnPairs(t, idx, first, v, "tool_use", "tool_result", "assistant");
}

void geminiRules(const Transcript &t, Violations &v)
{
    const auto idx = requestMessages(t);
    const std::size_t first = skipLeadingSystem(t, idx);
    if (first == idx.size()) {
        v.push_back({-1, "request has no contents"});
        return;
    }
    for (std::size_t k = first; k < idx.size(); ++k) {
        const Message &m = t.messages[idx[k]];
        if (m.role != Role::User && m.role != Role::Assistant)
            add(v, idx[k], "role '" + (m.type.empty() ? std::string(roleName(m.role)) : m.type) + "' is not allowed (user or model)");
        else if (k == first && m.role != Role::User)
            add(v, idx[k], "the first content must be from the user");
        if (m.blocks.empty())
            add(v, idx[k], "content has no parts");
    }
    checkTurnPairs(t, idx, first, v, "functionCall", "functionResponse", "model");
}

void openAIChatRules(const Transcript &t, Violations &v)
{
    const auto idx = requestMessages(t);
    if (idx.empty()) {
        v.push_back({-1, "request has no messages"});
        return;
    }
    std::set<std::string> issued;            // ids of the assistant message that opened this tool block
    std::map<std::string, std::size_t> open; // not yet answered -> issuing message
    bool inToolBlock = false;
    auto closeBlock = [&] {
        for (const auto &[id, issuer] : open)
            add(v, issuer, "tool call " + id + " is not answered before the next non-tool message");
        open.clear();
    };
    for (const auto i : idx) {
        const Message &m = t.messages[i];
        if (m.role == Role::Tool) {
            if (!inToolBlock)
                add(v, i, "tool message without a preceding assistant message with tool_calls");
            bool any = false;
            for (const auto &b : m.blocks) {
                if (b.type != BlockType::ToolResult)
                    continue;
                any = true;
                if (inToolBlock && !issued.count(b.toolId))
                    add(v, i, "tool message answers " + b.toolId + ", which the assistant message before it did not issue");
                open.erase(b.toolId);
            }
            if (!any)
                add(v, i, "tool message without a tool_call_id");
            continue;
        }
        closeBlock();
        issued.clear();
        inToolBlock = false;
        if (m.role == Role::Unknown)
            add(v, i, "unknown role");
        if (m.role != Role::Assistant)
            continue;
        bool content = false;
        for (const auto &b : m.blocks) {
            content = content || b.type == BlockType::Text || b.type == BlockType::Image;
            if (b.type == BlockType::ToolUse) {
                issued.insert(b.toolId);
                open.emplace(b.toolId, i);
            }
        }
        if (!content && issued.empty())
            add(v, i, "assistant message with neither content nor tool_calls");
        inToolBlock = !issued.empty();
    }
    closeBlock();
    checkIds(t, idx, v, "tool call", "tool message", "id / tool_call_id");
}

void openAIResponsesRules(const Transcript &t, Violations &v)
{
    const auto idx = requestMessages(t);
    if (idx.empty()) {
        v.push_back({-1, "request has no input items"});
        return;
    }
    std::set<std::string> calls;
    std::map<std::string, std::size_t> open;
    auto closeTurn = [&] {
        for (const auto &[id, issuer] : open)
            add(v, issuer, "function_call " + id + " has no function_call_output before the next user message");
        open.clear();
    };
    for (std::size_t k = 0; k < idx.size(); ++k) {
        const Message &m = t.messages[idx[k]];
        if (m.role == Role::User)
            closeTurn();
        for (const auto &b : m.blocks) {
            if (b.type == BlockType::ToolUse) {
                calls.insert(b.toolId);
                open.emplace(b.toolId, idx[k]);
            } else if (b.type == BlockType::ToolResult) {
                if (!calls.count(b.toolId))
                    add(v, idx[k], "function_call_output " + b.toolId + " has no earlier function_call with its call_id");
                open.erase(b.toolId);
            }
        }
        if (isReasoningOnly(m)) {
            std::size_t j = k + 1;
            while (j < idx.size() && isReasoningOnly(t.messages[idx[j]]))
                ++j;
            const Message *next = j < idx.size() ? &t.messages[idx[j]] : nullptr;
            if (!next || next->role != Role::Assistant)
                add(v, idx[k], "reasoning item is not followed by a function_call or message of the same turn");
        }
    }
    closeTurn();
    checkIds(t, idx, v, "function_call", "function_call_output", "call_id");
}

void sessionRules(const Transcript &t, Violations &v, bool idsRequired)
{
    if (idsRequired)
        checkIds(t, requestMessages(t), v, "tool call", "tool result", "id");
    // A session that is still running ends inside its last turn: the calls after the last message
    // that could carry a result (a user or tool message) are in progress, not unanswered.
    std::size_t inProgressFrom = 0;
    for (std::size_t i = t.messages.size(); i-- > 0;) {
        const Message &m = t.messages[i];
        if (m.isConversation() && (m.role == Role::User || m.role == Role::Tool)) {
            inProgressFrom = i + 1;
            break;
        }
    }
    for (std::size_t i = 0; i < t.messages.size(); ++i) {
        const Message &m = t.messages[i];
        if (!m.isConversation())
            continue;
        for (const auto &b : m.blocks) {
            // A call the provider runs itself (Codex web search) has no result item by design.
            if (b.type == BlockType::ToolUse && b.pairMessage < 0 && !b.serverSide && i < inProgressFrom)
                add(v, i, "tool call " + b.toolId + " (" + b.toolName + ") has no result");
            else if (b.type == BlockType::ToolResult && b.pairMessage < 0)
                add(v, i, "tool result " + b.toolId + " has no matching tool call");
        }
    }
}

} // namespace

std::vector<Violation> validate(const Transcript &t, Format rules)
{
    Violations v;
    switch (rules) {
    case Format::Anthropic: anthropicRules(t, v); break;
    case Format::Gemini: geminiRules(t, v); break;
    case Format::OpenAIChat: openAIChatRules(t, v); break;
    case Format::OpenAIResponses: openAIResponsesRules(t, v); break;
    case Format::ClaudeCode:
    case Format::Codex:
    case Format::CopilotCli: sessionRules(t, v, true); break;
    case Format::GeminiCli: sessionRules(t, v, false); break; // Gemini matches calls by name; ids are optional
    case Format::QwenCode: sessionRules(t, v, true); break;
    case Format::Unknown: v.push_back({-1, "no validity rules for an unknown format"}); break;
    }
    return v;
}

std::vector<Violation> validateConverted(const Transcript &t, Format target)
{
    const WriteResult w = writeTranscript(t, target);
    if (!w.ok)
        return {{-1, "write failed: " + w.error}};
    LoadOptions options;
    options.format = target;
    const LoadResult reloaded = loadBytes(w.bytes, "converted." + std::string(formatName(target)), options);
    if (!reloaded.ok())
        return {{-1, "reload failed: " + reloaded.error}};
    Violations v;
    for (const auto &d : reloaded.transcript->diagnostics)
        if (d.severity == Diagnostic::Severity::Error)
            v.push_back({-1, "reload: " + d.message});
    const Violations rules = validate(*reloaded.transcript, target);
    v.insert(v.end(), rules.begin(), rules.end());
    return v;
}

} // namespace cl
