// SPDX-License-Identifier: MIT
// Gemini CLI session loader. Three shapes: the recorded session JSONL (chats/session-*.jsonl with
// $set / $rewindTo lines), the legacy ConversationRecord JSON ({..., messages: [...]}, one Record
// per element of "messages") and the /chat save checkpoint ({history: Content[]} or a bare array,
// decoded by the Gemini API loader).
#include "core/formats/formats.h"
#include "core/formats/geminicli/internal.h"

#include <unordered_map>
#include <unordered_set>

namespace cl::formats {

namespace {

using Json = nlohmann::json;

class GeminiCliLoader
{
public:
    GeminiCliLoader(Transcript &t, const LoadContext &ctx)
        : m_t(t)
        , m_ctx(ctx)
    {}
    void run();

private:
    // One decoded line (or legacy element) in file order, before rewinds and replacements settle.
    struct Entry {
        std::vector<Message> messages;
        std::uint32_t record = 0;
        bool isMessage = false;
        bool dropped = false;
    };

    void loadJsonl();
    void loadLegacy(const geminicli::LegacyLayout &layout);
    std::uint32_t addRecord(std::size_t offset, std::size_t length, std::uint32_t line);
    bool parseRecord(std::uint32_t rec, std::string_view text, bool truncatable);
    void decode(std::uint32_t rec, const Json &o);
    void decodeMessage(Entry &e, const Json &o, std::uint32_t line);
    void addContent(Message &m, const Json &content, std::uint32_t line);
    void rewind(const std::string &id, std::uint32_t line);
    void replaceMessages(std::uint32_t rec, const Json &list, Message marker);
    void mergeHeader(const Json &o, bool skipMessages);
    void finish();

    Transcript &m_t;
    const LoadContext &m_ctx;
    std::vector<Entry> m_entries;
    std::unordered_map<std::string, std::size_t> m_active; // message id -> entry
    std::unordered_set<std::string> m_seen;                // every message id read so far
    std::size_t m_rewrites = 0;                            // $set.messages lines that restate the history
};

void GeminiCliLoader::run()
{
    const std::string_view buf = *m_t.buffer;
    std::size_t start = buf.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
    while (start < buf.size() && (buf[start] == ' ' || buf[start] == '\t' || buf[start] == '\r' || buf[start] == '\n'))
        ++start;
    if (start < buf.size() && buf[start] == '[') {
        loadGeminiContentArray(m_t, start, m_ctx);
        return;
    }
    // A JSONL file has a complete object on its first line; a pretty-printed document does not.
    const auto lines = json::splitLines(buf.substr(start));
    Json first;
    std::string err;
    const bool firstLineIsObject = !lines.empty()
                                   && json::parse(buf.substr(start, lines[0].contentLength), first, err) != json::ParseStatus::Failed
                                   && first.is_object();
    const bool documentish = !firstLineIsObject || json::array(first, "messages") || json::array(first, "history");
    if (documentish) {
        const auto layout = geminicli::legacyLayout(buf);
        if (layout.ok) {
            loadLegacy(layout);
            finish();
            return;
        }
        const json::Range history = json::topLevelValue(buf.substr(start), "history");
        if (history.end > history.begin && buf[start + history.begin] == '[') {
            Json doc;
            if (json::parse(buf, doc, err) != json::ParseStatus::Failed && doc.is_object())
                mergeHeader(doc, true);
            loadGeminiContentArray(m_t, start + history.begin, m_ctx);
            return;
        }
    }
    loadJsonl();
    finish();
}

std::uint32_t GeminiCliLoader::addRecord(std::size_t offset, std::size_t length, std::uint32_t line)
{
    Record r;
    r.offset = std::uint32_t(offset);
    r.length = std::uint32_t(length);
    r.line = line;
    m_t.records.push_back(r);
    return std::uint32_t(m_t.records.size() - 1);
}

bool GeminiCliLoader::parseRecord(std::uint32_t rec, std::string_view text, bool truncatable)
{
    const std::uint32_t line = m_t.records[rec].line;
    Json o;
    std::string err;
    const auto status = json::parse(text, o, err, readableAfter(*m_t.buffer, text));
    if (status == json::ParseStatus::Failed) {
        m_t.addDiagnostic(line, (truncatable ? "truncated last line: " : "invalid JSON: ") + err);
        return false;
    }
    if (status == json::ParseStatus::OkSanitized)
        m_t.addDiagnostic(line, "invalid UTF-8 replaced", Diagnostic::Severity::Info);
    if (!o.is_object()) {
        m_t.addDiagnostic(line, "not a JSON object");
        return false;
    }
    m_t.records[rec].parsed = true;
    decode(rec, o);
    return true;
}

void GeminiCliLoader::loadJsonl()
{
    const std::string_view buf = *m_t.buffer;
    const auto spans = json::splitLines(buf);
    for (std::size_t i = 0; i < spans.size(); ++i) {
        if (i % 2000 == 0 && i) {
            if (m_ctx.cancelled())
                return;
            m_ctx.progress(0.8 * double(i) / double(spans.size()));
        }
        const auto &s = spans[i];
        const std::uint32_t rec = addRecord(s.offset, s.length, s.line);
        std::string_view text = buf.substr(s.offset, s.contentLength);
        if (i == 0 && text.substr(0, 3) == "\xEF\xBB\xBF")
            text.remove_prefix(3);
        if (text.find_first_not_of(" \t\r") == std::string_view::npos)
            continue;
        parseRecord(rec, text, i + 1 == spans.size() && s.length == s.contentLength);
    }
}

void GeminiCliLoader::loadLegacy(const geminicli::LegacyLayout &layout)
{
    const std::string_view buf = *m_t.buffer;
    Json doc;
    std::string err;
    if (json::parse(buf, doc, err) == json::ParseStatus::Failed)
        m_t.addDiagnostic(0, "session document is not valid JSON (" + err + "); reading its messages one by one");
    else if (doc.is_object())
        mergeHeader(doc, true);
    std::uint32_t line = 1;
    std::size_t counted = 0;
    for (std::size_t i = 0; i < layout.elements.size(); ++i) {
        if (i % 2000 == 0 && i) {
            if (m_ctx.cancelled())
                return;
            m_ctx.progress(0.8 * double(i) / double(layout.elements.size()));
        }
        const auto &el = layout.elements[i];
        for (; counted < el.begin; ++counted)
            line += buf[counted] == '\n';
        const std::uint32_t rec = addRecord(el.begin, el.end - el.begin, line);
        parseRecord(rec, buf.substr(el.begin, el.end - el.begin), false);
    }
}

void GeminiCliLoader::mergeHeader(const Json &o, bool skipMessages)
{
    if (!m_t.header.is_object())
        m_t.header = Json::object();
    for (auto it = o.begin(); it != o.end(); ++it)
        if (!(skipMessages && (it.key() == "messages" || it.key() == "history")))
            m_t.header[it.key()] = it.value();
}

void GeminiCliLoader::decode(std::uint32_t rec, const Json &o)
{
    const std::uint32_t line = m_t.records[rec].line;
    Entry e;
    e.record = rec;
    Message m;
    m.line = line;
    if (const Json *to = json::child(o, "$rewindTo")) {
        m_t.records[rec].type = "$rewindTo";
        m.type = "$rewindTo";
        m.kind = MessageKind::Event;
        if (to->is_string()) {
            m.meta = Json{{"rewindTo", *to}};
            rewind(to->get<std::string>(), line);
        } else {
            m_t.addDiagnostic(line, "\"$rewindTo\" is not a string");
        }
    } else if (const Json *set = json::child(o, "$set")) {
        m_t.records[rec].type = "$set";
        m.type = "$set";
        m.kind = MessageKind::Meta;
        if (set->is_object()) {
            mergeHeader(*set, true);
            m.meta = Json::object();
            for (auto it = set->begin(); it != set->end(); ++it)
                if (it.value().is_primitive())
                    m.meta[it.key()] = it.value();
            if (const Json *list = json::array(*set, "messages")) {
                replaceMessages(rec, *list, std::move(m));
                return;
            }
        } else {
            m_t.addDiagnostic(line, "\"$set\" is not an object");
        }
    } else if (json::child(o, "id")) {
        m_t.records[rec].type = json::str(o, "type");
        e.isMessage = true;
        decodeMessage(e, o, line);
        if (!json::child(o, "id")->is_string()) {
            m_t.addDiagnostic(line, "message \"id\" is not a string");
            e.isMessage = false; // cannot be replaced or rewound to
        }
        const std::string id = json::str(o, "id");
        m_seen.insert(id);
        if (e.isMessage) {
            if (const auto it = m_active.find(id); it != m_active.end()) {
                // A message written again (updated): the later line wins, in the earlier place.
                Entry &old = m_entries[it->second];
                m_t.offBranchMessages += old.messages.size();
                old.messages = std::move(e.messages);
                old.record = rec;
                return;
            }
            m_active[id] = m_entries.size();
        }
        m_entries.push_back(std::move(e));
        return;
    } else if (json::child(o, "sessionId")) {
        m_t.records[rec].type = "metadata";
        m.type = "metadata";
        m.kind = MessageKind::Meta;
        mergeHeader(o, true);
        m.meta = Json::object();
        for (const char *k : {"sessionId", "startTime", "kind"})
            if (const Json *v = json::child(o, k); v && v->is_string())
                m.meta[k] = *v;
    } else {
        m.type = "unknown";
        m.kind = MessageKind::Event;
        m.blocks.push_back(makeBlock(BlockType::Raw, json::dump(o)));
        m_t.addDiagnostic(line, "unrecognized line (no id, $set, $rewindTo or sessionId)", Diagnostic::Severity::Info);
    }
    e.messages.push_back(std::move(m));
    m_entries.push_back(std::move(e));
}

void GeminiCliLoader::decodeMessage(Entry &e, const Json &o, std::uint32_t line)
{
    Message m;
    m.line = line;
    m.id = json::str(o, "id");
    m.type = json::str(o, "type");
    m.timestamp = json::str(o, "timestamp");
    m.timeMs = parseTimestamp(m.timestamp);
    m.model = json::str(o, "model");
    const Json *content = json::child(o, "content");
    if (!content)
        content = json::child(o, "parts"); // older records stored Content parts directly
    static const Json kNull;
    if (!content)
        content = &kNull;

    if (m.type == "user") {
        m.role = Role::User;
        addContent(m, *content, line);
        e.messages.push_back(std::move(m));
        return;
    }
    if (m.type != "gemini" && m.type != "model") {
        m.kind = MessageKind::Event;
        m.role = Role::System;
        if (m.type != "info" && m.type != "error" && m.type != "warning")
            m_t.addDiagnostic(line, "unknown message type '" + m.type + "'", Diagnostic::Severity::Info);
        const std::string text = json::flattenText(*content);
        if (!text.empty())
            m.blocks.push_back(makeBlock(BlockType::Text, text));
        e.messages.push_back(std::move(m));
        return;
    }

    m.role = Role::Assistant;
    if (const Json *thoughts = json::child(o, "thoughts"); thoughts && !thoughts->is_null()) {
        if (!thoughts->is_array())
            m_t.addDiagnostic(line, "\"thoughts\" is not an array");
        else
            for (const auto &th : *thoughts)
                if (std::string text = geminicli::thoughtText(th); !text.empty())
                    m.blocks.push_back(makeBlock(BlockType::Thinking, std::move(text)));
    }
    addContent(m, *content, line);
    if (const Json *tokens = json::child(o, "tokens"); tokens && !tokens->is_null()) {
        if (!tokens->is_object()) {
            m_t.addDiagnostic(line, "\"tokens\" is not an object");
        } else {
            Usage u;
            // Gemini's prompt count includes the cached part.
            u.cacheReadTokens = json::num(*tokens, "cached");
            u.inputTokens = std::max<std::int64_t>(0, json::num(*tokens, "input") - u.cacheReadTokens);
            u.outputTokens = json::num(*tokens, "output");
            u.reasoningTokens = json::num(*tokens, "thoughts");
            m.usage = u;
        }
    }

    Message results;
    results.role = Role::Tool;
    results.type = m.type + "/tool_results";
    results.id = m.id + "/results";
    results.line = line;
    results.timestamp = m.timestamp;
    results.timeMs = m.timeMs;
    if (const Json *calls = json::child(o, "toolCalls"); calls && !calls->is_null()) {
        if (!calls->is_array())
            m_t.addDiagnostic(line, "\"toolCalls\" is not an array");
        else
            for (const auto &call : *calls) {
                if (!call.is_object()) {
                    m_t.addDiagnostic(line, "tool call is not an object");
                    continue;
                }
                Block use;
                use.type = BlockType::ToolUse;
                use.toolId = json::str(call, "id");
                use.toolName = json::str(call, "name");
                const Json *args = json::child(call, "args");
                if (args && args->is_object()) {
                    use.input = *args;
                } else {
                    use.input = Json::object();
                    if (args && !args->is_null())
                        m_t.addDiagnostic(line, "tool call \"args\" is not an object");
                }
                m.blocks.push_back(use);
                const Json *result = json::child(call, "result");
                if (!result || result->is_null())
                    continue;
                Block res;
                res.type = BlockType::ToolResult;
                res.toolId = use.toolId;
                res.toolName = use.toolName;
                res.text = geminicli::resultText(*result, res.isError);
                const std::string status = json::str(call, "status");
                res.isError = res.isError || status == "error" || status == "cancelled";
                results.blocks.push_back(std::move(res));
            }
    }
    e.messages.push_back(std::move(m));
    if (!results.blocks.empty())
        e.messages.push_back(std::move(results));
}

void GeminiCliLoader::addContent(Message &m, const Json &content, std::uint32_t line)
{
    if (content.is_null())
        return;
    if (content.is_string()) {
        if (!content.get_ref<const std::string &>().empty())
            m.blocks.push_back(makeBlock(BlockType::Text, content.get<std::string>()));
        return;
    }
    if (content.is_object()) {
        addContent(m, Json::array({content}), line);
        return;
    }
    if (!content.is_array()) {
        m_t.addDiagnostic(line, "\"content\" is neither a string nor parts");
        return;
    }
    for (const auto &part : content) {
        if (part.is_string()) {
            m.blocks.push_back(makeBlock(BlockType::Text, part.get<std::string>()));
        } else if (const Json *text = json::child(part, "text"); text && text->is_string()) {
            const bool thought = json::boolean(part, "thought");
            m.blocks.push_back(makeBlock(thought ? BlockType::Thinking : BlockType::Text, text->get<std::string>()));
        } else if (const Json *data = json::object(part, "inlineData")) {
            Block b;
            b.type = json::str(*data, "mimeType").rfind("image/", 0) == 0 ? BlockType::Image : BlockType::Document;
            b.mediaType = json::str(*data, "mimeType");
            b.dataSize = json::str(*data, "data").size();
            m.blocks.push_back(std::move(b));
        } else if (const Json *file = json::object(part, "fileData")) {
            Block b;
            b.type = BlockType::Document;
            b.mediaType = json::str(*file, "mimeType");
            b.text = json::str(*file, "fileUri");
            m.blocks.push_back(std::move(b));
        } else if (const Json *call = json::object(part, "functionCall")) {
            Block b;
            b.type = BlockType::ToolUse;
            b.toolId = json::str(*call, "id");
            b.toolName = json::str(*call, "name");
            const Json *args = json::object(*call, "args");
            b.input = args ? *args : Json::object();
            m.blocks.push_back(std::move(b));
        } else if (const Json *resp = json::object(part, "functionResponse")) {
            Block b;
            b.type = BlockType::ToolResult;
            b.toolId = json::str(*resp, "id");
            b.toolName = json::str(*resp, "name");
            b.text = geminicli::resultText(Json::array({part}), b.isError);
            m.blocks.push_back(std::move(b));
        } else {
            m.blocks.push_back(makeBlock(BlockType::Raw, json::dump(part)));
        }
    }
}

// A "$set" of "messages" replaces the whole conversation; later message lines add to it. Gemini
// CLI writes one when a session starts or resumes (the history restated: every id already known)
// and when it compresses the history (a state snapshot and the turns it keeps: new ids). A
// restatement supersedes the lines it restates (the later copy wins, as for a message written
// again); a compression is a compaction: the earlier messages stay, as history before a boundary.
void GeminiCliLoader::replaceMessages(std::uint32_t rec, const Json &list, Message marker)
{
    const std::uint32_t line = m_t.records[rec].line;
    // A restatement names a turn's results "<turn id>_response"; every other id is one already read.
    bool restates = true;
    for (const auto &el : list) {
        std::string id = el.is_object() ? json::str(el, "id") : std::string();
        constexpr std::string_view kResponse = "_response";
        if (id.size() > kResponse.size() && id.compare(id.size() - kResponse.size(), kResponse.size(), kResponse) == 0)
            id.resize(id.size() - kResponse.size());
        if (!m_seen.count(id))
            restates = false;
    }
    const bool hadMessages = !m_active.empty();
    Entry head;
    head.record = rec;
    if (hadMessages && !restates) {
        marker.kind = MessageKind::CompactBoundary;
        marker.role = Role::System;
        marker.meta["compression"] = true;
        marker.meta["messages"] = list.size();
    } else if (hadMessages) {
        ++m_rewrites;
        for (auto &e : m_entries)
            if (e.isMessage && !e.dropped) {
                e.dropped = true;
                m_t.offBranchMessages += e.messages.size();
            }
    }
    head.messages.push_back(std::move(marker));
    m_entries.push_back(std::move(head));
    m_active.clear();
    for (const auto &el : list) {
        if (!el.is_object() || !json::child(el, "id")) {
            m_t.addDiagnostic(line, "an element of \"$set\".messages is not a message");
            continue;
        }
        Entry e;
        e.record = rec;
        e.isMessage = true;
        decodeMessage(e, el, line);
        const std::string id = json::str(el, "id");
        m_seen.insert(id);
        if (const auto it = m_active.find(id); it != m_active.end()) {
            // Gemini CLI lists a turn's tool results under the id of the turn that called them.
            for (auto &msg : e.messages)
                m_entries[it->second].messages.push_back(std::move(msg));
            continue;
        }
        m_active[id] = m_entries.size();
        m_entries.push_back(std::move(e));
    }
}

void GeminiCliLoader::rewind(const std::string &id, std::uint32_t line)
{
    const auto it = m_active.find(id);
    std::size_t from = 0;
    if (it != m_active.end())
        from = it->second;
    else
        m_t.addDiagnostic(line, "rewind to unknown message id '" + id + "': every earlier message dropped",
                          Diagnostic::Severity::Info);
    for (std::size_t i = from; i < m_entries.size(); ++i) {
        Entry &e = m_entries[i];
        if (!e.isMessage || e.dropped)
            continue;
        e.dropped = true;
        m_t.offBranchMessages += e.messages.size();
        if (!e.messages.empty())
            m_active.erase(e.messages.front().id);
    }
}

void GeminiCliLoader::finish()
{
    // Gemini CLI records a turn's tool results twice, inline in the turn's toolCalls and as a user
    // line after it, and sends both when it resumes: the second is a repetition, not an orphan.
    std::unordered_set<std::string> answered;
    for (auto &e : m_entries) {
        if (e.dropped)
            continue;
        for (auto &msg : e.messages) {
            if (msg.kind == MessageKind::CompactBoundary)
                answered.clear();
            for (auto &b : msg.blocks)
                if (b.type == BlockType::ToolResult && !b.toolId.empty() && !answered.insert(b.toolId).second)
                    b.repeated = true;
        }
    }
    if (m_rewrites)
        m_t.addDiagnostic(0, std::to_string(m_rewrites) + " restatement(s) of the history (\"$set\".messages, written on resume): the latest wins",
                          Diagnostic::Severity::Info);
    std::size_t total = 0;
    for (const auto &e : m_entries)
        total += e.dropped ? 0 : e.messages.size();
    m_t.messages.reserve(total);
    for (auto &e : m_entries) {
        if (e.dropped)
            continue;
        for (std::size_t k = 0; k < e.messages.size(); ++k) {
            if (k == 0 && m_t.records[e.record].message < 0)
                m_t.records[e.record].message = std::int32_t(m_t.messages.size());
            e.messages[k].records = {e.record};
            m_t.messages.push_back(std::move(e.messages[k]));
        }
    }
}

} // namespace

void loadGeminiCli(Transcript &t, const LoadContext &ctx)
{
    GeminiCliLoader(t, ctx).run();
}

} // namespace cl::formats
