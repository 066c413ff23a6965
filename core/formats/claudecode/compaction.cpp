// SPDX-License-Identifier: MIT
// A Claude Code session written the way Claude Code writes a compaction (see core/io/export.h).
#include "core/formats/claudecode/internal.h"
#include "core/util/uuid.h"
#include "core/formats/formats.h"
#include "core/tokens/estimator.h"

#include <algorithm>
#include <chrono>
#include <unordered_map>

namespace cl::formats {

using nlohmann::ordered_json;

namespace {

// A line that can take a new place in the chain by replacing its parentUuid and uuid values in its
// bytes: an object with both keys at its top level and no logicalParentUuid (a boundary's, which
// the new chain must not carry).
bool relinkable(std::string_view line)
{
    using cl::json::topLevelValue;
    return topLevelValue(line, "parentUuid").end != 0 && topLevelValue(line, "uuid").end != 0
           && topLevelValue(line, "logicalParentUuid").end == 0;
}

// Where the line's message.id value ("msg_…" with its quotes) is, as [begin, end); {0, 0} if not
// found. Claude Code writes compact JSON; the message object is searched, not the whole line.
std::pair<std::size_t, std::size_t> messageIdSpan(std::string_view line, const std::string &id)
{
    if (id.empty())
        return {0, 0};
    const auto msg = cl::json::topLevelValue(line, "message");
    if (msg.end == 0)
        return {0, 0};
    const std::string needle = "\"id\":" + cl::json::dump(nlohmann::json(id));
    const std::size_t at = line.substr(msg.begin, msg.end - msg.begin).find(needle);
    if (at == std::string_view::npos)
        return {0, 0};
    const std::size_t begin = msg.begin + at + 5;
    return {begin, begin + needle.size() - 5};
}

using Renames = std::vector<std::pair<std::string, std::string>>; // quoted old value -> quoted new value

// The usage a line of the new context carries: none. A copied response's recorded usage measured
// the context it was sent with, the one this compaction replaces; left in place it would read as
// the new context's size, to ContextLens reopening the export and to Claude Code resuming it (which
// counts its context from the last response's usage and would compact again at once). Zero is what
// both take for "not measured"; the original line before the boundary keeps its usage.
constexpr std::string_view kUnmeasured =
    R"({"input_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":0})";

// The line with its parentUuid, uuid, message.id (when given), message.usage and tool ids replaced, written in
// pieces: no JSON tree and no copy of a line that may hold a 50 MB tool result; every other byte
// stays as it was.
void writeRelinked(std::string_view line, const std::string &parent, const std::string &uuid, const std::string &oldId,
                   const std::string &newId, const Renames &toolIds, ByteSink &out)
{
    const auto p = cl::json::topLevelValue(line, "parentUuid");
    const auto u = cl::json::topLevelValue(line, "uuid");
    struct Splice {
        std::size_t begin, end;
        std::string value;
    };
    std::vector<Splice> splices{{p.begin, p.end, cl::json::dump(nlohmann::json(parent))},
                                {u.begin, u.end, cl::json::dump(nlohmann::json(uuid))}};
    if (const auto [b, e] = messageIdSpan(line, oldId); e > 0 && !newId.empty())
        splices.push_back({b, e, cl::json::dump(nlohmann::json(newId))});
    const auto msg = cl::json::topLevelValue(line, "message");
    if (msg.end > 0)
        if (const auto usage = cl::json::topLevelValue(line.substr(msg.begin, msg.end - msg.begin), "usage"); usage.end > 0)
            splices.push_back({msg.begin + usage.begin, msg.begin + usage.end, std::string(kUnmeasured)});
    for (const auto &[from, to] : toolIds)
        for (std::size_t at = line.find(from, msg.begin); msg.end > 0 && at != std::string_view::npos && at + from.size() <= msg.end;
             at = line.find(from, at + from.size()))
            splices.push_back({at, at + from.size(), to});
    std::sort(splices.begin(), splices.end(), [](const Splice &a, const Splice &b) { return a.begin < b.begin; });
    std::size_t at = 0;
    for (const Splice &s : splices) {
        if (s.begin < at)
            continue; // overlaps the one before (the same bytes found twice): replaced once
        out += line.substr(at, s.begin - at);
        out += s.value;
        at = s.end;
    }
    out += line.substr(at);
    out += '\n';
}

// Tool ids in the new context get a suffix, for the same reason: Claude Code looks a result up by
// its tool_use_id across the file and would find the old line's (an error result's original text
// instead of the strategy's placeholder).
std::string randomHex(std::size_t digits)
{
    std::string hex = util::randomUuid();
    hex.erase(std::remove(hex.begin(), hex.end(), '-'), hex.end());
    return hex.substr(0, digits);
}

std::string freshToolId(const std::string &id)
{
    return id + "_cl" + randomHex(6);
}

// A fresh API message id: Claude Code joins the lines of one response by message.id across the
// whole file, so a copy in the new context that kept its id would take the old lines' blocks along.
std::string freshMessageId()
{
    return "msg_cl" + randomHex(22);
}

} // namespace

// postTokens < 0: the estimate of the context this writes (what export.cpp passes).
WriteResult writeClaudeCodeCompaction(const Transcript &t, const std::string &trigger, std::int64_t preTokens,
                                      std::int64_t postTokens, ByteSink &sink, const nlohmann::json &origin)
{
    using namespace claudecode;
    WriteResult out;
    const std::string_view original(*t.buffer);
    sink += original.substr(0, t.records.empty() ? 0 : t.records.back().offset + t.records.back().length);
    if (!sink.empty() && sink.back() != '\n')
        sink += '\n';

    // The leaf the old chain ends at: the last main-chain conversation line. Off-branch lines (a
    // rewind's abandoned branch: no message decoded from them) and progress / metadata lines would
    // pull another chain into the resumed context.
    std::string leaf;
    std::string lastTimestamp;
    for (std::size_t r = t.records.size(); r-- > 0 && leaf.empty();) {
        const Record &rec = t.records[r];
        if (rec.message < 0 || !(rec.type == "user" || rec.type == "assistant" || rec.type == "system" || rec.type == "attachment"))
            continue;
        // Read from the line's bytes (it may hold a 50 MB tool result); fields of the wrong type read
        // as absent, as the loader reads them.
        const std::string_view line = withoutTerminator(t.recordBytes(rec));
        if (const std::string uuid = cl::json::topLevelString(line, "uuid"); !uuid.empty() && !cl::json::topLevelTrue(line, "isSidechain")) {
            leaf = uuid;
            lastTimestamp = cl::json::topLevelString(line, "timestamp");
        }
    }
    if (lastTimestamp.empty())
        lastTimestamp = formatTimestamp(std::chrono::duration_cast<std::chrono::milliseconds>(
                                            std::chrono::system_clock::now().time_since_epoch())
                                            .count());

    // The live context starts after the last boundary that came from the file, or earlier, at the
    // first message a strategy inserted: strategies see the whole conversation, so a summary of
    // history from before an earlier compaction sits in front of that boundary and is the new
    // context's head (without this, compacting a session that was compacted before wrote an empty
    // context).
    std::size_t start = 0;
    for (std::size_t i = 0; i < t.messages.size(); ++i)
        if (t.messages[i].kind == MessageKind::CompactBoundary && !t.messages[i].records.empty())
            start = i + 1;
    for (std::size_t i = 0; i < start; ++i)
        if (t.messages[i].records.empty() && t.messages[i].isConversation() && !t.messages[i].sidechain) {
            start = i;
            break;
        }

    const Envelope env = envelopeFrom(t);
    auto inContext = [&](const Message &m) { return m.isConversation() && !m.sidechain && m.role != Role::System; };
    // The boundary line comes first and carries the new context's size, so that is counted before
    // anything of the context is written (the context is streamed, never held).
    std::int64_t contextTokens = 0;
    std::size_t written = 0;
    for (std::size_t i = start; i < t.messages.size(); ++i) {
        const Message &m = t.messages[i];
        if (!inContext(m) || !((!m.edited && !m.records.empty()) || buildsLine(m)))
            continue;
        contextTokens += tokens::estimateMessage(m);
        ++written;
    }
    Message boundary;
    boundary.role = Role::System;
    boundary.kind = MessageKind::CompactBoundary;
    boundary.type = "system/compact_boundary";
    boundary.meta = {{"trigger", trigger}, {"preTokens", preTokens}, {"postTokens", postTokens >= 0 ? postTokens : contextTokens}};
    // The mark of a compaction ContextLens wrote: `info` and `watch` tell when the agent left it behind.
    boundary.meta["contextlens"] = origin.is_object() ? origin : nlohmann::json::object();
    Block b;
    b.text = "Conversation compacted";
    boundary.blocks.push_back(b);
    // The boundary's uuid heads the new chain.
    const std::string boundaryUuid = util::randomUuid();
    cl::json::dumpTo(buildLine(boundary, env, boundaryUuid, leaf, lastTimestamp, out.notes), sink);
    sink += '\n';

    std::string parent = boundaryUuid;
    std::unordered_map<std::string, std::string> freshIds;      // message.id -> its id in the new context
    std::unordered_map<std::string, std::string> freshToolIdOf; // tool id -> its id in the new context
    for (std::size_t i = start; i < t.messages.size(); ++i) {
        const Message &m = t.messages[i];
        if (!inContext(m))
            continue;
        std::string newId;
        if (!m.apiMessageId.empty()) {
            auto [it, added] = freshIds.try_emplace(m.apiMessageId);
            if (added)
                it->second = freshMessageId();
            newId = it->second;
        }
        Renames renames;
        for (const Block &b : m.blocks)
            if ((b.type == BlockType::ToolUse || b.type == BlockType::ToolResult) && !b.toolId.empty()) {
                auto [it, added] = freshToolIdOf.try_emplace(b.toolId);
                if (added)
                    it->second = freshToolId(b.toolId);
                // Once per id: a server tool's call and result share it within one message (a web
                // search), and a second rename of the same bytes wrote the line twice over.
                std::string from = cl::json::dump(nlohmann::json(b.toolId));
                if (std::none_of(renames.begin(), renames.end(), [&](const auto &r) { return r.first == from; }))
                    renames.emplace_back(std::move(from), cl::json::dump(nlohmann::json(it->second)));
            }
        const std::string ts = !m.timestamp.empty() ? m.timestamp : lastTimestamp;
        bool copied = false;
        if (!m.edited && !m.records.empty()) {
            // Untouched: the original line(s) with a new place in the chain. Checked first, written after.
            std::vector<std::string_view> lines;
            for (const std::uint32_t r : m.records)
                lines.push_back(withoutTerminator(t.recordBytes(t.records[r])));
            copied = std::all_of(lines.begin(), lines.end(), [&](std::string_view l) {
                return relinkable(l) && (newId.empty() || messageIdSpan(l, m.apiMessageId).second > 0);
            });
            if (copied)
                for (const std::string_view l : lines) {
                    const std::string uuid = util::randomUuid();
                    writeRelinked(l, parent, uuid, m.apiMessageId, newId, renames, sink);
                    parent = uuid;
                }
        }
        if (!copied) {
            const std::string uuid = util::randomUuid();
            ordered_json line = buildLine(m, env, uuid, parent, ts, out.notes);
            if (line.empty())
                continue;
            if (!newId.empty() && line.contains("message") && line["message"].contains("id"))
                line["message"]["id"] = newId;
            if (line.contains("message") && line["message"].contains("usage"))
                line["message"]["usage"] = ordered_json::parse(kUnmeasured);
            if (line.contains("message") && line["message"].contains("content") && line["message"]["content"].is_array())
                for (auto &part : line["message"]["content"])
                    for (const char *key : {"id", "tool_use_id"})
                        if (part.is_object() && part.contains(key) && part[key].is_string())
                            if (const auto it = freshToolIdOf.find(part[key].get<std::string>()); it != freshToolIdOf.end())
                                part[key] = it->second;
            cl::json::dumpTo(line, sink);
            sink += '\n';
            parent = uuid;
        }
    }
    out.notes.push_back("appended a compaction: boundary + " + std::to_string(written)
                        + " message(s) as the new context; the earlier lines are unchanged");
    return out;
}

} // namespace cl::formats
