// SPDX-License-Identifier: MIT
// OpenAI Codex CLI rollout loader: {timestamp, type, payload} a line. One Record per line; each
// parsed line yields exactly one Message, so the writer can map edits back to lines 1:1.
#include "core/formats/codex/internal.h"
#include "core/formats/formats.h"
#include "core/util/splitlines.h"

#include <algorithm>
#include <charconv>
#include <cstdint>

namespace cl::formats {

namespace codex {

std::string partsText(const nlohmann::json &parts)
{
    if (!parts.is_array())
        return json::flattenText(parts);
    std::string out;
    for (const auto &p : parts) {
        std::string piece;
        if (p.is_string())
            piece = p.get<std::string>();
        else if (const auto *t = json::child(p, "text"); t && t->is_string())
            piece = t->get<std::string>();
        else if (json::str(p, "type").find("image") != std::string::npos)
            piece = "[image]";
        else
            piece = json::dump(p);
        if (!out.empty())
            out += '\n';
        out += piece;
    }
    return out;
}

namespace {
// "Exit code: 1\nWall time: ..." is how newer Codex versions format shell output.
bool exitCodePrefixFails(std::string_view s)
{
    constexpr std::string_view kPrefix = "Exit code: ";
    if (s.substr(0, kPrefix.size()) != kPrefix)
        return false;
    s.remove_prefix(kPrefix.size());
    int code = 0;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), code);
    return r.ec == std::errc() && code != 0;
}

bool metadataFails(const nlohmann::json &o)
{
    if (json::boolean(o, "success", true) == false)
        return true;
    if (const auto *meta = json::object(o, "metadata"))
        return json::num(*meta, "exit_code", 0) != 0;
    return json::num(o, "exit_code", 0) != 0;
}
} // namespace

void decodeOutput(const nlohmann::json &output, std::string &text, bool &isError)
{
    isError = false;
    if (output.is_string()) {
        const std::string &s = output.get_ref<const std::string &>();
        // Older Codex encodes shell results as a JSON string {"output": "...", "metadata": {...}}.
        if (!s.empty() && s.front() == '{' && s.back() == '}') {
            nlohmann::json inner;
            std::string err;
            if (json::parse(s, inner, err) != json::ParseStatus::Failed && inner.is_object()
                && json::child(inner, "output")) {
                text = json::flattenText(inner["output"]);
                isError = metadataFails(inner);
                return;
            }
        }
        text = s;
        isError = exitCodePrefixFails(s);
        return;
    }
    if (output.is_object()) {
        isError = metadataFails(output);
        if (const auto *c = json::child(output, "content"))
            text = partsText(*c);
        else if (const auto *o = json::child(output, "output")) {
            bool innerError = false;
            decodeOutput(*o, text, innerError);
            isError = isError || innerError;
        } else if (const auto *t = json::child(output, "text"); t && t->is_string())
            text = t->get<std::string>();
        else
            text = json::dump(output);
        return;
    }
    text = output.is_null() ? std::string() : partsText(output);
}

} // namespace codex

namespace {

using Json = nlohmann::json;

Role roleFrom(const std::string &r)
{
    if (r == "user")
        return Role::User;
    if (r == "assistant")
        return Role::Assistant;
    if (r == "developer" || r == "system")
        return Role::System;
    if (r == "tool")
        return Role::Tool;
    return Role::Unknown;
}

// Codex cuts every tool output it records into the model's history (on each turn and when it
// resumes a rollout, whose file keeps the whole output) to its model's truncation policy plus a fifth
// for serialization: {"mode":"bytes","limit":N} keeps N x 1.2 bytes, {"mode":"tokens","limit":N}
// N x 1.2 tokens of its 4-bytes-a-token count. Turn context lines record the policy; where they do
// not (Codex 0.16x), the policy of models outside its catalog applies: 10 000 bytes.
constexpr std::uint32_t kDefaultResultLimit = 12000;

std::uint32_t resultLimit(const Json &policy)
{
    const Json *limit = json::child(policy, "limit");
    if (!limit || !limit->is_number() || limit->get<double>() <= 0)
        return kDefaultResultLimit;
    const double bytes = limit->get<double>() * 1.2 * (json::str(policy, "mode") == "tokens" ? 4.0 : 1.0);
    return std::uint32_t(std::min<double>(bytes, UINT32_MAX));
}

Block imageBlock(const Json &part)
{
    Block b;
    b.type = BlockType::Image;
    const std::string url = json::str(part, "image_url");
    // data:image/png;base64,....
    if (url.rfind("data:", 0) == 0) {
        const auto semi = url.find(';');
        const auto comma = url.find(',');
        if (semi != std::string::npos)
            b.mediaType = url.substr(5, semi - 5);
        if (comma != std::string::npos)
            b.dataSize = url.size() - comma - 1;
    } else if (!url.empty()) {
        b.text = url;
    }
    return b;
}

class CodexLoader
{
public:
    CodexLoader(Transcript &t, const LoadContext &ctx)
        : m_t(t)
        , m_ctx(ctx)
    {}
    void run();

private:
    void line(const json::LineSpan &span, std::string_view text, bool last);
    Message &newMessage(std::uint32_t rec, const Json &o, std::string type);
    void sessionMeta(Message &m, const Json &p);
    void responseItem(Message &m, const Json &p, std::uint32_t line);
    void eventMsg(Message &m, const Json &p, std::uint32_t line);
    void toolUse(Message &m, const Json &p, std::string name, Json input);

    Transcript &m_t;
    const LoadContext &m_ctx;
    std::int32_t m_lastAssistant = -1;
    std::string m_model;
    std::uint32_t m_resultLimit = kDefaultResultLimit;
};

void CodexLoader::run()
{
    const std::string_view buf = *m_t.buffer;
    const auto spans = json::splitLinesOnThreads(buf, m_ctx.options.threads);
    m_t.records.reserve(spans.size());
    for (std::size_t i = 0; i < spans.size(); ++i) {
        if (i % 2000 == 0 && i) {
            if (m_ctx.cancelled())
                return;
            m_ctx.progress(0.8 * double(i) / double(spans.size()));
        }
        line(spans[i], buf.substr(spans[i].offset, spans[i].contentLength), i + 1 == spans.size());
    }
    if (m_t.header.is_null())
        m_t.addDiagnostic(0, "no session_meta line", Diagnostic::Severity::Info);
}

void CodexLoader::line(const json::LineSpan &span, std::string_view text, bool last)
{
    Record rec;
    rec.offset = span.offset;
    rec.length = span.length;
    rec.line = span.line;
    const auto recIndex = std::uint32_t(m_t.records.size());
    m_t.records.push_back(rec);
    if (text.find_first_not_of(" \t\r") == std::string_view::npos)
        return; // blank line: kept raw, nothing to say

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
        m_t.addDiagnostic(span.line, "line has no \"type\"");

    static const Json kEmpty = Json::object();
    const Json *payload = json::object(o, "payload");
    if (!payload) {
        if (json::child(o, "payload"))
            m_t.addDiagnostic(span.line, "\"payload\" is not an object");
        payload = &kEmpty;
    }
    const std::string ptype = json::str(*payload, "type");
    const std::string type = r.type;
    Message &m = newMessage(recIndex, o, ptype.empty() ? type : type + "/" + ptype);
    if (type == "session_meta") {
        sessionMeta(m, *payload);
    } else if (type == "turn_context") {
        m.kind = MessageKind::Meta;
        const std::string model = json::str(*payload, "model");
        if (!model.empty()) {
            m_model = model;
            m_t.header["model"] = model;
            m.model = model;
        }
        m.meta = Json{{"model", model}, {"cwd", json::str(*payload, "cwd")}};
        if (const Json *policy = json::object(*payload, "truncation_policy"))
            m_resultLimit = resultLimit(*policy);
    } else if (type == "response_item") {
        responseItem(m, *payload, span.line);
    } else if (type == "event_msg") {
        eventMsg(m, *payload, span.line);
    } else if (type == "compacted") {
        m.kind = MessageKind::CompactBoundary;
        m.role = Role::System;
        const Json *history = json::array(*payload, "replacement_history");
        m.meta = Json{{"message", json::str(*payload, "message")},
                      {"replacement_history", history ? history->size() : 0}};
        const std::string summary = json::str(*payload, "message");
        if (!summary.empty())
            m.blocks.push_back(makeBlock(BlockType::Text, summary));
        // What the model sees from here on: the replacement history (the user requests Codex kept
        // and the summary as the last user message), decoded as messages of this line.
        const auto boundary = std::int32_t(m_t.messages.size() - 1);
        if (history)
            for (std::size_t k = 0; k < history->size(); ++k) {
                const Json &item = (*history)[k];
                if (!item.is_object())
                    continue;
                Message &h = newMessage(recIndex, o, "compacted/" + json::str(item, "type")); // m is stale now
                m_t.records[recIndex].message = boundary;
                responseItem(h, item, span.line);
                h.meta["replacementIndex"] = k; // its place, for the writer (metadata runs in parallel)
                if (h.role == Role::User && !summary.empty() && h.plainText().find(summary) != std::string::npos)
                    h.kind = MessageKind::CompactSummary;
            }
    } else {
        // world_state, inter_agent_communication_metadata, ... and whatever comes next.
        m.kind = MessageKind::Event;
        m.blocks.push_back(makeBlock(BlockType::Raw, json::dump(*payload)));
    }
}

Message &CodexLoader::newMessage(std::uint32_t rec, const Json &o, std::string type)
{
    m_t.records[rec].message = std::int32_t(m_t.messages.size());
    Message &m = m_t.messages.emplace_back();
    m.type = std::move(type);
    m.records.push_back(rec);
    m.line = m_t.records[rec].line;
    m.timestamp = json::str(o, "timestamp");
    m.timeMs = parseTimestamp(m.timestamp);
    if (const Json *p = json::object(o, "payload"))
        m.id = json::str(*p, "id");
    return m;
}

void CodexLoader::sessionMeta(Message &m, const Json &p)
{
    m.kind = MessageKind::Meta;
    if (!m_t.header.is_object())
        m_t.header = Json::object();
    // The first session_meta describes this file; later ones (forks, resumed parents) only fill gaps.
    for (auto it = p.begin(); it != p.end(); ++it)
        if (!m_t.header.contains(it.key()))
            m_t.header[it.key()] = it.value();
    m.meta = Json::object();
    for (const char *k : {"id", "cwd", "cli_version", "originator", "model_provider"})
        if (const Json *v = json::child(p, k); v && v->is_string())
            m.meta[k] = *v;
}

void CodexLoader::toolUse(Message &m, const Json &p, std::string name, Json input)
{
    m.role = Role::Assistant;
    Block b;
    b.type = BlockType::ToolUse;
    b.toolId = json::str(p, "call_id", json::str(p, "id"));
    b.toolName = std::move(name);
    b.input = std::move(input);
    m.blocks.push_back(std::move(b));
}

void CodexLoader::responseItem(Message &m, const Json &p, std::uint32_t line)
{
    const std::string type = json::str(p, "type");
    m.kind = MessageKind::Conversation;
    if (type == "message") {
        const std::string role = json::str(p, "role");
        m.role = roleFrom(role);
        if (m.role == Role::Unknown)
            m_t.addDiagnostic(line, "message with unknown role '" + role + "'");
        const Json *content = json::child(p, "content");
        if (content && content->is_string()) {
            m.blocks.push_back(makeBlock(BlockType::Text, content->get<std::string>()));
        } else if (content && content->is_array()) {
            for (const auto &part : *content) {
                const std::string pt = json::str(part, "type");
                if (pt == "input_image")
                    m.blocks.push_back(imageBlock(part));
                else if (const Json *txt = json::child(part, "text"); txt && txt->is_string())
                    m.blocks.push_back(makeBlock(BlockType::Text, txt->get<std::string>()));
                else if (const Json *ref = json::child(part, "refusal"); ref && ref->is_string())
                    m.blocks.push_back(makeBlock(BlockType::Text, ref->get<std::string>()));
                else
                    m.blocks.push_back(makeBlock(BlockType::Raw, json::dump(part)));
            }
        } else if (content) {
            m_t.addDiagnostic(line, "message \"content\" is neither a string nor an array");
        }
    } else if (type == "function_call") {
        Json input = Json::object();
        const Json *args = json::child(p, "arguments");
        if (args && args->is_string()) {
            std::string err;
            const std::string &s = args->get_ref<const std::string &>();
            if (!s.empty() && json::parse(s, input, err) == json::ParseStatus::Failed) {
                input = s;
                m_t.addDiagnostic(line, "function_call arguments are not JSON; kept as a string",
                                  Diagnostic::Severity::Info);
            }
        } else if (args && args->is_object()) {
            input = *args;
        } else {
            m_t.addDiagnostic(line, "function_call has no string \"arguments\"", Diagnostic::Severity::Info);
        }
        toolUse(m, p, json::str(p, "name"), std::move(input));
    } else if (type == "custom_tool_call") {
        // Free-form input (apply_patch text, ...): keep it as the string it is.
        const Json *in = json::child(p, "input");
        toolUse(m, p, json::str(p, "name"), in ? *in : Json(""));
    } else if (type == "local_shell_call") {
        Json input = Json::object();
        if (const Json *action = json::object(p, "action")) {
            input = *action;
            input.erase("type");
        }
        toolUse(m, p, "local_shell", std::move(input));
    } else if (type == "web_search_call") {
        const Json *action = json::object(p, "action");
        toolUse(m, p, "web_search", action ? *action : Json::object());
        m.blocks.back().serverSide = true; // OpenAI runs the search: the rollout has no output item for it
    } else if (type == "tool_search_call") {
        const Json *args = json::child(p, "arguments");
        toolUse(m, p, "tool_search", args ? *args : Json::object());
    } else if (type == "function_call_output" || type == "custom_tool_call_output" || type == "tool_search_output") {
        m.role = Role::Tool;
        Block b;
        b.type = BlockType::ToolResult;
        b.toolId = json::str(p, "call_id");
        if (b.toolId.empty())
            m_t.addDiagnostic(line, type + " has no \"call_id\"");
        if (type == "tool_search_output") {
            const Json *tools = json::child(p, "tools");
            b.text = tools ? json::dump(*tools) : std::string();
        } else if (const Json *out = json::child(p, "output")) {
            codex::decodeOutput(*out, b.text, b.isError);
        }
        b.sentLimit = m_resultLimit;
        m.blocks.push_back(std::move(b));
    } else if (type == "reasoning") {
        m.role = Role::Assistant;
        for (const char *key : {"summary", "content"}) {
            if (const Json *parts = json::array(p, key)) {
                for (const auto &s : *parts) {
                    const std::string text = s.is_string() ? s.get<std::string>() : json::str(s, "text");
                    if (!text.empty())
                        m.blocks.push_back(makeBlock(BlockType::Thinking, text));
                }
            }
        }
        if (m.blocks.empty()) {
            // Only encrypted reasoning: the model still gets it back, but there is nothing to read.
            Block b;
            b.type = BlockType::RedactedThinking;
            b.dataSize = json::str(p, "encrypted_content").size();
            m.blocks.push_back(std::move(b));
        }
    } else {
        // ghost_snapshot, image_generation_call, agent_message, compaction, ...
        m.kind = MessageKind::Event;
        m.blocks.push_back(makeBlock(BlockType::Raw, json::dump(p)));
    }
    if (m.role == Role::Assistant && m.kind == MessageKind::Conversation) {
        m.model = m_model;
        m_lastAssistant = std::int32_t(m_t.messages.size() - 1);
    }
}

void CodexLoader::eventMsg(Message &m, const Json &p, std::uint32_t line)
{
    const std::string type = json::str(p, "type");
    // user_message / agent_message repeat response items: events, so nothing is counted twice.
    m.kind = MessageKind::Event;
    if (type == "token_count") {
        const Json *info = json::object(p, "info");
        if (!info)
            return;
        const Json *last = json::object(*info, "last_token_usage");
        if (!last)
            last = json::object(*info, "total_token_usage");
        if (!last) {
            m_t.addDiagnostic(line, "token_count without usage", Diagnostic::Severity::Info);
            return;
        }
        Usage u;
        // OpenAI input_tokens include the cached ones.
        const std::int64_t input = json::num(*last, "input_tokens");
        u.cacheReadTokens = json::num(*last, "cached_input_tokens");
        u.inputTokens = std::max<std::int64_t>(0, input - u.cacheReadTokens);
        u.cacheCreationTokens = json::num(*last, "cache_write_input_tokens");
        u.outputTokens = json::num(*last, "output_tokens");
        u.reasoningTokens = json::num(*last, "reasoning_output_tokens");
        u.contextWindow = json::num(*info, "model_context_window");
        m.meta = *last;
        if (input == 0 && u.outputTokens == 0)
            return; // the all-zero report Codex writes before the first response
        if (m_lastAssistant < 0) {
            m_t.addDiagnostic(line, "token_count before any assistant message", Diagnostic::Severity::Info);
            return;
        }
        // Codex may repeat token_count for one response: the latest report wins, never a sum.
        m_t.messages[std::size_t(m_lastAssistant)].usage = u;
        return;
    }
    if (const Json *msg = json::child(p, "message"); msg && msg->is_string())
        m.blocks.push_back(makeBlock(BlockType::Text, msg->get<std::string>()));
    else if (const Json *txt = json::child(p, "text"); txt && txt->is_string())
        m.blocks.push_back(makeBlock(BlockType::Text, txt->get<std::string>()));
    else
        m.blocks.push_back(makeBlock(BlockType::Raw, json::dump(p)));
    if (type == "user_message")
        m.role = Role::User;
    else if (type == "agent_message" || type == "agent_reasoning")
        m.role = Role::Assistant;
}

} // namespace

void loadCodex(Transcript &t, const LoadContext &ctx)
{
    CodexLoader(t, ctx).run();
}

} // namespace cl::formats
