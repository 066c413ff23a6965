// SPDX-License-Identifier: MIT
#include "core/tokens/estimator.h"

#include "core/util/json.h"
#include "core/tokens/estimator_internal.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <thread>

namespace cl::tokens {

namespace {

using detail::Measure;
using detail::SeenSet;

// " \t\n\v\f\r" as one bit test (the URL count ends a URL at the first of them).
constexpr std::uint64_t kSpaceBits =
    (1ull << ' ') | (1ull << '\t') | (1ull << '\n') | (1ull << '\v') | (1ull << '\f') | (1ull << '\r');
bool isSpace(char c)
{
    const auto u = static_cast<unsigned char>(c);
    return u <= ' ' && ((kSpaceBits >> u) & 1) != 0;
}

std::size_t countSubstr(std::string_view s, std::string_view needle)
{
    std::size_t n = 0;
    for (std::size_t p = s.find(needle); p != std::string_view::npos; p = s.find(needle, p + needle.size()))
        ++n;
    return n;
}

// Matches of /https?:\/\/\S+/g: each "http://" or "https://" followed by at least one non-space,
// found from the "://" positions (ascending) by looking back for the scheme.
std::size_t countUrls(std::string_view s, const std::vector<std::size_t> &schemeEnds)
{
    std::size_t n = 0;
    std::size_t consumed = 0; // a match takes the URL up to the next space: nothing in it counts again
    for (const std::size_t c : schemeEnds) {
        if (c < consumed)
            continue;
        std::size_t start = std::string_view::npos;
        if (c >= 5 && s.substr(c - 5, 5) == "https")
            start = c - 5;
        else if (c >= 4 && s.substr(c - 4, 4) == "http")
            start = c - 4;
        if (start == std::string_view::npos || start < consumed || c + 3 >= s.size() || isSpace(s[c + 3]))
            continue;
        ++n;
        std::size_t q = c + 3;
        while (q < s.size() && !isSpace(s[q]))
            ++q;
        consumed = q;
    }
    return n;
}

// Text without two qualifying lines: 8-byte shingles taken every 8 bytes.
double shingleRepetition(std::string_view text, SeenSet &seen)
{
    constexpr std::size_t kShingle = 8;
    if (text.size() < 32 * kShingle)
        return 0.0;
    seen.clear(text.data(), text.size() * 4); // sized for one entry per 8 bytes (lines are guessed at 32)
    std::size_t total = 0, repeated = 0;
    for (std::size_t p = 0; p + kShingle <= text.size(); p += kShingle) {
        ++total;
        if (!seen.insertWord(text.data() + p))
            ++repeated;
    }
    return total ? double(repeated) / double(total) : 0.0;
}

// Per thread: the line set (or list) and the "://" positions, reused for every text.
struct Scratch {
    SeenSet seen;
    detail::LineList lines;
    std::vector<std::size_t> schemeEnds;

    double repetition(std::string_view text, const Measure &m)
    {
        const double r = m.lines >= 2 ? double(m.repeated) / double(m.lines) : shingleRepetition(text, seen);
        seen.trim();
        if (schemeEnds.capacity() > 4096)
            std::vector<std::size_t>().swap(schemeEnds);
        return r;
    }
};

Scratch &threadScratch()
{
    thread_local Scratch scratch;
    return scratch;
}

} // namespace

double repetition(std::string_view text)
{
    Scratch &scratch = threadScratch();
    const Measure m = detail::measure(text, scratch.seen, scratch.schemeEnds);
    return scratch.repetition(text, m);
}

namespace {

// The seed's formula over what the pass measured, with the repetition factor rep.
std::int64_t formula(std::string_view text, const Measure &m, const std::vector<std::size_t> &schemeEnds, double rep)
{
    const auto base = static_cast<std::int64_t>((m.units + 3) / 4);
    const auto codeBlocks = static_cast<std::int64_t>(m.backtick ? countSubstr(text, "```") / 2 : 0);
    const auto urls = static_cast<std::int64_t>(countUrls(text, schemeEnds));
    const auto repeatDiscount = static_cast<std::int64_t>(std::floor(double(base) * rep * 0.1));
    return std::max<std::int64_t>(0, base + codeBlocks * kCodeBlockTokens - urls * kUrlDiscount - repeatDiscount);
}

// Repeated lines of a text whose lines starting outside [zoneStart, zoneEnd] are pairwise
// different: every repeat involves a line starting inside it. Each such line's class of equal
// lines (found by length, then bytes) adds its size - 1, once per class. SIZE_MAX when the zone
// holds so many lines that the walk would not pay.
std::size_t repeatsNear(std::string_view text, const std::vector<detail::LineList::Line> &lines, std::size_t zoneStart,
                        std::size_t zoneEnd)
{
    constexpr std::size_t kMaxZoneLines = 16;
    auto inZone = [&](const detail::LineList::Line &l) { return l.offset >= zoneStart && l.offset <= zoneEnd; };
    auto same = [&](const detail::LineList::Line &a, const detail::LineList::Line &b) {
        return a.size == b.size && std::memcmp(text.data() + a.offset, text.data() + b.offset, a.size) == 0;
    };
    const auto begin = std::find_if(lines.begin(), lines.end(), inZone);
    const auto end = std::find_if_not(begin, lines.end(), inZone);
    if (end - begin > std::ptrdiff_t(kMaxZoneLines))
        return SIZE_MAX;
    std::size_t repeated = 0;
    for (auto a = begin; a != end; ++a) {
        if (std::any_of(begin, a, [&](const detail::LineList::Line &b) { return same(*a, b); }))
            continue; // its class was counted with an earlier zone line
        const auto members = std::count_if(lines.begin(), lines.end(), [&](const detail::LineList::Line &b) { return same(*a, b); });
        repeated += std::size_t(members) - 1;
    }
    return repeated;
}

} // namespace

std::int64_t estimateText(std::string_view text)
{
    if (text.empty())
        return 0;
    Scratch &scratch = threadScratch();
    const Measure m = detail::measure(text, scratch.seen, scratch.schemeEnds);
    return formula(text, m, scratch.schemeEnds, scratch.repetition(text, m));
}

bool linesAreDistinct(std::string_view text)
{
    Scratch &scratch = threadScratch();
    const Measure m = detail::measure(text, scratch.seen, scratch.schemeEnds);
    scratch.seen.trim();
    return m.lines >= 2 && m.repeated == 0;
}

std::int64_t estimateTextDistinctOutside(std::string_view text, std::size_t from, std::size_t to)
{
    if (text.empty())
        return 0;
    Scratch &scratch = threadScratch();
    Measure m = detail::measure(text, scratch.lines, scratch.schemeEnds);
    from = std::min(from, text.size());
    to = std::clamp(to, from, text.size());
    // The zone: from the start of the line holding `from` to the line feed ending the one holding
    // `to`. Lines outside it lie whole before `from` or whole after `to`.
    const std::size_t before = from == 0 ? std::string_view::npos : text.rfind('\n', from - 1);
    const std::size_t zoneStart = before == std::string_view::npos ? 0 : before + 1;
    const std::size_t zoneEnd = std::min(text.find('\n', to), text.size());
    const std::size_t repeated = m.lines >= 2 ? repeatsNear(text, scratch.lines.lines(), zoneStart, zoneEnd) : SIZE_MAX;
    scratch.lines.trim();
    if (repeated == SIZE_MAX) // shingles (fewer than two lines), or a crowded zone: the plain estimate
        return estimateText(text);
    m.repeated = repeated;
    return formula(text, m, scratch.schemeEnds, double(m.repeated) / double(m.lines));
}

std::int64_t estimateBlock(const Block &b)
{
    switch (b.type) {
    case BlockType::Text:
    case BlockType::Thinking:
        return estimateText(b.text);
    case BlockType::ToolUse:
        return kToolUseOverhead + estimateText(b.input.is_null() ? std::string("{}") : json::dump(b.input));
    case BlockType::ToolResult: {
        std::string sent;
        return kToolResultOverhead + estimateText(sentResultText(b, sent));
    }
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
    if (m.cache.tokenEstimate >= 0)
        return m.cache.tokenEstimate;
    std::int64_t total = kRoleTokens + kStructureTokens;
    for (const auto &b : m.blocks)
        total += estimateBlock(b);
    m.cache.tokenEstimate = static_cast<std::int32_t>(std::min<std::int64_t>(total, INT32_MAX));
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
        // What was sent at the time, history included: before its compaction it was live.
        if (m.isTurn())
            cumulative += estimateMessage(m);
    }
    return points;
}

ErrorReport estimatorError(const Transcript &t, std::int64_t fixedTokens)
{
    ErrorReport r;
    r.fixed = fixedTokens;
    const auto points = measuredContext(t);
    double sumAbs = 0, sumSigned = 0;
    for (const auto &p : points) {
        if (p.measured <= 0)
            continue;
        const double e = double(p.estimated + fixedTokens - p.measured) / double(p.measured) * 100.0;
        sumAbs += std::abs(e);
        sumSigned += e;
        ++r.points;
        r.lastMeasured = p.measured;
        r.lastEstimated = p.estimated + fixedTokens;
    }
    if (r.points) {
        r.meanAbsPercent = sumAbs / double(r.points);
        r.meanSignedPercent = sumSigned / double(r.points);
    }
    return r;
}

} // namespace cl::tokens
