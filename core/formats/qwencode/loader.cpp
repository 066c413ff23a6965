// SPDX-License-Identifier: MIT
// Qwen Code session loader (~/.qwen/projects/<project>/chats/<sessionId>.jsonl). Every line is a
// record with Claude Code's envelope (uuid, parentUuid, sessionId, timestamp, cwd, version) and a
// Gemini Content in "message" {role user | model, parts}. The conversation the agent resumes is the
// parentUuid chain from the last record that belongs to it; records sharing a uuid are fragments of
// one message, joined. "system" records never reach the model: a chat_compression record is the
// agent's compaction, whose systemPayload.compressedHistory is the whole history the model sees
// from then on (a boundary, then those contents as messages); the others are events and metadata.
#include "core/formats/api/common.h"
#include "core/formats/formats.h"
#include "core/formats/qwencode/internal.h"

#include <algorithm>
#include <unordered_map>

namespace cl::formats {

namespace qwencode {
namespace {

using Json = nlohmann::json;

struct Line {
    std::uint32_t record = 0;
    std::string uuid, parent;
    bool chained = false; // a record the agent's chain walk may pass (not an artifact record)
    std::vector<Message> messages;
};

class QwenCodeLoader
{
public:
    QwenCodeLoader(Transcript &t, const LoadContext &ctx)
        : m_t(t)
        , m_ctx(ctx)
    {}
    void run();

private:
    void decode(Line &l, const Json &o);
    void decodeSystem(Line &l, const Json &o, Message m);
    void decodeCompression(Line &l, const Json &payload, Message marker);
    void addUsage(Message &m, const Json &o);
    std::vector<char> activeChain();
    void finish(const std::vector<char> &onChain);

    Transcript &m_t;
    const LoadContext &m_ctx;
    std::vector<Line> m_lines;
    api::GeminiDecoder m_decoder;
};

void QwenCodeLoader::run()
{
    const std::string_view buf = *m_t.buffer;
    const auto spans = json::splitLines(buf);
    m_lines.reserve(spans.size());
    for (std::size_t i = 0; i < spans.size(); ++i) {
        if (i % 2000 == 0 && i) {
            if (m_ctx.cancelled())
                return;
            m_ctx.progress(0.8 * double(i) / double(spans.size()));
        }
        const auto &s = spans[i];
        Record r;
        r.offset = s.offset;
        r.length = s.length;
        r.line = s.line;
        m_t.records.push_back(r);
        Line l;
        l.record = std::uint32_t(m_t.records.size() - 1);
        std::string_view text = buf.substr(s.offset, s.contentLength);
        if (i == 0 && text.substr(0, 3) == "\xEF\xBB\xBF")
            text.remove_prefix(3);
        if (text.find_first_not_of(" \t\r") == std::string_view::npos)
            continue;
        Json o;
        std::string err;
        const auto status = json::parse(text, o, err, readableAfter(*m_t.buffer, text));
        const bool last = i + 1 == spans.size() && s.length == s.contentLength;
        if (status == json::ParseStatus::Failed) {
            m_t.addDiagnostic(s.line, (last ? "truncated last line: " : "invalid JSON: ") + err);
            continue;
        }
        if (status == json::ParseStatus::OkSanitized)
            m_t.addDiagnostic(s.line, "invalid UTF-8 replaced", Diagnostic::Severity::Info);
        if (!o.is_object()) {
            m_t.addDiagnostic(s.line, "not a JSON object");
            continue;
        }
        m_t.records.back().parsed = true;
        decode(l, o);
        m_lines.push_back(std::move(l));
    }
    finish(activeChain());
}

void QwenCodeLoader::addUsage(Message &m, const Json &o)
{
    const Json *u = json::object(o, "usageMetadata");
    if (!u)
        return;
    Usage usage;
    // Gemini's convention, kept by Qwen Code for every provider: the prompt count includes the cached part.
    usage.cacheReadTokens = json::num(*u, "cachedContentTokenCount");
    usage.inputTokens = std::max<std::int64_t>(0, json::num(*u, "promptTokenCount") - usage.cacheReadTokens);
    usage.outputTokens = json::num(*u, "candidatesTokenCount");
    usage.reasoningTokens = json::num(*u, "thoughtsTokenCount");
    usage.contextWindow = json::num(o, "contextWindowSize");
    m.usage = usage;
}

void QwenCodeLoader::decode(Line &l, const Json &o)
{
    const std::uint32_t line = m_t.records[l.record].line;
    const std::string type = json::str(o, "type");
    const std::string subtype = json::str(o, "subtype");
    m_t.records[l.record].type = subtype.empty() ? type : type + "/" + subtype;
    l.uuid = json::str(o, "uuid");
    l.parent = json::str(o, "parentUuid");
    l.chained = !(type == "system" && qwencode::outsideChain(subtype));
    if (l.uuid.empty())
        m_t.addDiagnostic(line, "record without a uuid: shown, but not part of the conversation chain", Diagnostic::Severity::Info);
    for (const char *k : {"sessionId", "cwd", "version", "gitBranch"})
        if (const Json *v = json::child(o, k); v && v->is_string() && !m_t.header.contains(k))
            m_t.header[k] = *v;

    Message m;
    m.line = line;
    m.id = l.uuid;
    m.parentId = l.parent;
    m.type = m_t.records[l.record].type;
    m.timestamp = json::str(o, "timestamp");
    m.timeMs = parseTimestamp(m.timestamp);
    m.model = json::str(o, "model");
    if (type == "system") {
        decodeSystem(l, o, std::move(m));
        return;
    }
    const Json *message = json::object(o, "message");
    if (type == "user")
        m.role = Role::User;
    else if (type == "assistant")
        m.role = Role::Assistant;
    else if (type == "tool_result")
        m.role = Role::Tool;
    else if (message && json::str(*message, "role") == "model")
        m.role = Role::Assistant;
    else {
        m.role = Role::User;
        m_t.addDiagnostic(line, "unknown record type '" + type + "' (read as a user turn)", Diagnostic::Severity::Info);
    }
    if (!subtype.empty())
        m.meta["subtype"] = subtype;
    if (!message) {
        // A record the accumulator skips: nothing of it reaches the model.
        m.kind = MessageKind::Event;
        m_t.addDiagnostic(line, "record has no message", Diagnostic::Severity::Info);
    } else if (const Json *parts = json::array(*message, "parts")) {
        m_decoder.decodeParts(m_t, *parts, line, m);
    } else if (json::child(*message, "parts")) {
        m_t.addDiagnostic(line, "message parts are not an array");
    }
    if (subtype == "realtime_message")
        m.kind = MessageKind::Event; // shown live, never sent
    if (m.role == Role::Assistant)
        addUsage(m, o);
    if (const Json *result = json::object(o, "toolCallResult"); result && json::str(*result, "status") == "error")
        for (auto &b : m.blocks)
            if (b.type == BlockType::ToolResult)
                b.isError = true;
    l.messages.push_back(std::move(m));
}

void QwenCodeLoader::decodeSystem(Line &l, const Json &o, Message m)
{
    const std::string subtype = json::str(o, "subtype");
    m.role = Role::System;
    const Json *payload = json::object(o, "systemPayload");
    if (subtype == "chat_compression" && payload && json::array(*payload, "compressedHistory")) {
        decodeCompression(l, *payload, std::move(m));
        return;
    }
    m.meta = Json::object();
    if (subtype == "ui_telemetry") {
        m.kind = MessageKind::Event;
        if (const Json *ev = payload ? json::object(*payload, "uiEvent") : nullptr) {
            for (const char *k : {"event.name", "model", "function_name", "input_token_count", "output_token_count",
                                  "cached_content_token_count", "duration_ms", "subagent_name"})
                if (const Json *v = json::child(*ev, k); v && v->is_primitive())
                    m.meta[k] = *v;
        }
    } else if (subtype == "slash_command" || subtype == "at_command" || subtype == "notification") {
        m.kind = MessageKind::Event;
        if (payload)
            for (const char *k : {"phase", "rawCommand", "sentToModel"})
                if (const Json *v = json::child(*payload, k); v && v->is_primitive())
                    m.meta[k] = *v;
    } else if (subtype == "chat_compression") {
        m.kind = MessageKind::Event; // info without the history: nothing the agent resumes from
        m.meta["compression"] = qwencode::compressionInfo(payload ? *payload : Json());
    } else {
        m.kind = MessageKind::Meta;
    }
    l.messages.push_back(std::move(m));
}

void QwenCodeLoader::decodeCompression(Line &l, const Json &payload, Message marker)
{
    const std::uint32_t line = marker.line;
    marker.kind = MessageKind::CompactBoundary;
    marker.meta = qwencode::compressionInfo(payload);
    const Json &history = payload["compressedHistory"];
    marker.meta["messages"] = history.size();
    const std::string base = marker.id;
    const std::string timestamp = marker.timestamp;
    const std::int64_t timeMs = marker.timeMs;
    l.messages.push_back(std::move(marker));
    bool summary = true;
    for (std::size_t k = 0; k < history.size(); ++k) {
        Message m;
        m.line = line;
        m.id = base + "/" + std::to_string(k);
        m.timestamp = timestamp;
        m.timeMs = timeMs;
        if (!m_decoder(m_t, history[k], line, m)) {
            m.kind = MessageKind::Event;
            m.blocks.push_back(makeBlock(BlockType::Raw, json::dump(history[k])));
        } else if (summary && m.role == Role::User) {
            m.kind = MessageKind::CompactSummary; // the state snapshot opens the compressed history
        } else if (m.role == Role::User && !m.blocks.empty()
                   && std::all_of(m.blocks.begin(), m.blocks.end(), [](const Block &b) { return b.type == BlockType::ToolResult; })) {
            m.role = Role::Tool; // as a tool_result record holds them
        }
        summary = false;
        m.type = "system/chat_compression/" + m.type;
        l.messages.push_back(std::move(m));
    }
}

// The chain the agent resumes: from the last chained record back through parentUuid. A record the
// walk does not reach (an abandoned branch) keeps its bytes but gives no message.
std::vector<char> QwenCodeLoader::activeChain()
{
    std::vector<char> on(m_lines.size(), 0);
    std::unordered_map<std::string_view, std::size_t> first;
    for (std::size_t i = 0; i < m_lines.size(); ++i)
        if (!m_lines[i].uuid.empty() && m_lines[i].chained)
            first.try_emplace(m_lines[i].uuid, i);
    std::int64_t leaf = -1;
    for (std::size_t i = m_lines.size(); i-- > 0 && leaf < 0;)
        if (!m_lines[i].uuid.empty() && m_lines[i].chained)
            leaf = std::int64_t(i);
    std::unordered_map<std::string_view, char> onUuid;
    std::string_view cur = leaf >= 0 ? std::string_view(m_lines[std::size_t(leaf)].uuid) : std::string_view();
    while (!cur.empty()) {
        if (onUuid.count(cur)) {
            m_t.addDiagnostic(m_t.records[m_lines[first[cur]].record].line, "parentUuid cycle: the chain stops here");
            break;
        }
        onUuid[cur] = 1;
        const auto it = first.find(cur);
        if (it == first.end())
            break;
        const std::string &parent = m_lines[it->second].parent;
        if (!parent.empty() && !first.count(parent)) {
            m_t.addDiagnostic(m_t.records[m_lines[it->second].record].line,
                              "parent uuid " + parent + " not found: the conversation starts here");
            break;
        }
        cur = parent;
    }
    for (std::size_t i = 0; i < m_lines.size(); ++i) {
        const Line &l = m_lines[i];
        // Fragments of an on-chain record, and records that cannot be placed: shown rather than lost.
        on[i] = l.uuid.empty() || onUuid.count(l.uuid) || !l.chained ? 1 : 0;
    }
    return on;
}

void QwenCodeLoader::finish(const std::vector<char> &onChain)
{
    std::unordered_map<std::string, std::size_t> firstMessage; // uuid -> index into m_t.messages
    for (std::size_t i = 0; i < m_lines.size(); ++i) {
        Line &l = m_lines[i];
        if (!onChain[i]) {
            m_t.offBranchMessages += l.messages.size();
            continue;
        }
        const bool fragment = l.chained && !l.uuid.empty() && firstMessage.count(l.uuid);
        if (fragment && l.messages.size() == 1 && l.messages.front().kind == MessageKind::Conversation) {
            // Another fragment of the same message (a streamed response written in pieces).
            Message &into = m_t.messages[firstMessage[l.uuid]];
            Message &more = l.messages.front();
            if (more.role == into.role && into.kind == MessageKind::Conversation) {
                for (auto &b : more.blocks)
                    into.blocks.push_back(std::move(b));
                if (more.usage)
                    into.usage = more.usage;
                into.records.push_back(l.record);
                continue;
            }
        }
        if (fragment)
            m_t.addDiagnostic(m_t.records[l.record].line, "uuid " + l.uuid + " used again");
        for (std::size_t k = 0; k < l.messages.size(); ++k) {
            if (k == 0 && m_t.records[l.record].message < 0)
                m_t.records[l.record].message = std::int32_t(m_t.messages.size());
            if (k == 0 && !l.uuid.empty())
                firstMessage.try_emplace(l.uuid, m_t.messages.size());
            l.messages[k].records = {l.record};
            m_t.messages.push_back(std::move(l.messages[k]));
        }
    }
    for (auto &m : m_t.messages)
        if (m.role == Role::Assistant && !m.model.empty() && !m_t.header.contains("model"))
            m_t.header["model"] = m.model;
}

} // namespace
} // namespace qwencode

void loadQwenCode(Transcript &t, const LoadContext &ctx)
{
    if (!t.header.is_object())
        t.header = nlohmann::json::object();
    qwencode::QwenCodeLoader(t, ctx).run();
}

} // namespace cl::formats
