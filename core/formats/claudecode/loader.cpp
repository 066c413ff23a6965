// SPDX-License-Identifier: MIT
// Claude Code session JSONL loader: parallel line decoding, then one serial assembly pass.
#include "core/formats/claudecode/internal.h"
#include "core/util/splitlines.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <unordered_map>
#include <unordered_set>

namespace cl::formats {

namespace cc = claudecode;

namespace {

constexpr std::size_t kCheckEvery = 2048;

MessageKind kindFor(const cc::LineInfo &l)
{
    switch (l.kind) {
    case cc::LineKind::User: return l.compactSummary ? MessageKind::CompactSummary : MessageKind::Conversation;
    case cc::LineKind::Assistant: return MessageKind::Conversation;
    case cc::LineKind::System:
        if (l.subtype == "compact_boundary")
            return MessageKind::CompactBoundary;
        if (l.subtype == "microcompact_boundary")
            return MessageKind::MicrocompactBoundary;
        return MessageKind::Event;
    case cc::LineKind::Attachment: return MessageKind::Event;
    default: return MessageKind::Meta;
    }
}

Role roleFor(const cc::LineInfo &l)
{
    switch (l.kind) {
    case cc::LineKind::User: return Role::User;
    case cc::LineKind::Assistant: return Role::Assistant;
    case cc::LineKind::System:
    case cc::LineKind::Attachment: return Role::System;
    default: return Role::Unknown;
    }
}

std::string typeFor(const cc::LineInfo &l)
{
    if ((l.kind == cc::LineKind::System || l.kind == cc::LineKind::Attachment) && !l.subtype.empty())
        return l.type + "/" + l.subtype;
    return l.type;
}

// Adds a grouped line's blocks, skipping ones an earlier snapshot line of the response already had.
void mergeBlocks(Message &m, std::vector<Block> &&blocks)
{
    for (auto &b : blocks) {
        const bool dup = std::any_of(m.blocks.begin(), m.blocks.end(), [&b](const Block &old) {
            if (b.type == BlockType::ToolUse && old.type == BlockType::ToolUse && !b.toolId.empty())
                return old.toolId == b.toolId;
            return cc::sameBlock(old, b);
        });
        if (!dup)
            m.blocks.push_back(std::move(b));
    }
}

void fillHeader(Transcript &t, const std::vector<cc::LineInfo> &lines)
{
    if (!t.header.is_object())
        t.header = nlohmann::json::object();
    for (std::size_t i = 0; i < lines.size(); ++i) {
        if (!cc::isConversationKind(lines[i].kind))
            continue;
        // A line decodeLine read (over 64 MB, or a shape the fast path leaves alone) kept its fields.
        if (lines[i].header.is_object()) {
            for (const auto &[k, v] : lines[i].header.items())
                t.header[k] = v;
            break;
        }
        // Else re-read this one line: cheaper than carrying four strings for every line.
        const Record &r = t.records[i];
        cc::LineDecoder decoder;
        if (decoder.headerFields(t.recordBytes(r), t.buffer->size() - (std::size_t(r.offset) + r.length),
                                 cc::kHeaderKeys, t.header))
            break;
    }
    for (const auto &l : lines) {
        if (l.type == "custom-title" || l.type == "ai-title") {
            const char *key = l.type == "custom-title" ? "customTitle" : "aiTitle";
            const std::string title = json::str(l.meta, key);
            if (title.empty())
                continue;
            t.header[key] = title;
            if (l.type == "custom-title" || !t.header.contains("customTitle"))
                t.header["title"] = title;
        }
    }
    if (!t.header.contains("sessionId"))
        for (const auto &l : lines)
            if (const std::string s = json::str(l.meta, "sessionId"); !s.empty()) {
                t.header["sessionId"] = s;
                break;
            }
}

// A compaction that keeps recent messages (compactMetadata.preservedMessages: their uuids and the
// anchor, the summary line they follow) sends them after the summary, although their lines come
// before the boundary: they move there in the conversation order, and stay out of history.
void placePreservedMessages(Transcript &t)
{
    std::size_t boundary = t.messages.size();
    for (std::size_t i = t.messages.size(); i-- > 0;)
        if (!t.messages[i].sidechain && t.messages[i].kind == MessageKind::CompactBoundary) {
            boundary = i;
            break;
        }
    if (boundary == t.messages.size() || !t.messages[boundary].meta.is_object())
        return;
    const nlohmann::json *kept = cl::json::object(t.messages[boundary].meta, "preservedMessages");
    const nlohmann::json *uuids = kept ? cl::json::array(*kept, "uuids") : nullptr;
    if (!uuids || uuids->empty())
        return;
    std::unordered_set<std::string> wanted;
    for (const auto &u : *uuids)
        if (u.is_string())
            wanted.insert(u.get<std::string>());
    const std::string anchor = cl::json::str(*kept, "anchorUuid");
    std::size_t anchorAt = boundary;
    for (std::size_t i = boundary + 1; i < t.messages.size() && !anchor.empty(); ++i)
        if (t.messages[i].id == anchor) {
            anchorAt = i;
            break;
        }
    std::vector<std::size_t> moved;
    for (std::size_t i = 0; i < boundary; ++i)
        if (!t.messages[i].sidechain && wanted.count(t.messages[i].id))
            moved.push_back(i);
    if (moved.empty())
        return;
    std::vector<std::size_t> order;
    order.reserve(t.messages.size());
    for (std::size_t i = 0; i <= anchorAt; ++i)
        if (!std::binary_search(moved.begin(), moved.end(), i))
            order.push_back(i);
    order.insert(order.end(), moved.begin(), moved.end());
    for (std::size_t i = anchorAt + 1; i < t.messages.size(); ++i)
        order.push_back(i);
    std::vector<Message> messages;
    messages.reserve(order.size());
    for (const std::size_t i : order)
        messages.push_back(std::move(t.messages[i]));
    t.messages = std::move(messages);
    for (auto &r : t.records)
        r.message = -1;
    for (std::size_t i = 0; i < t.messages.size(); ++i)
        for (const std::uint32_t r : t.messages[i].records)
            if (r < t.records.size() && t.records[r].message < 0)
                t.records[r].message = std::int32_t(i);
}

// A subagent's file (subagents/agent-*.jsonl) or a compaction agent's holds only sidechain lines.
// Opened on its own it is a conversation of its own: its sidechain is the main chain here (the
// header says so, and writers keep isSidechain true on the lines they write).
void adoptSidechainFile(Transcript &t)
{
    bool sidechain = false;
    for (const Message &m : t.messages) {
        if (!m.isConversation())
            continue;
        if (!m.sidechain)
            return;
        sidechain = true;
    }
    if (!sidechain)
        return;
    for (Message &m : t.messages)
        m.sidechain = false;
    if (!t.header.is_object())
        t.header = nlohmann::json::object();
    t.header["agentFile"] = true;
}

} // namespace

// Decodes all lines on ctx.options.threads threads, each taking a contiguous run of about the
// same number of bytes (line sizes vary wildly: one tool result can be megabytes).
bool cc::decodeLines(const Transcript &t, const std::vector<json::LineSpan> &spans, std::vector<cc::LineInfo> &lines,
                     const LoadContext &ctx)
{
    const std::string_view buffer = *t.buffer;
    // simdjson reads up to SIMDJSON_PADDING bytes past a line's end: the following lines' bytes are
    // there to read, and after the last line the buffer's padding (loader.h: kBufferPadding spaces in
    // its capacity). A buffer without it gets a padded copy of its last line(s) instead, which for a
    // one-line 50 MB tool result would be a third copy of it.
    const std::size_t readable = buffer.size() + readableAfter(*t.buffer, buffer);
    const std::size_t n = spans.size();
    const int threads = std::max(1, std::min<int>(ctx.options.threads, int(n / 64) + 1));
    std::atomic<std::size_t> done{0};
    std::atomic_bool stop{false};
    const bool lastHasNewline = !buffer.empty() && buffer.back() == '\n';

    auto work = [&](std::size_t begin, std::size_t end, bool reporter) {
        cc::LineDecoder decoder; // one simdjson parser per worker, reused for every line
        for (std::size_t i = begin; i < end; ++i) {
            if ((i - begin) % kCheckEvery == kCheckEvery - 1) {
                const std::size_t total = done.fetch_add(kCheckEvery) + kCheckEvery;
                if (ctx.cancelled()) {
                    stop = true;
                    return;
                }
                if (reporter)
                    ctx.progress(0.8 * double(total) / double(n));
            }
            if (stop.load(std::memory_order_relaxed))
                return;
            const auto &s = spans[i];
            const std::size_t lineEnd = std::size_t(s.offset) + s.contentLength;
            decoder.decode(buffer.substr(s.offset, s.contentLength), readable - lineEnd,
                           i + 1 == n && !lastHasNewline, lines[i]);
        }
    };

    if (threads == 1) {
        work(0, n, true);
    } else {
        std::vector<std::size_t> bounds{0};
        const std::size_t bytesPerThread = buffer.size() / std::size_t(threads) + 1;
        for (std::size_t i = 0; i < n && bounds.size() < std::size_t(threads); ++i)
            if (spans[i].offset >= bytesPerThread * bounds.size())
                bounds.push_back(i);
        bounds.push_back(n);
        std::vector<std::thread> pool;
        for (std::size_t k = 1; k + 1 < bounds.size(); ++k)
            pool.emplace_back(work, bounds[k], bounds[k + 1], false);
        work(bounds[0], bounds[1], true);
        for (auto &th : pool)
            th.join();
    }
    return !stop && !ctx.cancelled();
}

void loadClaudeCode(Transcript &t, const LoadContext &ctx)
{
    const auto spans = json::splitLinesOnThreads(*t.buffer, ctx.options.threads);
    std::vector<cc::LineInfo> lines(spans.size());
    if (!cc::decodeLines(t, spans, lines, ctx))
        return;
    cc::assemble(t, spans, lines, ctx);
    if (ctx.options.loadSubagents && !t.path.empty() && !ctx.cancelled())
        cc::loadSubagents(t, ctx);
    if (ctx.options.loadSubagents)
        cc::linkAgentFile(t);
}

void cc::assemble(Transcript &t, const std::vector<json::LineSpan> &spans, std::vector<cc::LineInfo> &lines,
                  const LoadContext &ctx)
{
    const std::size_t n = spans.size();
    t.records.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
        Record r;
        r.offset = spans[i].offset;
        r.length = spans[i].length;
        r.line = spans[i].line;
        r.type = lines[i].type;
        r.parsed = lines[i].kind != cc::LineKind::Raw && lines[i].kind != cc::LineKind::Blank;
        t.records.push_back(std::move(r));
        for (auto &p : lines[i].problems)
            t.addDiagnostic(spans[i].line, std::move(p.text), p.severity);
        if (lines[i].kind == cc::LineKind::Blank)
            t.addDiagnostic(spans[i].line, "empty line", Diagnostic::Severity::Info);
        if (spans[i].contentLength > (16u << 20))
            t.addDiagnostic(spans[i].line, "very long line (" + std::to_string(spans[i].contentLength >> 20) + " MB)",
                            Diagnostic::Severity::Info);
    }
    fillHeader(t, lines);
    const std::vector<char> onBranch = cc::selectActiveBranch(t, lines);
    ctx.progress(0.85);

    t.messages.reserve(n);
    // Open response groups: message.id -> message index, per lane (main / sidechain+agent), so the
    // lines of one API response merge even with tool_result lines between them.
    std::unordered_map<std::string, std::size_t> openGroups;
    auto laneKey = [](const cc::LineInfo &l) { return (l.sidechain ? "s:" + l.agentId : std::string("m")) + '\x1f'; };
    auto closeLane = [&openGroups](const std::string &lane) {
        for (auto it = openGroups.begin(); it != openGroups.end();)
            it = it->first.compare(0, lane.size(), lane) == 0 ? openGroups.erase(it) : std::next(it);
    };

    for (std::size_t i = 0; i < n; ++i) {
        if (i % kCheckEvery == kCheckEvery - 1 && ctx.cancelled())
            return;
        cc::LineInfo &l = lines[i];
        if (l.kind == cc::LineKind::Raw || l.kind == cc::LineKind::Blank)
            continue;
        const bool conversation = cc::isConversationKind(l.kind);
        if (conversation && !onBranch[i] && !l.sidechain) {
            ++t.offBranchMessages;
            continue;
        }
        const std::string lane = laneKey(l);
        if (l.kind == cc::LineKind::Assistant) {
            const auto it = l.apiId.empty() ? openGroups.end() : openGroups.find(lane + l.apiId);
            if (it != openGroups.end()) {
                Message &m = t.messages[it->second];
                mergeBlocks(m, std::move(l.blocks));
                m.records.push_back(std::uint32_t(i));
                m.id = l.uuid;
                if (l.usage)
                    m.usage = l.usage;
                if (!l.model.empty())
                    m.model = std::move(l.model);
                t.records[i].message = std::int32_t(it->second);
                continue;
            }
            closeLane(lane); // another response started: earlier ones are complete
        } else if ((l.kind == cc::LineKind::User && !l.toolResultsOnly) || l.kind == cc::LineKind::System) {
            // A prompt, a turn_duration / api_error / compact_boundary line: the response is over.
            closeLane(lane);
        }

        Message m;
        m.role = roleFor(l);
        m.kind = kindFor(l);
        m.type = typeFor(l);
        m.id = std::move(l.uuid);
        m.parentId = !l.parentUuid.empty() ? std::move(l.parentUuid) : std::move(l.logicalParentUuid);
        m.apiMessageId = std::move(l.apiId);
        m.model = std::move(l.model);
        m.agentId = std::move(l.agentId);
        m.timeMs = parseTimestamp(l.timestamp);
        m.timestamp = std::move(l.timestamp);
        m.sidechain = l.sidechain;
        m.isMeta = l.isMeta;
        m.usage = l.usage;
        m.meta = std::move(l.meta);
        m.blocks = std::move(l.blocks);
        m.records.push_back(std::uint32_t(i));
        m.line = t.records[i].line;
        t.records[i].message = std::int32_t(t.messages.size());
        if (m.kind == MessageKind::Conversation && m.role == Role::Assistant && !m.apiMessageId.empty())
            openGroups[lane + m.apiMessageId] = t.messages.size();
        t.messages.push_back(std::move(m));
    }
    adoptSidechainFile(t);
    placePreservedMessages(t);
    ctx.progress(0.9);
}

WriteResult writeClaudeCode(const Transcript &t, ByteSink &out)
{
    if (t.format == Format::ClaudeCode && t.buffer)
        return cc::writeSameFormat(t, out);
    return cc::writeConversion(t, out);
}

} // namespace cl::formats
