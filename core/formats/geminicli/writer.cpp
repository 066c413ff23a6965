// SPDX-License-Identifier: MIT
// Gemini CLI session writer. Same format: untouched lines (JSONL) or "messages" elements (legacy
// JSON, rebuilt from the original prefix, separators and suffix) are copied byte-for-byte, and an
// edited message re-encodes only its own record. Other formats: a recorded session JSONL.
#include "core/formats/formats.h"
#include "core/formats/geminicli/internal.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <set>
#include <unordered_map>

namespace cl::formats {

namespace {

using ojson = nlohmann::ordered_json;

std::string dumpLine(const ojson &o)
{
    return o.dump(-1, ' ', false, ojson::error_handler_t::replace);
}

ojson toOrdered(const nlohmann::json &j)
{
    return ojson::parse(json::dump(j), nullptr, false);
}

// [{"functionResponse": {"id", "name", "response": {"output" | "error": text}}}], built by moves: an
// initializer list would copy the text (a tool result may be megabytes) once per level.
ojson functionResponse(const Block &b, const std::string &name)
{
    ojson response = ojson::object();
    response[b.isError ? "error" : "output"] = b.text;
    ojson call = ojson::object();
    call["id"] = b.toolId;
    call["name"] = name;
    call["response"] = std::move(response);
    ojson part = ojson::object();
    part["functionResponse"] = std::move(call);
    ojson parts = ojson::array();
    parts.push_back(std::move(part));
    return parts;
}

// ---- same format, edited records ----

// Content with its text parts replaced by the message's Text blocks (other parts kept in place).
ojson rebuildContent(const ojson *orig, const Message &m)
{
    std::vector<std::string> texts;
    for (const auto &b : m.blocks)
        if (b.type == BlockType::Text)
            texts.push_back(b.text);
    if (!orig || !orig->is_array()) {
        std::string joined;
        for (const auto &t : texts)
            joined += (joined.empty() ? "" : "\n") + t;
        return joined;
    }
    ojson out = ojson::array();
    std::size_t next = 0;
    for (const auto &part : *orig) {
        const bool textPart = part.is_string()
                              || (part.is_object() && part.contains("text") && !cl::json::boolean(part, "thought"));
        if (!textPart) {
            out.push_back(part);
        } else if (next < texts.size()) {
            ojson p = part.is_object() ? part : ojson::object();
            p["text"] = texts[next++];
            out.push_back(std::move(p));
        }
    }
    for (; next < texts.size(); ++next)
        out.push_back(ojson{{"text", texts[next]}});
    return out;
}

void reencodeGemini(ojson &o, const Message *assistant, const Message *tools)
{
    const char *contentKey = o.contains("content") || !o.contains("parts") ? "content" : "parts";
    if (assistant) {
        ojson *orig = o.contains(contentKey) ? &o[contentKey] : nullptr;
        o[contentKey] = rebuildContent(orig, *assistant);
        // Thoughts: keep each original {subject, description, timestamp} whose text is unchanged.
        ojson origThoughts = o.contains("thoughts") && o["thoughts"].is_array() ? o["thoughts"] : ojson::array();
        std::vector<bool> used(origThoughts.size(), false);
        ojson thoughts = ojson::array();
        for (const auto &b : assistant->blocks) {
            if (b.type != BlockType::Thinking)
                continue;
            bool kept = false;
            for (std::size_t i = 0; i < origThoughts.size() && !kept; ++i)
                if (!used[i] && geminicli::thoughtText(nlohmann::json::parse(origThoughts[i].dump())) == b.text) {
                    used[i] = kept = true;
                    thoughts.push_back(origThoughts[i]);
                }
            if (!kept)
                thoughts.push_back(ojson{{"subject", ""}, {"description", b.text}});
        }
        if (o.contains("thoughts") || !thoughts.empty())
            o["thoughts"] = std::move(thoughts);
    }
    ojson origCalls = o.contains("toolCalls") && o["toolCalls"].is_array() ? o["toolCalls"] : ojson::array();
    if (origCalls.empty() && !assistant)
        return;
    ojson calls = ojson::array();
    auto findResult = [&](const std::string &id) -> const Block * {
        if (tools)
            for (const auto &b : tools->blocks)
                if (b.type == BlockType::ToolResult && b.toolId == id)
                    return &b;
        return nullptr;
    };
    auto encodeCall = [&](ojson call, const std::string &id, const std::string &name) {
        const Block *res = findResult(id);
        bool origError = false;
        const std::string origText = call.contains("result")
                                         ? geminicli::resultText(nlohmann::json::parse(call["result"].dump()), origError)
                                         : std::string();
        if (!res)
            call.erase("result");
        else if (!call.contains("result") || origText != res->text)
            call["result"] = functionResponse(*res, name);
        calls.push_back(std::move(call));
    };
    if (assistant) {
        for (const auto &b : assistant->blocks) {
            if (b.type != BlockType::ToolUse)
                continue;
            ojson call;
            for (const auto &c : origCalls)
                if (c.is_object() && cl::json::str(c, "id") == b.toolId)
                    call = c;
            if (call.is_null())
                call = ojson{{"id", b.toolId}, {"name", b.toolName}, {"status", "success"}};
            call["args"] = b.input.is_object() ? toOrdered(b.input) : ojson::object();
            encodeCall(std::move(call), b.toolId, b.toolName);
        }
    } else {
        // Only the tool results changed: keep the calls, update their results.
        for (const auto &c : origCalls)
            if (c.is_object())
                encodeCall(c, cl::json::str(c, "id"), cl::json::str(c, "name"));
    }
    if (!calls.empty() || o.contains("toolCalls"))
        o["toolCalls"] = std::move(calls);
}

// Lines for synthesized messages (no source record), in the recorded-session shape.
std::vector<ojson> encodeMessages(const std::vector<const Message *> &msgs, std::vector<std::string> &notes,
                                  std::set<std::string> &ids);

// Re-encoded bytes of an edited record; empty when its messages lost everything.
std::string reencodeRecord(std::string_view raw, const std::vector<const Message *> &msgs, WriteResult &out)
{
    ojson o = ojson::parse(json::sanitizeUtf8(raw), nullptr, false);
    if (o.is_object() && o.contains("$set") && o["$set"].is_object() && o["$set"].contains("messages")) {
        // The conversation Gemini CLI resumes from (a restatement or a compression): the line stays,
        // with the messages the strategy left, even none.
        std::set<std::string> ids;
        ojson list = ojson::array();
        for (auto &el : encodeMessages(msgs, out.notes, ids))
            list.push_back(std::move(el));
        o["$set"]["messages"] = std::move(list);
        return dumpLine(o);
    }
    const Message *assistant = nullptr;
    const Message *tools = nullptr;
    const Message *user = nullptr;
    for (const Message *m : msgs) {
        if (m->role == Role::Assistant)
            assistant = m;
        else if (m->role == Role::Tool)
            tools = m;
        else if (m->role == Role::User && m->kind == MessageKind::Conversation)
            user = m;
    }
    if (!o.is_object() || (!assistant && !tools && !user)) {
        out.notes.push_back("edited metadata or event line kept as it was");
        return std::string(raw);
    }
    if (user) {
        if (user->blocks.empty())
            return {};
        const char *key = o.contains("content") || !o.contains("parts") ? "content" : "parts";
        ojson *orig = o.contains(key) ? &o[key] : nullptr;
        o[key] = rebuildContent(orig, *user);
    } else {
        if (assistant && assistant->blocks.empty() && (!tools || tools->blocks.empty()))
            return {};
        reencodeGemini(o, assistant, tools);
    }
    return dumpLine(o);
}

struct Plan {
    std::vector<std::vector<const Message *>> byRecord;
    std::vector<std::vector<const Message *>> insertedAfter; // slot 0 = before the first record
};

Plan plan(const Transcript &t)
{
    Plan p;
    p.byRecord.resize(t.records.size());
    p.insertedAfter.resize(t.records.size() + 1);
    std::size_t slot = 0;
    for (const auto &m : t.messages) {
        if (m.records.empty()) {
            p.insertedAfter[slot].push_back(&m);
            continue;
        }
        for (auto r : m.records)
            if (r < t.records.size())
                p.byRecord[r].push_back(&m);
        slot = std::size_t(m.records.back()) + 1;
    }
    return p;
}

bool anyEdited(const std::vector<const Message *> &msgs)
{
    return std::any_of(msgs.begin(), msgs.end(), [](const Message *m) { return m->edited; });
}

// A "$set" of "messages" a strategy took messages from: fewer messages of the record are left than
// its elements give (one each, and one more for a turn with inline tool results).
bool lostMessages(std::string_view raw, const std::vector<const Message *> &msgs)
{
    if (raw.find("\"messages\"") == std::string_view::npos)
        return false;
    const ojson o = ojson::parse(json::sanitizeUtf8(raw), nullptr, false);
    if (!o.is_object() || !o.contains("$set") || !o["$set"].is_object() || !o["$set"].contains("messages")
        || !o["$set"]["messages"].is_array())
        return false;
    std::size_t expected = 0;
    for (const auto &el : o["$set"]["messages"])
        expected += 1 + (el.is_object() && el.contains("toolCalls") ? 1 : 0);
    const auto left = std::size_t(std::count_if(msgs.begin(), msgs.end(), [](const Message *m) {
        return m->isTurn();
    }));
    return left < expected;
}

WriteResult rewriteJsonl(const Transcript &t, ByteSink &sink)
{
    WriteResult out;
    const Plan p = plan(t);
    std::set<std::string> ids;
    for (const auto &m : t.messages)
        ids.insert(m.id);
    auto emitInserted = [&](std::size_t slot) {
        for (const auto &o : encodeMessages(p.insertedAfter[slot], out.notes, ids)) {
            cl::json::dumpTo(o, sink);
            sink += '\n';
        }
    };
    emitInserted(0);
    for (std::size_t r = 0; r < t.records.size(); ++r) {
        const Record &rec = t.records[r];
        const std::string_view raw = t.recordBytes(rec);
        const auto &msgs = p.byRecord[r];
        if (msgs.empty() && rec.message >= 0) {
            // Its messages were removed by a strategy: the line goes too.
        } else if (!rec.parsed || (!anyEdited(msgs) && !(rec.type == "$set" && lostMessages(raw, msgs)))) {
            sink.append(raw);
        } else {
            const std::string eol = raw.size() >= 2 && raw.substr(raw.size() - 2) == "\r\n" ? "\r\n" : "\n";
            const std::string line = reencodeRecord(raw.substr(0, raw.size() - (raw.back() == '\n' ? eol.size() : 0)),
                                                    msgs, out);
            if (!line.empty())
                sink += line + eol;
        }
        emitInserted(r + 1);
    }
    return out;
}

WriteResult rewriteLegacy(const Transcript &t, const geminicli::LegacyLayout &layout, ByteSink &sink)
{
    WriteResult out;
    const std::string_view buf = *t.buffer;
    const Plan p = plan(t);
    std::set<std::string> ids;
    for (const auto &m : t.messages)
        ids.insert(m.id);
    std::vector<std::string> elements;
    auto addInserted = [&](std::size_t slot) {
        for (const auto &o : encodeMessages(p.insertedAfter[slot], out.notes, ids))
            elements.push_back(o.dump(2, ' ', false, ojson::error_handler_t::replace));
    };
    addInserted(0);
    for (std::size_t r = 0; r < t.records.size(); ++r) {
        const Record &rec = t.records[r];
        const auto &msgs = p.byRecord[r];
        if (msgs.empty() && rec.message >= 0) {
        } else if (!rec.parsed || !anyEdited(msgs)) {
            elements.emplace_back(t.recordBytes(rec));
        } else if (std::string e = reencodeRecord(t.recordBytes(rec), msgs, out); !e.empty()) {
            elements.push_back(std::move(e));
        }
        addInserted(r + 1);
    }
    const auto &el = layout.elements;
    std::string fallbackSep = ",\n";
    if (el.size() >= 2)
        fallbackSep = std::string(buf.substr(el[0].end, el[1].begin - el[0].end));
    const std::size_t prefixEnd = el.empty() ? layout.arrayBegin + 1 : el.front().begin;
    const std::size_t suffixBegin = el.empty() ? layout.arrayEnd - 1 : el.back().end;
    sink.append(buf.substr(0, prefixEnd));
    for (std::size_t i = 0; i < elements.size(); ++i) {
        if (i > 0)
            sink += i < el.size() ? std::string(buf.substr(el[i - 1].end, el[i].begin - el[i - 1].end))
                                  : fallbackSep;
        sink += elements[i];
    }
    sink.append(buf.substr(suffixBegin));
    return out;
}

// ---- conversion from another format ----

std::string uniqueId(std::string id, std::set<std::string> &ids)
{
    if (id.empty())
        id = "msg-" + std::to_string(ids.size() + 1);
    std::string candidate = id;
    for (int n = 2; ids.count(candidate); ++n)
        candidate = id + "-" + std::to_string(n);
    ids.insert(candidate);
    return candidate;
}

std::vector<ojson> encodeMessages(const std::vector<const Message *> &msgs, std::vector<std::string> &notes,
                                  std::set<std::string> &ids)
{
    std::vector<ojson> lines;
    std::unordered_map<std::string, std::pair<std::size_t, std::size_t>> callAt; // tool id -> (line, call)
    bool openGemini = false;                                                     // the last line is a gemini turn still taking parts
    std::string ts = formatTimestamp(0);
    std::size_t skipped = 0;
    auto userLine = [&](const Message &m) -> ojson & {
        lines.push_back(ojson{{"id", uniqueId(m.id, ids)}, {"timestamp", ts}, {"type", "user"}, {"content", ojson::array()}});
        openGemini = false;
        return lines.back();
    };
    for (const Message *mp : msgs) {
        const Message &m = *mp;
        if (m.timeMs != kNoTime)
            ts = formatTimestamp(m.timeMs);
        if (!m.isConversation() || m.role == Role::System) {
            ++skipped;
            continue;
        }
        if (m.role == Role::Assistant) {
            if (!openGemini) {
                lines.push_back(ojson{{"id", uniqueId(m.id, ids)}, {"timestamp", ts}, {"type", "gemini"}, {"content", ""}, {"thoughts", ojson::array()}});
                if (!m.model.empty())
                    lines.back()["model"] = m.model;
                openGemini = true;
            }
            ojson &line = lines.back();
            for (const auto &b : m.blocks) {
                if (b.type == BlockType::Text) {
                    std::string c = line["content"].get<std::string>();
                    line["content"] = c.empty() ? b.text : c + "\n" + b.text;
                } else if (b.type == BlockType::Thinking) {
                    line["thoughts"].push_back(ojson{{"subject", ""}, {"description", b.text}, {"timestamp", ts}});
                } else if (b.type == BlockType::ToolUse) {
                    const std::string id = b.toolId.empty() ? uniqueId("call", ids) : b.toolId;
                    ojson args = b.input.is_object() ? toOrdered(b.input) : ojson::object();
                    if (!b.input.is_object() && !b.input.is_null()) {
                        args["input"] = toOrdered(b.input);
                        notes.push_back("non-object tool input wrapped as {\"input\": ...}");
                    }
                    if (!line.contains("toolCalls"))
                        line["toolCalls"] = ojson::array();
                    callAt[id] = {lines.size() - 1, line["toolCalls"].size()};
                    line["toolCalls"].push_back(ojson{{"id", id}, {"name", b.toolName}, {"args", std::move(args)}, {"status", "success"}, {"timestamp", ts}});
                } else {
                    notes.push_back(std::string(blockTypeName(b.type)) + " block in an assistant turn dropped");
                }
            }
            if (m.usage) {
                const Usage &u = *m.usage;
                const std::int64_t in = u.inputTokens + u.cacheReadTokens + u.cacheCreationTokens;
                // clang-format off
                line["tokens"] = ojson{{"input", in}, {"output", u.outputTokens}, {"cached", u.cacheReadTokens},
                                       {"thoughts", u.reasoningTokens}, {"tool", 0},
                                       {"total", in + u.outputTokens + u.reasoningTokens}};
                // clang-format on
            }
            continue;
        }
        // User and tool messages: results go back onto their calls, the rest becomes a user line.
        ojson parts = ojson::array();
        for (const auto &b : m.blocks) {
            if (b.type == BlockType::ToolResult) {
                if (const auto it = callAt.find(b.toolId); it != callAt.end()) {
                    ojson &call = lines[it->second.first]["toolCalls"][it->second.second];
                    call["result"] = functionResponse(b, cl::json::str(call, "name"));
                    if (b.isError)
                        call["status"] = "error";
                    openGemini = false; // text after the results is a new turn
                } else {
                    parts.push_back(functionResponse(b, b.toolName)[0]);
                }
            } else if (b.type == BlockType::Text) {
                parts.push_back(ojson{{"text", b.text}});
            } else {
                notes.push_back(std::string(blockTypeName(b.type)) + " block in a user turn dropped");
            }
        }
        if (!parts.empty())
            userLine(m)["content"] = std::move(parts);
    }
    if (skipped)
        notes.push_back(std::to_string(skipped) + " system/event/metadata messages not written");
    return lines;
}

std::string headerString(const Transcript &t, std::initializer_list<const char *> keys)
{
    for (const char *k : keys)
        if (std::string v = json::str(t.header, k); !v.empty())
            return v;
    return {};
}

WriteResult convert(const Transcript &t, ByteSink &sink)
{
    WriteResult out;
    std::vector<const Message *> msgs;
    std::int64_t first = kNoTime, last = kNoTime;
    for (const auto &m : t.messages) {
        msgs.push_back(&m);
        if (m.timeMs != kNoTime) {
            first = first == kNoTime ? m.timeMs : first;
            last = m.timeMs;
        }
    }
    if (first == kNoTime)
        first = last = std::chrono::duration_cast<std::chrono::milliseconds>(
                           std::chrono::system_clock::now().time_since_epoch())
                           .count();
    std::string session = headerString(t, {"sessionId", "session_id", "id"});
    // Stable FNV-based hashes so converting the same input twice gives the same file.
    std::uint64_t h = 1469598103934665603ull;
    for (unsigned char c : t.buffer ? std::string_view(*t.buffer) : std::string_view(t.path))
        h = (h ^ c) * 1099511628211ull;
    char buf[80];
    if (session.empty()) {
        std::snprintf(buf, sizeof buf, "%016llx-contextlens", (unsigned long long)h);
        session = buf;
    }
    std::string project = headerString(t, {"projectHash"});
    if (project.empty()) {
        std::snprintf(buf, sizeof buf, "%016llx%016llx%016llx%016llx", (unsigned long long)h,
                      (unsigned long long)(h * 31), (unsigned long long)(h * 131), (unsigned long long)(h * 1031));
        project = buf;
    }
    sink += dumpLine(ojson{{"sessionId", session}, {"projectHash", project}, {"startTime", formatTimestamp(first)}, {"lastUpdated", formatTimestamp(last)}, {"kind", "main"}})
            + '\n';
    std::set<std::string> ids;
    for (const auto &o : encodeMessages(msgs, out.notes, ids)) {
        cl::json::dumpTo(o, sink);
        sink += '\n';
    }
    return out;
}

} // namespace

WriteResult writeGeminiCli(const Transcript &t, ByteSink &out)
{
    WriteResult r;
    if (t.format != Format::GeminiCli || !t.buffer) {
        r = convert(t, out);
    } else if (const auto layout = geminicli::legacyLayout(*t.buffer);
               layout.ok && layout.elements.size() == t.records.size()
               && (t.records.empty() || t.records.front().offset == layout.elements.front().begin)) {
        r = rewriteLegacy(t, layout, out);
    } else if (!t.records.empty() && t.records.front().offset == 0 && t.records.back().offset + t.records.back().length == t.buffer->size()) {
        r = rewriteJsonl(t, out);
    } else {
        // A /chat checkpoint (Content[]): rebuild the whole array in the Gemini API encoding.
        r = convert(t, out);
        r.notes.push_back("edited /chat checkpoint written as a recorded session");
    }
    std::vector<std::string> unique;
    for (auto &n : r.notes)
        if (std::find(unique.begin(), unique.end(), n) == unique.end())
            unique.push_back(std::move(n));
    r.notes = std::move(unique);
    return r;
}

} // namespace cl::formats
