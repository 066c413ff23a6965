// SPDX-License-Identifier: MIT
// A Claude Code session written the way Claude Code writes a compaction (see core/io/export.h).
#include "core/formats/claudecode/internal.h"
#include "core/formats/formats.h"
#include "core/tokens/estimator.h"

#include <algorithm>
#include <chrono>

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

// The line with its parentUuid and uuid replaced, written in pieces: no JSON tree and no copy of a
// line that may hold a 50 MB tool result; every other byte stays as it was.
void writeRelinked(std::string_view line, const std::string &parent, const std::string &uuid, ByteSink &out)
{
    auto p = cl::json::topLevelValue(line, "parentUuid");
    auto u = cl::json::topLevelValue(line, "uuid");
    std::string pv = cl::json::dump(nlohmann::json(parent)), uv = cl::json::dump(nlohmann::json(uuid));
    if (u.begin < p.begin) {
        std::swap(p, u);
        std::swap(pv, uv);
    }
    out += line.substr(0, p.begin);
    out += pv;
    out += line.substr(p.end, u.begin - p.end);
    out += uv;
    out += line.substr(u.end);
    out += '\n';
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
    Block b;
    b.text = "Conversation compacted";
    boundary.blocks.push_back(b);
    // The boundary's uuid heads the new chain.
    const std::string boundaryUuid = newUuid();
    cl::json::dumpTo(buildLine(boundary, env, boundaryUuid, leaf, lastTimestamp, out.notes), sink);
    sink += '\n';

    std::string parent = boundaryUuid;
    for (std::size_t i = start; i < t.messages.size(); ++i) {
        const Message &m = t.messages[i];
        if (!inContext(m))
            continue;
        const std::string ts = !m.timestamp.empty() ? m.timestamp : lastTimestamp;
        bool copied = false;
        if (!m.edited && !m.records.empty()) {
            // Untouched: the original line(s) with a new place in the chain. Checked first, written after.
            std::vector<std::string_view> lines;
            for (const std::uint32_t r : m.records)
                lines.push_back(withoutTerminator(t.recordBytes(t.records[r])));
            copied = std::all_of(lines.begin(), lines.end(), [](std::string_view l) { return relinkable(l); });
            if (copied)
                for (const std::string_view l : lines) {
                    const std::string uuid = newUuid();
                    writeRelinked(l, parent, uuid, sink);
                    parent = uuid;
                }
        }
        if (!copied) {
            const std::string uuid = newUuid();
            const ordered_json line = buildLine(m, env, uuid, parent, ts, out.notes);
            if (line.empty())
                continue;
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
