// SPDX-License-Identifier: MIT
// A Claude Code session written the way Claude Code writes a compaction (see core/export.h).
#include "core/formats/claudecode_internal.h"
#include "core/formats/formats.h"
#include "core/tokens.h"

#include <chrono>

namespace cl::formats {

using nlohmann::ordered_json;

namespace {

std::string_view chomp(std::string_view s)
{
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r'))
        s.remove_suffix(1);
    return s;
}

ordered_json parseLine(std::string_view text)
{
    std::string clean;
    if (!cl::json::isValidUtf8(text)) {
        clean = cl::json::sanitizeUtf8(text);
        text = clean;
    }
    if (cl::json::nestingDepth(text) > cl::json::kMaxDepth)
        return ordered_json(ordered_json::value_t::discarded);
    return ordered_json::parse(text.begin(), text.end(), nullptr, false);
}

std::string dumpLine(const ordered_json &j)
{
    return j.dump(-1, ' ', false, ordered_json::error_handler_t::replace) + "\n";
}

} // namespace

// postTokens < 0: the estimate of the context this writes (what export.cpp passes).
WriteResult writeClaudeCodeCompaction(const Transcript &t, const std::string &trigger, std::int64_t preTokens,
                                      std::int64_t postTokens, ByteSink &sink)
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
        const ordered_json line = parseLine(chomp(t.recordBytes(rec)));
        // Fields of the wrong type read as absent, as the loader reads them.
        if (line.is_object() && !cl::json::str(line, "uuid").empty() && !cl::json::boolean(line, "isSidechain")) {
            leaf = cl::json::str(line, "uuid");
            lastTimestamp = cl::json::str(line, "timestamp");
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
    // The boundary's uuid heads the new chain; its line is written once the context's size is known.
    const std::string boundaryUuid = newUuid();
    std::string parent = boundaryUuid;
    std::string context;
    std::int64_t contextTokens = 0;
    std::size_t written = 0;
    for (std::size_t i = start; i < t.messages.size(); ++i) {
        const Message &m = t.messages[i];
        if (!m.isConversation() || m.sidechain || m.role == Role::System)
            continue;
        const std::string ts = !m.timestamp.empty() ? m.timestamp : lastTimestamp;
        bool copied = false;
        if (!m.edited && !m.records.empty()) {
            // Untouched: the original line(s) with a new place in the chain.
            bool ok = true;
            std::string lines;
            std::string p = parent;
            for (const std::uint32_t r : m.records) {
                ordered_json line = parseLine(chomp(t.recordBytes(t.records[r])));
                if (!line.is_object()) {
                    ok = false;
                    break;
                }
                const std::string uuid = newUuid();
                line["parentUuid"] = p;
                line["uuid"] = uuid;
                line.erase("logicalParentUuid");
                lines += dumpLine(line);
                p = uuid;
            }
            if (ok) {
                context += lines;
                parent = p;
                copied = true;
            }
        }
        if (!copied) {
            const std::string uuid = newUuid();
            const ordered_json line = buildLine(m, env, uuid, parent, ts, out.notes);
            if (line.empty())
                continue;
            context += dumpLine(line);
            parent = uuid;
        }
        contextTokens += tokens::estimateMessage(m);
        ++written;
    }

    Message boundary;
    boundary.role = Role::System;
    boundary.kind = MessageKind::CompactBoundary;
    boundary.type = "system/compact_boundary";
    boundary.meta = {{"trigger", trigger}, {"preTokens", preTokens},
                     {"postTokens", postTokens >= 0 ? postTokens : contextTokens}};
    Block b;
    b.text = "Conversation compacted";
    boundary.blocks.push_back(b);
    sink += dumpLine(buildLine(boundary, env, boundaryUuid, leaf, lastTimestamp, out.notes));
    sink += context;
    out.notes.push_back("appended a compaction: boundary + " + std::to_string(written)
                        + " message(s) as the new context; the earlier lines are unchanged");
    return out;
}

} // namespace cl::formats
