// SPDX-License-Identifier: MIT
#include "core/model/transcript.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <ctime>
#include <unordered_map>
#include <unordered_set>

namespace cl {

std::string_view roleName(Role r)
{
    switch (r) {
    case Role::System: return "system";
    case Role::User: return "user";
    case Role::Assistant: return "assistant";
    case Role::Tool: return "tool";
    case Role::Unknown: break;
    }
    return "unknown";
}

std::string_view messageKindName(MessageKind k)
{
    switch (k) {
    case MessageKind::Conversation: return "message";
    case MessageKind::CompactBoundary: return "compact_boundary";
    case MessageKind::MicrocompactBoundary: return "microcompact_boundary";
    case MessageKind::CompactSummary: return "compact_summary";
    case MessageKind::Event: return "event";
    case MessageKind::Meta: return "meta";
    }
    return "message";
}

std::string_view blockTypeName(BlockType t)
{
    switch (t) {
    case BlockType::Text: return "text";
    case BlockType::ToolUse: return "tool_use";
    case BlockType::ToolResult: return "tool_result";
    case BlockType::Thinking: return "thinking";
    case BlockType::RedactedThinking: return "redacted_thinking";
    case BlockType::Image: return "image";
    case BlockType::Document: return "document";
    case BlockType::Raw: return "raw";
    }
    return "raw";
}

bool Message::hasToolUse() const
{
    for (const auto &b : blocks)
        if (b.type == BlockType::ToolUse)
            return true;
    return false;
}

bool Message::hasToolResult() const
{
    for (const auto &b : blocks)
        if (b.type == BlockType::ToolResult)
            return true;
    return false;
}

std::string Message::plainText() const
{
    std::string out;
    for (const auto &b : blocks) {
        if (b.type != BlockType::Text)
            continue;
        if (!out.empty())
            out += '\n';
        out += b.text;
    }
    return out;
}

std::string Diagnostic::toString() const
{
    std::string s = file;
    if (line)
        s += ':' + std::to_string(line);
    s += ": ";
    s += message;
    return s;
}

void Transcript::addDiagnostic(std::uint32_t line, std::string message, Diagnostic::Severity s)
{
    diagnostics.push_back(Diagnostic{s, path, line, std::move(message)});
}

bool Transcript::hasEdits() const
{
    // Edited or inserted messages, or removed ones: a decoded record no message owns any more.
    std::vector<char> owned(records.size(), 0);
    for (const auto &m : messages) {
        if (m.edited)
            return true;
        for (const std::uint32_t r : m.records)
            if (r < owned.size())
                owned[r] = 1;
    }
    for (std::size_t r = 0; r < records.size(); ++r)
        if (records[r].message >= 0 && !owned[r])
            return true;
    return false;
}

namespace {
bool isContinuationByte(char c)
{
    return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}
} // namespace

std::string_view sentResultText(const Block &b, std::string &storage)
{
    if (b.cleared)
        return kClearedResult;
    const std::string_view text = b.text;
    if (b.sentLimit == 0 || text.size() <= b.sentLimit)
        return text;
    const std::size_t half = b.sentLimit / 2;
    // The head ends after the last line break within its half, the tail starts after the first
    // line break within its half; without one, at the byte limit (moved off a UTF-8 continuation).
    std::size_t headEnd = half;
    if (const std::size_t nl = text.substr(0, half).rfind('\n'); nl != std::string_view::npos)
        headEnd = nl + 1;
    else
        while (headEnd > 0 && isContinuationByte(text[headEnd]))
            --headEnd;
    std::size_t tailStart = text.size() - (b.sentLimit - half);
    if (const std::size_t nl = text.find('\n', tailStart); nl != std::string_view::npos && nl + 1 < text.size())
        tailStart = nl + 1;
    else
        while (tailStart < text.size() && isContinuationByte(text[tailStart]))
            ++tailStart;
    tailStart = std::max(tailStart, headEnd);
    storage.assign(text.substr(0, headEnd));
    storage += "[... " + std::to_string(tailStart - headEnd) + " bytes not sent ...]\n";
    storage += text.substr(tailStart);
    return storage;
}

std::size_t markLiveContext(Transcript &t)
{
    std::size_t boundary = t.messages.size();
    for (std::size_t i = t.messages.size(); i-- > 0;)
        if (!t.messages[i].sidechain && t.messages[i].kind == MessageKind::CompactBoundary) {
            boundary = i;
            break;
        }
    // Microcompactions after it clear results (Claude Code: microcompactMetadata.compactedToolIds).
    std::unordered_set<std::string> clearedIds;
    for (std::size_t i = boundary == t.messages.size() ? 0 : boundary; i < t.messages.size(); ++i) {
        const Message &m = t.messages[i];
        if (m.sidechain || m.kind != MessageKind::MicrocompactBoundary || !m.meta.is_object())
            continue;
        const auto it = m.meta.find("compactedToolIds");
        if (it != m.meta.end() && it->is_array())
            for (const auto &id : *it)
                if (id.is_string())
                    clearedIds.insert(id.get<std::string>());
    }
    if (!clearedIds.empty())
        for (auto &m : t.messages)
            for (auto &b : m.blocks)
                if (b.type == BlockType::ToolResult && !m.sidechain && clearedIds.count(b.toolId)) {
                    b.cleared = true;
                    m.cache.tokenEstimate = -1;
                }
    if (boundary == t.messages.size())
        return 0;
    for (std::size_t i = 0; i < boundary; ++i)
        t.messages[i].history = true;
    return boundary;
}

Transcript sameFileWithoutMessages(const Transcript &t)
{
    Transcript out;
    out.format = t.format;
    out.path = t.path;
    out.buffer = t.buffer;
    out.records = t.records;
    out.header = t.header;
    out.subagents = t.subagents;
    out.offBranchMessages = t.offBranchMessages;
    out.tokenCalibration = t.tokenCalibration;
    out.wholeHistory = t.wholeHistory;
    out.recording = t.recording;
    return out;
}

std::size_t liveStart(const Transcript &t)
{
    std::size_t i = 0;
    while (i < t.messages.size() && t.messages[i].history)
        ++i;
    return i < t.messages.size() ? i : 0;
}

void linkToolPairs(Transcript &t)
{
    struct Loc {
        std::int32_t msg;
        std::int32_t block;
    };
    std::unordered_map<std::string_view, Loc> uses; // ids of the use blocks, which stay put meanwhile
    uses.reserve(t.messages.size());
    for (std::size_t mi = 0; mi < t.messages.size(); ++mi) {
        auto &m = t.messages[mi];
        // Reset as it goes, so that the function is idempotent: a result pairs with an earlier call.
        for (auto &b : m.blocks)
            b.pairMessage = b.pairBlock = -1;
        if (m.kind == MessageKind::CompactBoundary) {
            uses.clear(); // the context restarts: calls before a compaction are not answered after it
            continue;
        }
        if (!m.isConversation())
            continue;
        for (std::size_t bi = 0; bi < m.blocks.size(); ++bi) {
            auto &b = m.blocks[bi];
            if (b.type == BlockType::ToolUse) {
                if (b.toolId.empty())
                    continue;
                const auto [it, inserted] = uses.try_emplace(b.toolId, Loc{std::int32_t(mi), std::int32_t(bi)});
                if (!inserted) {
                    t.addDiagnostic(m.line, "duplicate tool call id " + b.toolId + " (first used on message "
                                                + std::to_string(it->second.msg + 1) + ")");
                    it->second = Loc{std::int32_t(mi), std::int32_t(bi)};
                }
            } else if (b.type == BlockType::ToolResult) {
                const auto it = uses.find(b.toolId);
                if (it == uses.end()) {
                    t.addDiagnostic(m.line, "orphan tool result: no tool call with id '" + b.toolId + "' before it");
                    continue;
                }
                auto &use = t.messages[it->second.msg].blocks[it->second.block];
                if (use.pairMessage >= 0 && b.repeated) {
                    // The agent's own restatement: it answers the same call; the call keeps its first.
                    b.pairMessage = it->second.msg;
                    b.pairBlock = it->second.block;
                    b.toolName = use.toolName;
                    continue;
                }
                if (use.pairMessage >= 0) {
                    t.addDiagnostic(m.line, "second tool result for tool call id " + b.toolId);
                    continue;
                }
                use.pairMessage = std::int32_t(mi);
                use.pairBlock = std::int32_t(bi);
                b.pairMessage = it->second.msg;
                b.pairBlock = it->second.block;
                if (b.toolName.empty())
                    b.toolName = use.toolName;
            }
        }
    }
    for (const auto &[id, loc] : uses) {
        const auto &use = t.messages[loc.msg].blocks[loc.block];
        if (use.pairMessage < 0)
            t.addDiagnostic(t.messages[loc.msg].line, "tool call " + std::string(id) + " (" + use.toolName + ") has no result",
                            Diagnostic::Severity::Info);
    }
}

namespace {
bool digits(std::string_view s, std::size_t pos, std::size_t n, int &out)
{
    if (pos + n > s.size())
        return false;
    int v = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const char c = s[pos + i];
        if (c < '0' || c > '9')
            return false;
        v = v * 10 + (c - '0');
    }
    out = v;
    return true;
}

// Days since 1970-01-01 for a proleptic Gregorian date (Howard Hinnant's algorithm).
std::int64_t daysFromCivil(int y, unsigned m, unsigned d)
{
    y -= m <= 2;
    const int era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = static_cast<unsigned>(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return std::int64_t(era) * 146097 + std::int64_t(doe) - 719468;
}
} // namespace

std::string formatTimestamp(std::int64_t ms)
{
    const std::time_t secs = static_cast<std::time_t>(ms >= 0 ? ms / 1000 : (ms - 999) / 1000);
    const int millis = int(ms - std::int64_t(secs) * 1000);
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char buf[96];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                  tm.tm_hour, tm.tm_min, tm.tm_sec, millis);
    return buf;
}

std::int64_t parseTimestamp(std::string_view s)
{
    int Y, M, D, h = 0, mi = 0, sec = 0;
    if (s.empty())
        return kNoTime;
    if (s.size() <= 16 && s.find_first_not_of("0123456789.") == std::string_view::npos) {
        double v = 0;
        const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
        if (r.ec != std::errc())
            return kNoTime;
        // Seconds or milliseconds since the epoch.
        return v > 1e11 ? std::int64_t(v) : std::int64_t(v * 1000.0);
    }
    if (!digits(s, 0, 4, Y) || s.size() < 10 || s[4] != '-' || !digits(s, 5, 2, M) || s[7] != '-'
        || !digits(s, 8, 2, D))
        return kNoTime;
    if (M < 1 || M > 12 || D < 1 || D > 31)
        return kNoTime;
    std::size_t p = 10;
    std::int64_t ms = 0;
    std::int64_t offsetMin = 0;
    if (p < s.size() && (s[p] == 'T' || s[p] == ' ')) {
        if (!digits(s, p + 1, 2, h) || s.size() < p + 6 || s[p + 3] != ':' || !digits(s, p + 4, 2, mi))
            return kNoTime;
        p += 6;
        if (p < s.size() && s[p] == ':') {
            if (!digits(s, p + 1, 2, sec))
                return kNoTime;
            p += 3;
        }
        if (p < s.size() && (s[p] == '.' || s[p] == ',')) {
            ++p;
            int scale = 100;
            while (p < s.size() && s[p] >= '0' && s[p] <= '9') {
                ms += (s[p] - '0') * scale;
                scale /= 10;
                ++p;
            }
        }
        if (p < s.size() && (s[p] == '+' || s[p] == '-')) {
            int oh = 0, om = 0;
            const int sign = s[p] == '-' ? -1 : 1;
            if (!digits(s, p + 1, 2, oh))
                return kNoTime;
            std::size_t q = p + 3;
            if (q < s.size() && s[q] == ':')
                ++q;
            digits(s, q, 2, om);
            offsetMin = sign * (oh * 60 + om);
        }
    }
    const std::int64_t days = daysFromCivil(Y, unsigned(M), unsigned(D));
    return ((days * 24 + h) * 60 + mi - offsetMin) * 60000 + std::int64_t(sec) * 1000 + ms;
}

} // namespace cl
