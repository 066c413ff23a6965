// SPDX-License-Identifier: MIT
// GitHub Copilot CLI session loader: ~/.copilot/session-state/<id>/events.jsonl, one event a line
// {type, data, id, timestamp, parentId}. One Record per line and one message per parsed line (a
// compaction without its start event yields two), so edits map back to lines. What the model gets:
// the user.message's transformedContent, the assistant.message (text, reasoningText, toolRequests),
// the tool.execution_complete result, and the latest system.message (the system prompt of the
// current interaction, which Copilot CLI writes again with every user message). A successful
// session.compaction_complete replaces what came before its session.compaction_start with its
// summary (Copilot CLI resumes that way); session.truncation only shortened one request.
#include "core/formats/copilotcli/internal.h"
#include "core/formats/formats.h"
#include "core/util/splitlines.h"

#include <algorithm>
#include <utility>
#include <unordered_map>

namespace cl::formats {

namespace {

using Json = nlohmann::json;

class CopilotLoader
{
public:
    CopilotLoader(Transcript &t, const LoadContext &ctx)
        : m_t(t)
        , m_ctx(ctx)
    {}
    void run();

private:
    void line(const json::LineSpan &span, std::string_view text, bool last);
    Message &newMessage(std::uint32_t rec, const Json &o, const std::string &type);
    void sessionStart(Message &m, const Json &d);
    void userMessage(Message &m, const Json &d);
    void assistantMessage(Message &m, const Json &d, std::uint32_t line);
    void toolComplete(Message &m, const Json &d, std::uint32_t line);
    void usage(Message &m, const Json &usage);
    void compactionComplete(std::uint32_t rec, const Json &o, const Json &d);
    void settleSystemPrompt();

    Transcript &m_t;
    const LoadContext &m_ctx;
    std::string m_model;
    std::unordered_map<std::string, std::size_t> m_byApiCall;        // apiCallId -> its last assistant message
    std::unordered_map<std::string, Usage> m_pendingUsage;           // usage recorded before its message
    std::unordered_map<std::string, std::size_t> m_compactionStarts; // compactionAttemptId -> start message
};

void CopilotLoader::run()
{
    const std::string_view buf = *m_t.buffer;
    const auto spans = json::splitLinesOnThreads(buf, m_ctx.options.threads);
    m_t.records.reserve(spans.size());
    m_t.messages.reserve(spans.size());
    for (std::size_t i = 0; i < spans.size(); ++i) {
        if (i % 2000 == 0 && i) {
            if (m_ctx.cancelled())
                return;
            m_ctx.progress(0.8 * double(i) / double(spans.size()));
        }
        std::string_view text = buf.substr(spans[i].offset, spans[i].contentLength);
        if (i == 0 && text.substr(0, 3) == "\xEF\xBB\xBF")
            text.remove_prefix(3);
        line(spans[i], text, i + 1 == spans.size());
    }
    settleSystemPrompt();
    if (!m_t.header.is_object() || !m_t.header.contains("sessionId"))
        m_t.addDiagnostic(0, "no session.start event", Diagnostic::Severity::Info);
}

void CopilotLoader::line(const json::LineSpan &span, std::string_view text, bool last)
{
    Record rec;
    rec.offset = span.offset;
    rec.length = span.length;
    rec.line = span.line;
    const auto recIndex = std::uint32_t(m_t.records.size());
    m_t.records.push_back(rec);
    if (text.find_first_not_of(" \t\r") == std::string_view::npos)
        return; // blank line: kept raw

    Json o;
    std::string err;
    const auto status = json::parse(text, o, err, readableAfter(*m_t.buffer, text));
    if (status == json::ParseStatus::Failed) {
        const bool truncated = last && span.length == span.contentLength;
        m_t.addDiagnostic(span.line, (truncated ? "truncated last line: " : "invalid JSON line: ") + err);
        return;
    }
    if (status == json::ParseStatus::OkSanitized)
        m_t.addDiagnostic(span.line, "invalid UTF-8 replaced", Diagnostic::Severity::Info);
    if (!o.is_object()) {
        m_t.addDiagnostic(span.line, "line is not a JSON object");
        return;
    }
    auto &r = m_t.records.back();
    r.parsed = true;
    r.type = json::str(o, "type");
    if (r.type.empty())
        m_t.addDiagnostic(span.line, "event has no \"type\"");
    static const Json kEmpty = Json::object();
    const Json *data = json::object(o, "data");
    if (!data) {
        m_t.addDiagnostic(span.line, "event has no \"data\" object");
        data = &kEmpty;
    }
    const std::string type = r.type;
    if (type == "session.compaction_complete" && json::boolean(*data, "success")) {
        compactionComplete(recIndex, o, *data);
        return;
    }
    Message &m = newMessage(recIndex, o, type);
    m.kind = MessageKind::Event;
    if (type == "session.start" || type == "session.resume") {
        sessionStart(m, *data);
    } else if (type == "user.message") {
        userMessage(m, *data);
    } else if (type == "system.message") {
        m.kind = MessageKind::Conversation;
        m.role = Role::System;
        m.blocks.push_back(makeBlock(BlockType::Text, json::str(*data, "content")));
    } else if (type == "assistant.message") {
        assistantMessage(m, *data, span.line);
    } else if (type == "tool.execution_complete") {
        toolComplete(m, *data, span.line);
    } else if (type == "session.usage_record" || type == "assistant.usage") {
        const Json *u = type == "assistant.usage" ? data : json::object(*data, "usage");
        if (u)
            usage(m, *u);
    } else if (type == "session.compaction_start") {
        m.meta = *data;
        if (const std::string id = json::str(*data, "compactionAttemptId"); !id.empty())
            m_compactionStarts[id] = m_t.messages.size() - 1;
    } else if (type == "assistant.reasoning") {
        // The reasoning is sent back as the assistant.message's reasoningText; this is its display copy.
        m.role = Role::Assistant;
        m.blocks.push_back(makeBlock(BlockType::Thinking, json::str(*data, "content")));
    } else if (type == "session.model_change") {
        m.meta = *data;
        if (std::string model = json::str(*data, "newModel"); !model.empty())
            m_model = std::move(model);
    } else if (type == "tool.execution_start" || type == "assistant.turn_start" || type == "assistant.turn_end"
               || type == "session.truncation" || type == "session.shutdown" || type == "session.compaction_complete") {
        m.meta = *data; // small bookkeeping: shown, never sent
        m.meta.erase("accountingSnapshot");
        m.meta.erase("agentMetrics");
        m.meta.erase("modelMetrics");
        m.meta.erase("providerModelMetrics");
    } else {
        // session.info, hook.*, permission.*, subagent.* ... and whatever the next release adds.
        m.blocks.push_back(makeBlock(BlockType::Raw, json::dump(*data)));
    }
}

Message &CopilotLoader::newMessage(std::uint32_t rec, const Json &o, const std::string &type)
{
    if (m_t.records[rec].message < 0)
        m_t.records[rec].message = std::int32_t(m_t.messages.size());
    Message &m = m_t.messages.emplace_back();
    m.type = type;
    m.records.push_back(rec);
    m.line = m_t.records[rec].line;
    m.id = json::str(o, "id");
    m.parentId = json::str(o, "parentId");
    m.timestamp = json::str(o, "timestamp");
    m.timeMs = parseTimestamp(m.timestamp);
    return m;
}

void CopilotLoader::sessionStart(Message &m, const Json &d)
{
    m.kind = MessageKind::Meta;
    if (!m_t.header.is_object())
        m_t.header = Json::object();
    const Json *context = json::object(d, "context");
    const std::string cwd = context ? json::str(*context, "cwd") : std::string();
    const std::string model = json::str(d, "selectedModel");
    m.meta = Json::object();
    for (const char *k : {"sessionId", "copilotVersion", "producer", "startTime"})
        if (std::string v = json::str(d, k); !v.empty()) {
            m.meta[k] = v;
            if (!m_t.header.contains(k)) // the first start describes the file; a resume only fills gaps
                m_t.header[k] = std::move(v);
        }
    if (!cwd.empty()) {
        m.meta["cwd"] = cwd;
        if (!m_t.header.contains("cwd"))
            m_t.header["cwd"] = cwd;
    }
    if (!model.empty()) {
        m.meta["model"] = model;
        m_model = model;
        m_t.header["model"] = model;
    }
}

void CopilotLoader::userMessage(Message &m, const Json &d)
{
    m.kind = MessageKind::Conversation;
    m.role = Role::User;
    const std::string content = json::str(d, "content");
    const Json *sent = json::child(d, "transformedContent");
    // The model gets transformedContent (the request with the date and attachments around it).
    if (sent && sent->is_string()) {
        m.blocks.push_back(makeBlock(BlockType::Text, sent->get<std::string>()));
        if (content != sent->get_ref<const std::string &>())
            m.meta = Json{{"content", content}};
    } else {
        m.blocks.push_back(makeBlock(BlockType::Text, content));
    }
    if (const Json *attachments = json::array(d, "attachments"); attachments && !attachments->empty()) {
        if (!m.meta.is_object())
            m.meta = Json::object();
        m.meta["attachments"] = attachments->size();
    }
}

void CopilotLoader::assistantMessage(Message &m, const Json &d, std::uint32_t line)
{
    m.role = Role::Assistant;
    m.kind = MessageKind::Conversation;
    m.model = json::str(d, "model", m_model);
    m.apiMessageId = json::str(d, "apiCallId");
    if (std::string reasoning = json::str(d, "reasoningText"); !reasoning.empty())
        m.blocks.push_back(makeBlock(BlockType::Thinking, std::move(reasoning)));
    if (std::string content = json::str(d, "content"); !content.empty())
        m.blocks.push_back(makeBlock(BlockType::Text, std::move(content)));
    if (const Json *requests = json::array(d, "toolRequests")) {
        for (const auto &req : *requests) {
            Block b;
            b.type = BlockType::ToolUse;
            b.toolId = json::str(req, "toolCallId");
            b.toolName = json::str(req, "name");
            if (b.toolId.empty())
                m_t.addDiagnostic(line, "tool request without \"toolCallId\"");
            const Json *args = json::child(req, "arguments");
            b.input = args && !args->is_null() ? *args : Json::object();
            m.blocks.push_back(std::move(b));
        }
    }
    if (m.blocks.empty())
        m.kind = MessageKind::Event; // nothing said and nothing called (an aborted response)
    if (m.apiMessageId.empty())
        return;
    // A response split into chunks (one assistant.message per reasoning boundary): its usage goes
    // to the last chunk only.
    const std::size_t index = m_t.messages.size() - 1;
    const auto [slot, added] = m_byApiCall.try_emplace(m.apiMessageId, index);
    if (!added) {
        if (!m.usage)
            m.usage = std::exchange(m_t.messages[slot->second].usage, std::nullopt);
        slot->second = index;
    }
    if (const auto it = m_pendingUsage.find(m.apiMessageId); it != m_pendingUsage.end()) {
        m.usage = it->second;
        m_pendingUsage.erase(it);
    }
}

void CopilotLoader::toolComplete(Message &m, const Json &d, std::uint32_t line)
{
    m.role = Role::Tool;
    m.kind = MessageKind::Conversation;
    Block b;
    b.type = BlockType::ToolResult;
    b.toolId = json::str(d, "toolCallId");
    if (b.toolId.empty())
        m_t.addDiagnostic(line, "tool.execution_complete without \"toolCallId\"");
    b.isError = !json::boolean(d, "success", true);
    if (const Json *result = json::object(d, "result"))
        b.text = json::str(*result, "content");
    else if (const Json *error = json::object(d, "error"))
        b.text = json::str(*error, "message");
    m.model = json::str(d, "model");
    m.blocks.push_back(std::move(b));
}

void CopilotLoader::usage(Message &m, const Json &u)
{
    // inputTokens counts the whole prompt, cached tokens included (Copilot CLI's own uncached
    // figure is inputTokens - cacheReadTokens - cacheWriteTokens).
    Usage usage;
    usage.cacheReadTokens = json::num(u, "cacheReadTokens");
    usage.cacheCreationTokens = json::num(u, "cacheWriteTokens");
    usage.inputTokens = std::max<std::int64_t>(0, json::num(u, "inputTokens") - usage.cacheReadTokens - usage.cacheCreationTokens);
    usage.outputTokens = json::num(u, "outputTokens");
    usage.reasoningTokens = json::num(u, "reasoningTokens");
    usage.contextWindow = json::num(u, "maxPromptTokens");
    m.model = json::str(u, "model");
    m.meta = Json::object();
    for (const char *k : {"model", "inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens", "reasoningTokens",
                          "maxPromptTokens", "toolTokenCount", "apiCallId", "interactionType", "finishReason"})
        if (const Json *v = json::child(u, k); v && !v->is_null())
            m.meta[k] = *v;
    const std::string call = json::str(u, "apiCallId");
    if (call.empty())
        return;
    // The record usually comes just before the assistant.message of the same call; the latest
    // report for a call wins, never a sum.
    if (const auto it = m_byApiCall.find(call); it != m_byApiCall.end())
        m_t.messages[it->second].usage = usage;
    else
        m_pendingUsage[call] = usage;
}

void CopilotLoader::compactionComplete(std::uint32_t rec, const Json &o, const Json &d)
{
    Json meta = Json::object();
    for (const char *k : {"trigger", "preCompactionTokens", "postCompactionTokens", "preCompactionMessagesLength",
                          "messagesRemoved", "tokensRemoved", "checkpointNumber", "compactionAttemptId", "contextlens"})
        if (const Json *v = json::child(d, k); v && !v->is_null())
            meta[k] = *v;
    const std::string attempt = json::str(d, "compactionAttemptId");
    const auto start = attempt.empty() ? m_compactionStarts.end() : m_compactionStarts.find(attempt);
    if (start != m_compactionStarts.end()) {
        // What came before the start is what the summary replaces; what the agent did while the
        // summary was written stays (Copilot CLI resumes with it after the summary).
        Message &boundary = m_t.messages[start->second];
        boundary.kind = MessageKind::CompactBoundary;
        boundary.role = Role::System;
        for (auto it = meta.begin(); it != meta.end(); ++it)
            boundary.meta[it.key()] = it.value();
        m_compactionStarts.erase(start);
    } else {
        Message &boundary = newMessage(rec, o, "session.compaction_complete");
        boundary.kind = MessageKind::CompactBoundary;
        boundary.role = Role::System;
        boundary.meta = meta;
    }
    Message &summary = newMessage(rec, o, "session.compaction_complete");
    summary.kind = MessageKind::CompactSummary;
    summary.role = Role::User;
    summary.meta = meta;
    summary.blocks.push_back(makeBlock(BlockType::Text, json::str(d, "summaryContent")));
}

// Copilot CLI writes the system prompt again after each user message and sends only the current
// one, first. The last system.message stays a conversation message, placed where the model sees
// it: first, or right after the last compaction boundary; the earlier ones become metadata.
void CopilotLoader::settleSystemPrompt()
{
    std::int64_t last = -1, boundary = -1;
    for (std::size_t i = 0; i < m_t.messages.size(); ++i) {
        const Message &m = m_t.messages[i];
        if (m.type == "system.message" && m.kind == MessageKind::Conversation)
            last = std::int64_t(i);
        if (m.kind == MessageKind::CompactBoundary)
            boundary = std::int64_t(i);
    }
    if (last < 0)
        return;
    for (std::int64_t i = 0; i < last; ++i)
        if (Message &m = m_t.messages[std::size_t(i)]; m.type == "system.message" && m.kind == MessageKind::Conversation) {
            m.kind = MessageKind::Meta;
            m.meta = Json{{"superseded", true}};
        }
    std::size_t target = std::size_t(boundary + 1);
    if (boundary < 0) {
        target = 0;
        while (target < m_t.messages.size() && !m_t.messages[target].isTurn())
            ++target;
    } else if (boundary > last) {
        target = std::size_t(boundary); // the boundary moves up by one when the prompt leaves its place
    }
    const auto from = std::size_t(last);
    if (target == from)
        return;
    if (target < from)
        std::rotate(m_t.messages.begin() + std::ptrdiff_t(target), m_t.messages.begin() + std::ptrdiff_t(from),
                    m_t.messages.begin() + std::ptrdiff_t(from + 1));
    else
        std::rotate(m_t.messages.begin() + std::ptrdiff_t(from), m_t.messages.begin() + std::ptrdiff_t(from + 1),
                    m_t.messages.begin() + std::ptrdiff_t(target + 1));
    for (auto &r : m_t.records)
        r.message = -1;
    for (std::size_t i = 0; i < m_t.messages.size(); ++i)
        for (const auto r : m_t.messages[i].records)
            if (m_t.records[r].message < 0)
                m_t.records[r].message = std::int32_t(i);
}

} // namespace

void loadCopilotCli(Transcript &t, const LoadContext &ctx)
{
    CopilotLoader(t, ctx).run();
}

} // namespace cl::formats
