// SPDX-License-Identifier: MIT
// Pieces of the Copilot CLI writers: event ids, event lines, the data of the message events.
#include "core/formats/copilotcli/internal.h"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <unordered_map>

namespace cl::formats::copilotcli {

namespace {

std::uint64_t splitmix(std::uint64_t &state)
{
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

} // namespace

EventIds::EventIds(const Transcript &t)
{
    std::uint64_t h = 1469598103934665603ull;
    const std::string_view src = t.buffer ? std::string_view(*t.buffer) : std::string_view(t.path);
    for (unsigned char c : src)
        h = (h ^ c) * 1099511628211ull;
    m_a = h;
    m_b = h ^ 0x5DEECE66Dull;
}

std::string EventIds::next()
{
    std::uint64_t state = m_a + m_n++ * 0x632BE59BD9B4E019ull;
    const std::uint64_t hi = splitmix(state) ^ m_b;
    const std::uint64_t lo = splitmix(state);
    char buf[40];
    std::snprintf(buf, sizeof buf, "%08x-%04x-4%03x-%x%03x-%012llx", unsigned(hi >> 32), unsigned(hi >> 16) & 0xFFFF,
                  unsigned(hi) & 0xFFF, 8 + unsigned(lo >> 62), unsigned(lo >> 48) & 0xFFF,
                  (unsigned long long)(lo & 0xFFFFFFFFFFFFull));
    return buf;
}

void writeEvent(ByteSink &sink, std::string_view type, ojson data, const std::string &id, const std::string &timestamp,
                const std::string &parentId)
{
    ojson line{{"type", type}, {"data", std::move(data)}, {"id", id}, {"timestamp", timestamp}};
    line["parentId"] = parentId.empty() ? ojson(nullptr) : ojson(parentId);
    json::dumpTo(line, sink);
    sink += '\n';
}

std::string joinedText(const Message &m)
{
    std::string out;
    bool first = true;
    for (const auto &b : m.blocks)
        if (b.type == BlockType::Text) {
            if (!first)
                out += "\n\n";
            out += b.text;
            first = false;
        }
    return out;
}

ojson toolRequests(const Message &m, const ojson *original, std::vector<std::string> &notes)
{
    std::unordered_map<std::string, const ojson *> before;
    if (original && original->is_array())
        for (const auto &r : *original)
            if (r.is_object())
                before[json::str(r, "toolCallId")] = &r;
    ojson out = ojson::array();
    for (const auto &b : m.blocks) {
        if (b.type != BlockType::ToolUse)
            continue;
        const auto it = before.find(b.toolId);
        ojson r = it != before.end() ? *it->second : ojson{{"toolCallId", b.toolId}};
        r["toolCallId"] = b.toolId;
        r["name"] = b.toolName;
        if (b.input.is_object() || b.input.is_null())
            r["arguments"] = ojson::parse(json::dump(b.input.is_null() ? nlohmann::json::object() : b.input));
        else {
            r["arguments"] = ojson{{"input", ojson::parse(json::dump(b.input))}};
            notes.push_back("non-object tool input wrapped as {\"input\": ...}");
        }
        if (!r.contains("type"))
            r["type"] = "function";
        out.push_back(std::move(r));
    }
    return out;
}

std::string isoTime(std::int64_t ms)
{
    const std::time_t secs = std::time_t(ms >= 0 ? ms / 1000 : (ms - 999) / 1000);
    const int millis = int(ms - std::int64_t(secs) * 1000);
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                  tm.tm_hour, tm.tm_min, tm.tm_sec, millis);
    return buf;
}

} // namespace cl::formats::copilotcli

namespace cl::formats::copilotcli {

void EventWriter::original(std::string_view bytes, const std::string &id, const std::string &timestamp)
{
    m_sink.append(bytes);
    if (!id.empty())
        m_lastId = id;
    setTimestamp(timestamp);
}

void EventWriter::event(std::string_view type, ojson data)
{
    std::string id = m_ids.next();
    writeEvent(m_sink, type, std::move(data), id, m_timestamp, m_lastId);
    m_lastId = std::move(id);
}

void EventWriter::closeTurn()
{
    if (!m_turnOpen)
        return;
    event("assistant.turn_end", ojson{{"turnId", std::to_string(m_turn)}});
    m_turnOpen = false;
    m_openCalls.clear();
}

void EventWriter::toolResult(const Block &b, const std::string &model, bool fresh)
{
    ojson data{{"toolCallId", b.toolId}};
    if (!model.empty())
        data["model"] = model;
    if (fresh)
        data["turnId"] = std::to_string(std::max<std::int64_t>(m_turn, 0));
    data["success"] = !b.isError;
    data["result"] = ojson{{"content", b.text}};
    event("tool.execution_complete", std::move(data));
    std::erase(m_openCalls, b.toolId);
    if (fresh && m_turnOpen && m_openCalls.empty())
        closeTurn();
}

void EventWriter::message(const Message &m, bool fresh)
{
    setTime(m.timeMs);
    switch (m.role) {
    case Role::System:
        if (fresh)
            closeTurn();
        event("system.message", ojson{{"role", "system"}, {"content", joinedText(m)}});
        return;
    case Role::Assistant: {
        if (fresh) {
            closeTurn();
            event("assistant.turn_start", ojson{{"turnId", std::to_string(++m_turn)}});
            m_turnOpen = true;
        }
        const std::string call = !m.apiMessageId.empty() ? m.apiMessageId : "contextlens-call-" + std::to_string(++m_calls);
        if (fresh && m.usage) {
            const Usage &u = *m.usage;
            ojson usage{{"model", m.model.empty() ? "unknown" : m.model},
                        {"inputTokens", u.inputTokens + u.cacheReadTokens + u.cacheCreationTokens},
                        {"outputTokens", u.outputTokens},
                        {"cacheReadTokens", u.cacheReadTokens},
                        {"cacheWriteTokens", u.cacheCreationTokens}};
            if (u.reasoningTokens)
                usage["reasoningTokens"] = u.reasoningTokens;
            if (u.contextWindow)
                usage["maxPromptTokens"] = u.contextWindow;
            usage["apiCallId"] = call;
            event("session.usage_record", ojson{{"usage", std::move(usage)}});
        }
        std::string reasoning;
        for (const auto &b : m.blocks) {
            if (b.type == BlockType::Thinking)
                reasoning += (reasoning.empty() ? "" : "\n\n") + b.text;
            else if (b.type == BlockType::RedactedThinking)
                m_notes.push_back("encrypted/redacted reasoning dropped");
            else if (b.type == BlockType::Image || b.type == BlockType::Document || b.type == BlockType::Raw)
                m_notes.push_back(std::string(blockTypeName(b.type)) + " block in an assistant message dropped");
        }
        ojson data{{"messageId", m_ids.next()}};
        if (!m.model.empty())
            data["model"] = m.model;
        data["content"] = joinedText(m);
        data["toolRequests"] = toolRequests(m, nullptr, m_notes);
        if (!reasoning.empty())
            data["reasoningText"] = reasoning;
        if (fresh)
            data["turnId"] = std::to_string(std::max<std::int64_t>(m_turn, 0));
        data["apiCallId"] = call;
        const ojson requests = data["toolRequests"];
        event("assistant.message", std::move(data));
        for (const auto &r : requests) {
            m_openCalls.push_back(json::str(r, "toolCallId"));
            if (fresh)
                event("tool.execution_start", ojson{{"toolCallId", r["toolCallId"]}, {"toolName", r["name"]}, {"arguments", r["arguments"]}});
        }
        if (fresh && m_openCalls.empty())
            closeTurn();
        // Results a message carries itself (an API assistant turn never does; kept for completeness).
        for (const auto &b : m.blocks)
            if (b.type == BlockType::ToolResult)
                toolResult(b, m.model, fresh);
        return;
    }
    case Role::User:
    case Role::Tool:
    case Role::Unknown: {
        std::string text;
        for (const auto &b : m.blocks) {
            if (b.type == BlockType::ToolResult)
                toolResult(b, m.model, fresh);
            else if (b.type == BlockType::Text)
                text += (text.empty() ? "" : "\n\n") + b.text;
            else if (b.type == BlockType::Image || b.type == BlockType::Document)
                m_notes.push_back(std::string(blockTypeName(b.type)) + " block in a user message dropped (Copilot CLI records attachments as files)");
            else if (b.type != BlockType::Raw)
                m_notes.push_back(std::string(blockTypeName(b.type)) + " block in a user message dropped");
        }
        if (text.empty())
            return;
        if (m.role == Role::Tool)
            m_notes.push_back("text in a tool message became a user message");
        if (fresh)
            closeTurn();
        event("user.message", ojson{{"content", text}, {"transformedContent", text}});
        return;
    }
    }
}

void EventWriter::compaction(const std::string &summary, const Message *boundary)
{
    closeTurn();
    const std::string attempt = m_ids.next();
    ojson start{{"compactionAttemptId", attempt}, {"trigger", "manual"}};
    event("session.compaction_start", std::move(start));
    ojson done{{"success", true}, {"outcome", "applied"}, {"compactionAttemptId", attempt}, {"trigger", "manual"}};
    if (boundary && boundary->meta.is_object())
        for (const char *k : {"preCompactionTokens", "postCompactionTokens"})
            if (const auto it = boundary->meta.find(k); it != boundary->meta.end() && it->is_number_integer())
                done[k] = it->get<std::int64_t>();
    done["summaryContent"] = summary;
    done["contextlens"] = true; // the mark of a compaction ContextLens wrote
    event("session.compaction_complete", std::move(done));
}

} // namespace cl::formats::copilotcli
