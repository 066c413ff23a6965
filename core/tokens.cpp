// SPDX-License-Identifier: MIT
#include "core/tokens.h"

#include "core/jsonutil.h"

#include <algorithm>
#include <cmath>
#include <thread>
#include <unordered_set>

namespace cl::tokens {

namespace {

// JavaScript's String.length: UTF-16 code units (the seed is JavaScript).
std::size_t utf16Length(std::string_view s)
{
    std::size_t n = 0;
    for (const char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        if ((c & 0xC0) != 0x80)
            ++n;          // every lead or ASCII byte starts one code point
        if (c >= 0xF0)
            ++n;          // 4-byte sequences are surrogate pairs in UTF-16
    }
    return n;
}

std::size_t countSubstr(std::string_view s, std::string_view needle)
{
    std::size_t n = 0;
    for (std::size_t p = s.find(needle); p != std::string_view::npos; p = s.find(needle, p + needle.size()))
        ++n;
    return n;
}

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

// Matches of /https?:\/\/\S+/g: each "http://" or "https://" followed by at least one non-space.
std::size_t countUrls(std::string_view s)
{
    std::size_t n = 0;
    std::size_t p = 0;
    while ((p = s.find("http", p)) != std::string_view::npos) {
        std::size_t q = p + 4;
        if (q < s.size() && s[q] == 's')
            ++q;
        if (s.substr(q, 3) == "://" && q + 3 < s.size() && !isSpace(s[q + 3])) {
            ++n;
            q += 3;
            while (q < s.size() && !isSpace(s[q]))
                ++q;        // the match consumes the URL, so "http" inside it is not counted again
            p = q;
        } else {
            p += 4;
        }
    }
    return n;
}

std::string_view trim(std::string_view s)
{
    while (!s.empty() && isSpace(s.front()))
        s.remove_prefix(1);
    while (!s.empty() && isSpace(s.back()))
        s.remove_suffix(1);
    return s;
}

} // namespace

double repetition(std::string_view text)
{
    constexpr std::size_t kMinLine = 8;
    std::unordered_set<std::string_view> seen;
    std::size_t lines = 0;
    std::size_t repeated = 0;
    std::size_t pos = 0;
    while (pos < text.size()) {
        std::size_t nl = text.find('\n', pos);
        if (nl == std::string_view::npos)
            nl = text.size();
        const std::string_view line = trim(text.substr(pos, nl - pos));
        pos = nl + 1;
        if (line.size() < kMinLine)
            continue;
        ++lines;
        if (!seen.insert(line).second)
            ++repeated;
    }
    if (lines >= 2)
        return double(repeated) / double(lines);
    // One long line: 8-byte shingles taken every 8 bytes.
    constexpr std::size_t kShingle = 8;
    if (text.size() < 32 * kShingle)
        return 0.0;
    seen.clear();
    std::size_t total = 0;
    repeated = 0;
    for (std::size_t p = 0; p + kShingle <= text.size(); p += kShingle) {
        ++total;
        if (!seen.insert(text.substr(p, kShingle)).second)
            ++repeated;
    }
    return total ? double(repeated) / double(total) : 0.0;
}

std::int64_t estimateText(std::string_view text)
{
    if (text.empty())
        return 0;
    const auto base = static_cast<std::int64_t>((utf16Length(text) + 3) / 4);
    const auto codeBlocks = static_cast<std::int64_t>(countSubstr(text, "```") / 2);
    const auto urls = static_cast<std::int64_t>(countUrls(text));
    const auto repeatDiscount = static_cast<std::int64_t>(std::floor(double(base) * repetition(text) * 0.1));
    return std::max<std::int64_t>(0, base + codeBlocks * kCodeBlockTokens - urls * kUrlDiscount - repeatDiscount);
}

std::int64_t estimateBlock(const Block &b)
{
    switch (b.type) {
    case BlockType::Text:
    case BlockType::Thinking:
        return estimateText(b.text);
    case BlockType::ToolUse:
        return kToolUseOverhead + estimateText(b.input.is_null() ? std::string("{}") : json::dump(b.input));
    case BlockType::ToolResult:
        return kToolResultOverhead + estimateText(b.text);
    case BlockType::Image:
        return kImageTokens;
    case BlockType::Document:
        return std::int64_t((b.dataSize + kDocumentPageBytes - 1) / kDocumentPageBytes) * kDocumentPageTokens;
    case BlockType::RedactedThinking:
    case BlockType::Raw:
        return kUnknownBlockTokens;
    }
    return kUnknownBlockTokens;
}

std::int64_t estimateMessage(const Message &m)
{
    if (m.tokenEstimate >= 0)
        return m.tokenEstimate;
    std::int64_t total = kRoleTokens + kStructureTokens;
    for (const auto &b : m.blocks)
        total += estimateBlock(b);
    m.tokenEstimate = static_cast<std::int32_t>(std::min<std::int64_t>(total, INT32_MAX));
    return total;
}

void estimateAll(const Transcript &t, int threads)
{
    const std::size_t n = t.messages.size();
    threads = std::max(1, std::min(threads, int(n / 256) + 1));
    if (threads == 1) {
        for (const auto &m : t.messages)
            estimateMessage(m);
        return;
    }
    // Interleaved chunks balance the load when big messages cluster.
    std::vector<std::thread> pool;
    for (int k = 0; k < threads; ++k) {
        pool.emplace_back([&t, n, k, threads] {
            constexpr std::size_t kChunk = 64;
            for (std::size_t start = std::size_t(k) * kChunk; start < n; start += std::size_t(threads) * kChunk)
                for (std::size_t i = start; i < std::min(n, start + kChunk); ++i)
                    estimateMessage(t.messages[i]);
        });
    }
    for (auto &th : pool)
        th.join();
}

std::int64_t totalEstimate(const Transcript &t)
{
    std::int64_t total = 0;
    for (const auto &m : t.messages)
        if (m.isConversation() && !m.sidechain)
            total += estimateMessage(m);
    return total;
}

std::vector<MeasuredPoint> measuredContext(const Transcript &t)
{
    std::vector<MeasuredPoint> points;
    std::int64_t cumulative = 0;
    for (std::size_t i = 0; i < t.messages.size(); ++i) {
        const Message &m = t.messages[i];
        if (m.sidechain)
            continue;
        if (m.kind == MessageKind::CompactBoundary) {
            cumulative = 0; // the model's context restarts after a compaction
            continue;
        }
        if (m.usage && m.usage->contextTokens() > 0)
            points.push_back({i, m.usage->contextTokens(), cumulative, m.usage->outputTokens});
        if (m.isConversation())
            cumulative += estimateMessage(m);
    }
    return points;
}

ErrorReport estimatorError(const Transcript &t)
{
    ErrorReport r;
    const auto points = measuredContext(t);
    double sumAbs = 0, sumSigned = 0;
    for (const auto &p : points) {
        if (p.measured <= 0)
            continue;
        const double e = double(p.estimated - p.measured) / double(p.measured) * 100.0;
        sumAbs += std::abs(e);
        sumSigned += e;
        ++r.points;
        r.lastMeasured = p.measured;
        r.lastEstimated = p.estimated;
    }
    if (r.points) {
        r.meanAbsPercent = sumAbs / double(r.points);
        r.meanSignedPercent = sumSigned / double(r.points);
    }
    return r;
}

} // namespace cl::tokens
