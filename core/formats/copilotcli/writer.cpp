// SPDX-License-Identifier: MIT
// GitHub Copilot CLI writer. Same format: every untouched line is copied byte for byte, an edited
// message is re-encoded inside its own event (envelope and unknown fields kept), the lines of
// removed messages are dropped and inserted messages become new events chained to the line before
// them; an inserted summary becomes a compaction (session.compaction_start and _complete with the
// summary), which is what Copilot CLI resumes from. Other formats: a fresh events.jsonl.
#include "core/formats/copilotcli/internal.h"
#include "core/formats/formats.h"

#include <algorithm>
#include <chrono>
#include <unordered_set>

namespace cl::formats {

namespace copilotcli {

namespace {

std::string joined(const Message &m, BlockType type)
{
    std::string out;
    for (const auto &b : m.blocks)
        if (b.type == type)
            out += (out.empty() ? "" : "\n\n") + b.text;
    return out;
}

// The data of an edited message's event, or false when the event cannot carry the edit.
bool reencode(ojson &data, const std::string &type, const Message &m, std::vector<std::string> &notes)
{
    if (type == "user.message") {
        const std::string text = joinedText(m);
        // transformedContent is what the model got; content is the request as typed, which the
        // sent text wraps (a date line before it): the same wrapping is taken off the new text.
        const std::string sent = json::str(data, "transformedContent");
        const std::string typed = json::str(data, "content");
        std::string wrap;
        if (!typed.empty() && sent.size() > typed.size() && sent.compare(sent.size() - typed.size(), typed.size(), typed) == 0)
            wrap = sent.substr(0, sent.size() - typed.size());
        data["transformedContent"] = text;
        data["content"] = !wrap.empty() && text.rfind(wrap, 0) == 0 ? text.substr(wrap.size()) : text;
        return true;
    }
    if (type == "system.message") {
        data["content"] = joinedText(m);
        return true;
    }
    if (type == "assistant.message") {
        data["content"] = joinedText(m);
        const std::string reasoning = joined(m, BlockType::Thinking);
        if (reasoning.empty())
            data.erase("reasoningText");
        else
            data["reasoningText"] = reasoning;
        const ojson *before = data.contains("toolRequests") ? &data["toolRequests"] : nullptr;
        ojson requests = toolRequests(m, before, notes);
        data["toolRequests"] = std::move(requests);
        return true;
    }
    if (type == "tool.execution_complete") {
        const auto it = std::find_if(m.blocks.begin(), m.blocks.end(), [](const Block &b) { return b.type == BlockType::ToolResult; });
        if (it == m.blocks.end())
            return false;
        data["success"] = !it->isError;
        if (!data.contains("result") || !data["result"].is_object())
            data["result"] = ojson::object();
        data["result"]["content"] = it->text;
        data["result"].erase("detailedContent"); // the display copy of the old result
        return true;
    }
    if (type == "session.compaction_complete" && m.kind == MessageKind::CompactSummary) {
        data["summaryContent"] = joinedText(m);
        return true;
    }
    return false;
}

// A summary Copilot CLI can resume from as a compaction: no turn before it is still sent (history
// and the system prompt aside, which the agent regenerates). After kept turns it would drop them, so
// there it is written as a user message.
bool startsContext(const Transcript &t, std::size_t index)
{
    for (std::size_t k = 0; k < index; ++k) {
        const Message &m = t.messages[k];
        if (m.isConversation() && m.role != Role::System && !m.sidechain)
            return false;
    }
    return true;
}

// Same-format rewrite: the records in file order, inserted messages before the next kept one.
WriteResult rewrite(const Transcript &t, ByteSink &sink)
{
    WriteResult out;
    EventWriter writer(t, sink, out.notes);
    std::vector<std::vector<std::size_t>> byRecord(t.records.size());
    std::vector<std::vector<std::size_t>> insertedBefore(t.records.size() + 1); // last slot: at the end
    std::vector<std::size_t> pending;
    for (std::size_t i = 0; i < t.messages.size(); ++i) {
        const Message &m = t.messages[i];
        if (m.records.empty()) {
            pending.push_back(i);
            continue;
        }
        for (const auto r : m.records)
            if (r < t.records.size())
                byRecord[r].push_back(i);
        const std::size_t slot = std::min<std::size_t>(m.records.front(), t.records.size());
        insertedBefore[slot].insert(insertedBefore[slot].end(), pending.begin(), pending.end());
        pending.clear();
    }
    insertedBefore.back().insert(insertedBefore.back().end(), pending.begin(), pending.end());

    auto emitInserted = [&](const std::vector<std::size_t> &list) {
        for (std::size_t k = 0; k < list.size(); ++k) {
            const Message &m = t.messages[list[k]];
            writer.setTime(m.timeMs);
            if (m.kind == MessageKind::CompactSummary && startsContext(t, list[k])) {
                const Message *boundary = k > 0 && t.messages[list[k - 1]].kind == MessageKind::CompactBoundary ? &t.messages[list[k - 1]] : nullptr;
                writer.compaction(joinedText(m), boundary);
            } else if (m.kind == MessageKind::CompactSummary) {
                out.notes.push_back("a summary after kept turns written as a user message (a compaction would drop them on resume)");
                writer.message(m, false);
            } else if (m.kind == MessageKind::CompactBoundary) {
                if (k + 1 >= list.size() || t.messages[list[k + 1]].kind != MessageKind::CompactSummary)
                    out.notes.push_back("a compaction boundary without a summary not written (Copilot CLI records a compaction with its summary)");
            } else if (m.isTurn()) {
                writer.message(m, false);
            } else {
                out.notes.push_back("inserted " + std::string(messageKindName(m.kind)) + " message not written");
            }
        }
    };

    // The calls of removed responses: their tool.execution_start and usage record lines go with them.
    std::unordered_set<std::string> removedCalls, removedResponses;
    for (std::size_t r = 0; r < t.records.size(); ++r) {
        const Record &rec = t.records[r];
        if (!byRecord[r].empty() || rec.message < 0 || rec.type != "assistant.message")
            continue;
        const ojson line = ojson::parse(json::sanitizeUtf8(t.recordBytes(rec)), nullptr, false);
        const ojson *data = line.is_object() && line.contains("data") && line["data"].is_object() ? &line["data"] : nullptr;
        if (!data)
            continue;
        if (const std::string call = json::str(*data, "apiCallId"); !call.empty())
            removedResponses.insert(call);
        if (data->contains("toolRequests") && (*data)["toolRequests"].is_array())
            for (const auto &req : (*data)["toolRequests"])
                removedCalls.insert(json::str(req, "toolCallId"));
    }
    auto belongsToRemoved = [&](const Record &rec, const Message &m) {
        if (m.edited || !m.meta.is_object())
            return false;
        if (rec.type == "tool.execution_start")
            return removedCalls.count(json::str(m.meta, "toolCallId")) > 0;
        if (rec.type == "session.usage_record")
            return removedResponses.count(json::str(m.meta, "apiCallId")) > 0;
        return false;
    };

    for (std::size_t r = 0; r < t.records.size(); ++r) {
        emitInserted(insertedBefore[r]);
        const Record &rec = t.records[r];
        const std::string_view raw = t.recordBytes(rec);
        const auto &msgs = byRecord[r];
        if (msgs.empty() && rec.message >= 0)
            continue; // its message was removed: the line goes too
        if (msgs.size() == 1 && belongsToRemoved(rec, t.messages[msgs.front()]))
            continue;
        const Message *first = msgs.empty() ? nullptr : &t.messages[msgs.front()];
        const std::string id = first ? first->id : std::string();
        const std::string ts = first ? first->timestamp : std::string();
        const auto edited = std::find_if(msgs.begin(), msgs.end(), [&](std::size_t i) { return t.messages[i].edited; });
        if (edited == msgs.end() || !rec.parsed) {
            writer.original(raw, id, ts);
            continue;
        }
        const Message &m = t.messages[*edited];
        ojson line = ojson::parse(json::sanitizeUtf8(raw), nullptr, false);
        if (!line.is_object() || !line.contains("data") || !line["data"].is_object()
            || !reencode(line["data"], rec.type, m, out.notes)) {
            out.notes.push_back("edited " + m.type + " line kept as it was");
            writer.original(raw, id, ts);
            continue;
        }
        const bool crlf = raw.size() >= 2 && raw.substr(raw.size() - 2) == "\r\n";
        ByteSink piece;
        json::dumpTo(line, piece);
        piece += crlf ? "\r\n" : "\n";
        writer.original(piece.take(), id, ts);
    }
    emitInserted(insertedBefore.back());
    return out;
}

std::string headerString(const Transcript &t, std::initializer_list<const char *> keys)
{
    for (const char *k : keys)
        if (std::string v = json::str(t.header, k); !v.empty())
            return v;
    return {};
}

// A fresh events.jsonl: session.start, then per message the events Copilot CLI records for it
// (turn events, user.message, system.message, assistant.message with its toolRequests,
// tool.execution_start and _complete, usage records); a compaction as Copilot CLI writes one.
WriteResult convert(const Transcript &t, ByteSink &sink)
{
    WriteResult out;
    EventWriter writer(t, sink, out.notes);
    std::int64_t firstMs = kNoTime;
    std::string model = headerString(t, {"model"});
    for (const auto &m : t.messages) {
        if (firstMs == kNoTime && m.timeMs != kNoTime)
            firstMs = m.timeMs;
        if (model.empty() && !m.model.empty() && m.role == Role::Assistant)
            model = m.model;
    }
    if (firstMs == kNoTime)
        firstMs = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
    writer.setTime(firstMs);
    // Copilot CLI finds a session by its folder name, which must be a UUID: a source's own id is
    // used only when it is one.
    std::string session = headerString(t, {"sessionId", "session_id", "id"});
    if (session.size() != 36 || std::count(session.begin(), session.end(), '-') != 4)
        session = EventIds(t).next();
    ojson start{{"sessionId", session}, {"version", 1}, {"producer", "copilot-agent"}, {"copilotVersion", kCopilotVersion}, {"startTime", isoTime(firstMs)}};
    if (!model.empty())
        start["selectedModel"] = model;
    start["context"] = ojson{{"cwd", headerString(t, {"cwd"})}};
    writer.event("session.start", std::move(start));
    std::size_t sidechain = 0;
    std::vector<char> written(t.messages.size(), 0); // summaries already written with their boundary
    for (std::size_t i = 0; i < t.messages.size(); ++i) {
        const Message &m = t.messages[i];
        if (m.sidechain) {
            ++sidechain;
            continue;
        }
        writer.setTime(m.timeMs);
        if (m.kind == MessageKind::CompactBoundary) {
            // A compaction: everything before it is history. Its summary is the summary message that
            // follows (after the user requests an agent keeps with it, Codex's replacement history),
            // else the boundary's own text (Codex's compacted message).
            std::size_t k = i + 1;
            while (k < t.messages.size() && t.messages[k].kind != MessageKind::CompactSummary
                   && t.messages[k].kind != MessageKind::CompactBoundary
                   && (!t.messages[k].isTurn() || t.messages[k].role == Role::User))
                ++k;
            if (k < t.messages.size() && t.messages[k].kind == MessageKind::CompactSummary && !t.messages[k].sidechain) {
                writer.compaction(joinedText(t.messages[k]), &m);
                written[k] = 1;
            } else {
                const std::string text = m.plainText();
                writer.compaction(text.empty() ? std::string("(the earlier conversation was compacted)") : text, &m);
            }
            continue;
        }
        if (m.kind == MessageKind::CompactSummary && !written[i]) {
            if (startsContext(t, i))
                writer.compaction(joinedText(m), nullptr);
            else
                writer.message(m, true);
            continue;
        }
        if (m.kind == MessageKind::CompactSummary)
            continue;
        if (!m.isTurn()) {
            ++writer.skipped;
            continue;
        }
        writer.message(m, true);
    }
    writer.closeTurn();
    if (writer.skipped)
        out.notes.push_back(std::to_string(writer.skipped) + " non-conversation messages (events, metadata) not written");
    if (sidechain)
        out.notes.push_back(std::to_string(sidechain) + " sidechain (subagent) messages not written");
    return out;
}

} // namespace
} // namespace copilotcli

WriteResult writeCopilotCli(const Transcript &t, ByteSink &out)
{
    WriteResult r = t.format == Format::CopilotCli && t.buffer ? copilotcli::rewrite(t, out) : copilotcli::convert(t, out);
    std::vector<std::string> unique;
    for (auto &n : r.notes)
        if (std::find(unique.begin(), unique.end(), n) == unique.end())
            unique.push_back(std::move(n));
    r.notes = std::move(unique);
    return r;
}

} // namespace cl::formats
