// SPDX-License-Identifier: MIT
// Codex rollout writer. Same format: every untouched line is copied byte-for-byte and an edited
// message re-encodes only the payload of its own line (envelope and unknown fields kept). Other
// formats: a fresh rollout (session_meta, turn_context, response_item lines, token_count events).
#include "core/formats/codex/internal.h"
#include "core/formats/formats.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <utility>

namespace cl::formats {

namespace codex {

using ojson = nlohmann::ordered_json;

namespace {

std::string argumentsString(const nlohmann::json &input)
{
    if (input.is_string())
        return input.get<std::string>();
    return json::dump(input.is_null() ? nlohmann::json::object() : input);
}

ojson outputValue(const Block &b)
{
    if (!b.isError)
        return b.text;
    // The shape older Codex versions record for shell output; the loader reads the exit code back.
    ojson o{{"output", b.text}, {"metadata", {{"exit_code", 1}}}};
    return o.dump();
}

ojson messageItem(const char *role, ojson content)
{
    return ojson{{"type", "message"}, {"role", role}, {"content", std::move(content)}};
}

} // namespace

std::vector<ojson> encodeItems(const Message &m, std::vector<std::string> &notes)
{
    std::vector<ojson> items;
    const bool assistant = m.role == Role::Assistant;
    const char *role = assistant ? "assistant" : m.role == Role::System ? "developer"
                                                                        : "user";
    const char *textType = assistant ? "output_text" : "input_text";
    ojson parts = ojson::array();
    ojson summary = ojson::array();
    auto flushParts = [&] {
        if (!parts.empty())
            items.push_back(messageItem(role, std::exchange(parts, ojson::array())));
    };
    auto flushSummary = [&] {
        if (!summary.empty())
            items.push_back(ojson{{"type", "reasoning"}, {"summary", std::exchange(summary, ojson::array())}});
    };
    for (const auto &b : m.blocks) {
        if (b.type != BlockType::Thinking)
            flushSummary();
        switch (b.type) {
        case BlockType::Text:
            if (m.role == Role::Tool) {
                notes.push_back("text in a tool message became a user message");
                items.push_back(messageItem("user", ojson::array({ojson{{"type", "input_text"}, {"text", b.text}}})));
            } else {
                parts.push_back(ojson{{"type", textType}, {"text", b.text}});
            }
            break;
        case BlockType::Image:
            if (!b.text.empty())
                parts.push_back(ojson{{"type", "input_image"}, {"image_url", b.text}});
            else
                notes.push_back("image without its data dropped");
            break;
        case BlockType::Thinking:
            flushParts();
            summary.push_back(ojson{{"type", "summary_text"}, {"text", b.text}});
            break;
        case BlockType::ToolUse:
            flushParts();
            items.push_back(ojson{{"type", "function_call"},
                                  {"name", b.toolName},
                                  {"arguments", argumentsString(b.input)},
                                  {"call_id", b.toolId}});
            break;
        case BlockType::ToolResult:
            flushParts();
            items.push_back(ojson{{"type", "function_call_output"}, {"call_id", b.toolId}, {"output", outputValue(b)}});
            break;
        case BlockType::RedactedThinking:
            notes.push_back("encrypted/redacted reasoning dropped");
            break;
        case BlockType::Document:
        case BlockType::Raw:
            notes.push_back(std::string(blockTypeName(b.type)) + " block dropped");
            break;
        }
    }
    flushSummary();
    flushParts();
    return items;
}

namespace {

const Block *firstBlock(const Message &m, BlockType type)
{
    for (const auto &b : m.blocks)
        if (b.type == type)
            return &b;
    return nullptr;
}

// New payload(s) for an edited message decoded from a response_item whose original payload is p.
// Empty when the message lost everything that line carried.
std::vector<ojson> reencode(ojson p, const Message &m, std::vector<std::string> &notes)
{
    const std::string type = json::str(p, "type");
    if (type == "message") {
        // Text parts take the edited texts in order; images and other parts stay where they were.
        std::vector<std::string> texts;
        for (const auto &b : m.blocks)
            if (b.type == BlockType::Text)
                texts.push_back(b.text);
        if (m.blocks.empty())
            return {};
        const std::string textType = json::str(p, "role") == "assistant" ? "output_text" : "input_text";
        ojson content = ojson::array();
        std::size_t next = 0;
        if (p.contains("content") && p["content"].is_array()) {
            for (const auto &part : p["content"]) {
                // The loader read "text" or, failing that, "refusal" as the part's text.
                const char *key = part.is_object() && part.contains("text") && part["text"].is_string()         ? "text"
                                  : part.is_object() && part.contains("refusal") && part["refusal"].is_string() ? "refusal"
                                                                                                                : nullptr;
                if (!key)
                    content.push_back(part);
                else if (next < texts.size()) {
                    ojson np = part;
                    np[key] = texts[next++];
                    content.push_back(std::move(np));
                }
            }
        }
        for (; next < texts.size(); ++next)
            content.push_back(ojson{{"type", textType}, {"text", texts[next]}});
        p["content"] = std::move(content);
        return {p};
    }
    if (type == "reasoning") {
        ojson summary = ojson::array();
        for (const auto &b : m.blocks)
            if (b.type == BlockType::Thinking)
                summary.push_back(ojson{{"type", "summary_text"}, {"text", b.text}});
        if (summary.empty() && !firstBlock(m, BlockType::RedactedThinking))
            return {};
        p["summary"] = std::move(summary);
        return {p};
    }
    if (const Block *use = firstBlock(m, BlockType::ToolUse)) {
        if (type == "function_call")
            p["arguments"] = argumentsString(use->input);
        else if (type == "custom_tool_call")
            p["input"] = argumentsString(use->input);
        else if (type == "local_shell_call" && use->input.is_object()) {
            ojson action = ojson::parse(json::dump(use->input));
            action["type"] = p.contains("action") ? json::str(p["action"], "type", "exec") : "exec";
            p["action"] = std::move(action);
        } else if (type == "web_search_call")
            p["action"] = ojson::parse(json::dump(use->input));
        else if (type == "tool_search_call")
            p["arguments"] = ojson::parse(json::dump(use->input));
        return {p};
    }
    if (const Block *res = firstBlock(m, BlockType::ToolResult)) {
        if (type == "tool_search_output") {
            ojson tools = ojson::parse(res->text, nullptr, false);
            if (tools.is_array())
                p["tools"] = std::move(tools);
            else
                notes.push_back("edited tool_search_output kept as it was");
        } else {
            p["output"] = outputValue(*res);
        }
        return {p};
    }
    if (m.isConversation() && m.blocks.empty())
        return {};
    notes.push_back("edited " + m.type + " line kept as it was");
    return {p};
}

// The envelope's "ordinal" value in a raw line (current rollouts number every line from 0), as
// [begin, end) offsets; {0, 0} when the line has none.
std::pair<std::size_t, std::size_t> ordinalSpan(std::string_view raw)
{
    const std::size_t key = raw.find("\"ordinal\"");
    const std::size_t payload = raw.find("\"payload\"");
    if (key == std::string_view::npos || (payload != std::string_view::npos && payload < key))
        return {0, 0};
    std::size_t b = raw.find(':', key + 9);
    if (b == std::string_view::npos)
        return {0, 0};
    for (++b; b < raw.size() && raw[b] == ' ';)
        ++b;
    std::size_t e = b;
    while (e < raw.size() && raw[e] >= '0' && raw[e] <= '9')
        ++e;
    return e > b ? std::pair{b, e} : std::pair<std::size_t, std::size_t>{0, 0};
}

// Numbers the lines of a rollout that numbers its lines: a line keeps its ordinal until the first
// line was removed, inserted or split; from there on every line gets the next number (Codex refuses
// a rollout whose records lack one, and pages through them in this order).
class Ordinals
{
public:
    explicit Ordinals(const Transcript &t)
    {
        for (const Record &r : t.records)
            if (r.parsed) {
                m_used = ordinalSpan(t.recordBytes(r)).second > 0;
                break;
            }
    }
    void renumberFromHere() { m_renumber = m_used; }
    // An original line, possibly renumbered.
    void raw(std::string_view line, ByteSink &sink)
    {
        const auto [b, e] = m_used ? ordinalSpan(line) : std::pair<std::size_t, std::size_t>{0, 0};
        if (e == 0) {
            sink.append(line);
            return;
        }
        if (!m_renumber) {
            m_next = std::stoll(std::string(line.substr(b, e - b))) + 1;
            sink.append(line);
            return;
        }
        sink.append(line.substr(0, b));
        sink += std::to_string(m_next++);
        sink.append(line.substr(e));
    }
    // A line ContextLens wrote: the envelope gets the next ordinal (after the timestamp, as Codex has it).
    ojson envelope(std::string timestamp, const char *type, ojson payload)
    {
        ojson line{{"timestamp", std::move(timestamp)}};
        if (m_used)
            line["ordinal"] = m_next++;
        line["type"] = type;
        line["payload"] = std::move(payload);
        return line;
    }
    bool used() const { return m_used; }

private:
    bool m_used = false;
    bool m_renumber = false;
    std::int64_t m_next = 0;
};

// A compacted line whose replacement history a strategy changed: the history rebuilt from the
// messages left (the summary message included); empty when nothing changed.
std::string reencodeCompacted(std::string_view raw, const Transcript &t, const std::vector<std::size_t> &msgs,
                              std::vector<std::string> &notes)
{
    ojson line = ojson::parse(json::sanitizeUtf8(raw), nullptr, false);
    if (!line.is_object() || !line.contains("payload") || !line["payload"].is_object())
        return {};
    ojson &payload = line["payload"];
    const std::size_t before = payload.contains("replacement_history") && payload["replacement_history"].is_array()
                                   ? payload["replacement_history"].size()
                                   : 0;
    std::size_t kept = 0;
    bool edited = false;
    ojson history = ojson::array();
    // Codex keeps one replacement_history_metadata entry per item: the entries of the items left.
    const bool parallel = payload.contains("replacement_history_metadata") && payload["replacement_history_metadata"].is_array()
                          && payload["replacement_history_metadata"].size() == before;
    ojson metadata = ojson::array();
    for (std::size_t i : msgs) {
        const Message &m = t.messages[i];
        if (m.kind == MessageKind::CompactBoundary)
            continue;
        ++kept;
        edited = edited || m.edited;
        const std::int64_t index = json::num(m.meta, "replacementIndex", -1);
        for (auto &item : encodeItems(m, notes)) {
            history.push_back(std::move(item));
            if (parallel && index >= 0 && std::size_t(index) < before)
                metadata.push_back(payload["replacement_history_metadata"][std::size_t(index)]);
        }
    }
    if (!edited && kept == before)
        return {};
    payload["replacement_history"] = std::move(history);
    if (parallel)
        payload["replacement_history_metadata"] = std::move(metadata);
    return line.dump();
}

// Same-format rewrite: walk the records in file order.
WriteResult rewrite(const Transcript &t, ByteSink &sink)
{
    WriteResult out;
    Ordinals ordinals(t);
    std::vector<std::vector<std::size_t>> byRecord(t.records.size());
    std::vector<std::vector<std::size_t>> insertedAfter(t.records.size() + 1); // slot 0 = before everything
    std::size_t lastSlot = 0;
    for (std::size_t i = 0; i < t.messages.size(); ++i) {
        const auto &m = t.messages[i];
        if (m.records.empty()) {
            insertedAfter[lastSlot].push_back(i);
            continue;
        }
        for (auto r : m.records)
            if (r < t.records.size())
                byRecord[r].push_back(i);
        lastSlot = std::size_t(m.records.back()) + 1;
    }
    std::string lastTimestamp = formatTimestamp(0);
    auto emitInserted = [&](std::size_t slot) {
        for (auto i : insertedAfter[slot]) {
            const Message &m = t.messages[i];
            const std::string ts = m.timeMs != kNoTime ? formatTimestamp(m.timeMs) : lastTimestamp;
            for (auto &item : encodeItems(m, out.notes)) {
                ordinals.renumberFromHere();
                json::dumpTo(ordinals.envelope(ts, "response_item", std::move(item)), sink);
                sink += '\n';
            }
        }
    };
    emitInserted(0);
    for (std::size_t r = 0; r < t.records.size(); ++r) {
        const Record &rec = t.records[r];
        const std::string_view raw = t.recordBytes(rec);
        const auto &msgs = byRecord[r];
        const std::string compacted = rec.type == "compacted" && rec.parsed && !msgs.empty()
                                          ? reencodeCompacted(raw, t, msgs, out.notes)
                                          : std::string();
        if (msgs.empty() && rec.message >= 0) {
            // Its message was removed by a strategy: the line goes too.
            ordinals.renumberFromHere();
        } else if (!compacted.empty()) {
            const std::string eol = raw.size() >= 2 && raw.substr(raw.size() - 2) == "\r\n" ? "\r\n" : "\n";
            ordinals.raw(compacted, sink);
            sink += eol;
        } else if (msgs.empty() || !t.messages[msgs.front()].edited || !rec.parsed) {
            ordinals.raw(raw, sink);
        } else {
            const Message &m = t.messages[msgs.front()];
            ojson line = ojson::parse(json::sanitizeUtf8(raw), nullptr, false);
            if (!line.is_object() || rec.type != "response_item" || !line.contains("payload")) {
                if (rec.type != "response_item")
                    out.notes.push_back("edited " + m.type + " line kept as it was");
                ordinals.raw(raw, sink);
            } else {
                const std::string eol = raw.size() >= 2 && raw.substr(raw.size() - 2) == "\r\n" ? "\r\n" : "\n";
                auto payloads = reencode(line["payload"], m, out.notes);
                if (payloads.size() != 1)
                    ordinals.renumberFromHere();
                for (auto &payload : payloads) {
                    line["payload"] = std::move(payload);
                    std::string bytes = line.dump();
                    ordinals.raw(bytes, sink);
                    sink += eol;
                }
            }
        }
        if (rec.parsed) {
            const Message *m = rec.message >= 0 && std::size_t(rec.message) < t.messages.size()
                                   ? &t.messages[std::size_t(rec.message)]
                                   : nullptr;
            if (m && m->timeMs != kNoTime)
                lastTimestamp = formatTimestamp(m->timeMs);
        }
        emitInserted(r + 1);
    }
    return out;
}

std::string pseudoUuid(const Transcript &t)
{
    // Stable for the same input, so converting twice gives the same file.
    std::uint64_t h1 = 1469598103934665603ull, h2 = 0x9E3779B97F4A7C15ull;
    const std::string_view src = t.buffer ? std::string_view(*t.buffer) : std::string_view(t.path);
    for (unsigned char c : src) {
        h1 = (h1 ^ c) * 1099511628211ull;
        h2 = (h2 ^ c) * 0x100000001B3ull + 7;
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, "%08x-%04x-4%03x-8%03x-%012llx", unsigned(h1 >> 32), unsigned(h1 >> 16) & 0xFFFF,
                  unsigned(h1) & 0xFFF, unsigned(h2 >> 52) & 0xFFF, (unsigned long long)(h2 & 0xFFFFFFFFFFFFull));
    return buf;
}

std::string headerString(const Transcript &t, std::initializer_list<const char *> keys)
{
    for (const char *k : keys) {
        const std::string v = json::str(t.header, k);
        if (!v.empty())
            return v;
    }
    return {};
}

WriteResult convert(const Transcript &t, ByteSink &sink)
{
    WriteResult out;
    auto emit = [&](const std::string &ts, const char *type, ojson payload) {
        json::dumpTo(ojson{{"timestamp", ts}, {"type", type}, {"payload", std::move(payload)}}, sink);
        sink += '\n';
    };
    std::int64_t firstMs = kNoTime;
    std::string model = headerString(t, {"model"});
    for (const auto &m : t.messages) {
        if (firstMs == kNoTime && m.timeMs != kNoTime)
            firstMs = m.timeMs;
        if (model.empty() && !m.model.empty())
            model = m.model;
    }
    if (firstMs == kNoTime)
        firstMs = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count();
    std::string ts = formatTimestamp(firstMs);
    std::string id = headerString(t, {"id", "session_id", "sessionId"});
    if (id.empty())
        id = pseudoUuid(t);
    const std::string cwd = headerString(t, {"cwd"});
    emit(ts, "session_meta", ojson{{"id", id}, {"timestamp", ts}, {"cwd", cwd}, {"originator", "contextlens"}, {"cli_version", "0.0.0"}, {"source", "cli"}, {"model_provider", "openai"}});
    if (!model.empty())
        emit(ts, "turn_context", ojson{{"cwd", cwd}, {"approval_policy", "never"}, {"sandbox_policy", {{"type", "read-only"}}}, {"model", model}, {"summary", "auto"}});
    std::size_t skipped = 0;
    std::int64_t totalIn = 0, totalCached = 0, totalOut = 0, totalReasoning = 0;
    for (const auto &m : t.messages) {
        if (!m.isConversation()) {
            ++skipped;
            continue;
        }
        if (m.timeMs != kNoTime)
            ts = formatTimestamp(m.timeMs);
        for (auto &item : encodeItems(m, out.notes))
            emit(ts, "response_item", std::move(item));
        if (m.role == Role::Assistant && m.usage) {
            const Usage &u = *m.usage;
            const std::int64_t in = u.inputTokens + u.cacheReadTokens + u.cacheCreationTokens;
            totalIn += in;
            totalCached += u.cacheReadTokens;
            totalOut += u.outputTokens;
            totalReasoning += u.reasoningTokens;
            auto usage = [](std::int64_t i, std::int64_t c, std::int64_t o, std::int64_t r) {
                return ojson{{"input_tokens", i}, {"cached_input_tokens", c}, {"output_tokens", o}, {"reasoning_output_tokens", r}, {"total_tokens", i + o}};
            };
            ojson info{{"total_token_usage", usage(totalIn, totalCached, totalOut, totalReasoning)},
                       {"last_token_usage", usage(in, u.cacheReadTokens, u.outputTokens, u.reasoningTokens)}};
            if (u.contextWindow > 0)
                info["model_context_window"] = u.contextWindow;
            emit(ts, "event_msg", ojson{{"type", "token_count"}, {"info", std::move(info)}});
        }
    }
    if (skipped)
        out.notes.push_back(std::to_string(skipped) + " non-conversation messages (events, metadata) not written");
    return out;
}

} // namespace
} // namespace codex

WriteResult writeCodex(const Transcript &t, ByteSink &out)
{
    WriteResult r = t.format == Format::Codex && t.buffer ? codex::rewrite(t, out) : codex::convert(t, out);
    // Notes repeat per message; keep each once.
    std::vector<std::string> unique;
    for (auto &n : r.notes)
        if (std::find(unique.begin(), unique.end(), n) == unique.end())
            unique.push_back(std::move(n));
    r.notes = std::move(unique);
    return r;
}

} // namespace cl::formats
