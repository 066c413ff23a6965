// SPDX-License-Identifier: MIT
#include "core/tokens.h"

#include "core/jsonutil.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <thread>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace cl::tokens {

namespace {

// ' ' \t \n \v \f \r as one bit test (trimming indented lines runs it on every leading space).
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

std::string_view trim(std::string_view s)
{
    while (!s.empty() && isSpace(s.front()))
        s.remove_prefix(1);
    while (!s.empty() && isSpace(s.back()))
        s.remove_suffix(1);
    return s;
}

std::uint64_t mix(std::uint64_t h)
{
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDull;
    h ^= h >> 33;
    return h;
}

std::uint64_t load64(const char *p)
{
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    return w;
}

// Hash of a byte string, sixteen bytes at a time in two independent lanes (the last word read
// overlapping when the length is not a multiple of eight). Only speed depends on its quality:
// every hit is confirmed by comparing the bytes.
std::uint64_t hashBytes(const char *p, std::size_t n)
{
    constexpr std::uint64_t k1 = 0x9E3779B97F4A7C15ull, k2 = 0xC2B2AE3D27D4EB4Full;
    std::uint64_t a = k1 ^ n, b = k2 + n;
    if (n < 8) {
        std::uint64_t w = 0;
        for (std::size_t i = 0; i < n; ++i)
            w |= std::uint64_t(static_cast<unsigned char>(p[i])) << (8 * i);
        return mix((a ^ w) * k1);
    }
    const char *end = p + n;
    for (; end - p > 16; p += 16) {
        a = (a ^ load64(p)) * k1;
        a ^= a >> 29;
        b = (b ^ load64(p + 8)) * k2;
        b ^= b >> 31;
    }
    if (end - p > 8)
        a = (a ^ load64(p)) * k1;
    b = (b ^ load64(end - 8)) * k2;
    return mix(a ^ std::rotl(b, 32));
}

// The lines (or 8-byte shingles) seen so far in one text: open addressing, reused by the thread
// for every text (a generation number empties it without touching the slots), instead of a
// node-allocating std::unordered_set per text.
class SeenSet {
public:
    void clear()
    {
        if (++m_gen == 0) { // wrapped: stale slots could look current
            for (auto &s : m_slots)
                s.gen = 0;
            m_gen = 1;
        }
        m_count = 0;
    }
    // True when the bytes were not in the set yet.
    bool insert(std::string_view bytes) { return insert(hashBytes(bytes.data(), bytes.size()), bytes.data(), bytes.size(), 0); }
    // A shingle: its 8 bytes as one word, compared as such.
    bool insertWord(std::uint64_t word) { return insert(mix(word ^ 0x2545F4914F6CDD1Dull), nullptr, 8, word); }
    // Drops a large table after a huge text, so an idle thread does not keep it.
    void trim()
    {
        if (m_slots.size() > (std::size_t(1) << 12)) {
            std::vector<Slot>().swap(m_slots);
            m_count = 0;
        }
    }

private:
    struct Slot {
        std::uint64_t hash = 0;
        const char *data = nullptr; // nullptr for a shingle
        std::uint64_t word = 0;
        std::uint32_t size = 0;
        std::uint32_t gen = 0;
    };

    bool insert(std::uint64_t h, const char *data, std::size_t size, std::uint64_t word)
    {
        if ((m_count + 1) * 2 > m_slots.size())
            grow();
        const std::size_t mask = m_slots.size() - 1;
        for (std::size_t i = std::size_t(h) & mask;; i = (i + 1) & mask) {
            Slot &s = m_slots[i];
            if (s.gen != m_gen) {
                s = {h, data, word, std::uint32_t(size), m_gen};
                ++m_count;
                return true;
            }
            if (s.hash == h && s.size == size && s.word == word
                && (!data || (s.data && std::memcmp(s.data, data, size) == 0)))
                return false;
        }
    }

    void grow()
    {
        std::vector<Slot> old;
        old.swap(m_slots);
        m_slots.assign(std::max<std::size_t>(64, old.size() * 2), Slot{});
        const std::size_t mask = m_slots.size() - 1;
        for (const Slot &s : old) {
            if (s.gen != m_gen)
                continue;
            std::size_t i = std::size_t(s.hash) & mask;
            while (m_slots[i].gen == m_gen)
                i = (i + 1) & mask;
            m_slots[i] = s;
        }
    }

    std::vector<Slot> m_slots;
    std::size_t m_count = 0;
    std::uint32_t m_gen = 1;
};

// Flags of sixteen bytes, one bit per byte (bit k = byte k).
struct Masks16 {
    unsigned high = 0;         // bytes >= 0x80
    unsigned continuation = 0; // 10xxxxxx
    unsigned lead4 = 0;        // >= 0xF0: a code point outside the BMP, two UTF-16 units
    unsigned colon = 0, feed = 0, backtick = 0;
};

#if defined(__SSE2__)
Masks16 masks16(const char *p)
{
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p));
    Masks16 m;
    m.colon = unsigned(_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(':'))));
    m.feed = unsigned(_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('\n'))));
    m.backtick = unsigned(_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('`'))));
    m.high = unsigned(_mm_movemask_epi8(v));
    if (m.high) {
        const __m128i top2 = _mm_and_si128(v, _mm_set1_epi8(char(0xC0)));
        m.continuation = unsigned(_mm_movemask_epi8(_mm_cmpeq_epi8(top2, _mm_set1_epi8(char(0x80)))));
        m.lead4 = unsigned(_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_max_epu8(v, _mm_set1_epi8(char(0xF0))), v)));
    }
    return m;
}
#else
constexpr std::uint64_t kHigh = 0x8080808080808080ull;
constexpr std::uint64_t kLow7 = 0x7F7F7F7F7F7F7F7Full;

// Bit 7 set in each byte of w equal to c (exact: no false positives from borrows).
std::uint64_t bytesEqual(std::uint64_t w, unsigned char c)
{
    const std::uint64_t x = w ^ (0x0101010101010101ull * c);
    return ~(((x & kLow7) + kLow7) | x) & kHigh;
}

// Bit 7 of each byte of a flag word gathered into the low eight bits.
unsigned gather(std::uint64_t flags) { return unsigned(((flags >> 7) * 0x0102040810204080ull) >> 56); }

Masks16 masks16(const char *p)
{
    Masks16 m;
    for (int half = 0; half < 2; ++half) {
        std::uint64_t w;
        std::memcpy(&w, p + 8 * half, 8);
        const int shift = 8 * half;
        m.colon |= gather(bytesEqual(w, ':')) << shift;
        m.feed |= gather(bytesEqual(w, '\n')) << shift;
        m.backtick |= gather(bytesEqual(w, '`')) << shift;
        m.high |= gather(w & kHigh) << shift;
        m.continuation |= gather(w & ~(w << 1) & kHigh) << shift;
        m.lead4 |= gather(w & (w << 1) & (w << 2) & (w << 3) & kHigh) << shift;
    }
    return m;
}
#endif

// Bits set in a 16-bit mask (std::popcount is a library call without -mpopcnt).
std::size_t popcount16(unsigned x)
{
    x -= (x >> 1) & 0x5555u;
    x = (x & 0x3333u) + ((x >> 2) & 0x3333u);
    x = (x + (x >> 4)) & 0x0F0Fu;
    return (x + (x >> 8)) & 0x1Fu;
}

constexpr std::size_t kMinLine = 8;

// What the estimate needs of a text, in one pass, sixteen bytes at a time:
// - units: JavaScript's String.length (UTF-16 code units; the seed is JavaScript): every byte but a
//   continuation byte starts a code point, and a 4-byte lead adds the second unit of a surrogate pair;
// - the positions of "://" (for the URL count) and whether any backtick occurs (fences are only
//   counted then);
// - the lines (split at line feeds, trimmed, at least 8 characters) and how many of them already
//   appeared earlier in the text (the repetition factor), hashed as the line feeds are found.
struct Measure {
    std::size_t units = 0;
    bool backtick = false;
    std::size_t lines = 0, repeated = 0;
};

Measure measure(std::string_view s, SeenSet &seen, std::vector<std::size_t> &schemeEnds)
{
    Measure r;
    schemeEnds.clear();
    seen.clear();
    std::size_t lineStart = 0;
    auto endLine = [&](std::size_t end) {
        const std::string_view line = trim(s.substr(lineStart, end - lineStart));
        lineStart = end + 1;
        if (line.size() < kMinLine)
            return;
        ++r.lines;
        if (!seen.insert(line))
            ++r.repeated;
    };
    auto colonAt = [&s, &schemeEnds](std::size_t i) {
        if (i + 2 < s.size() && s[i + 1] == '/' && s[i + 2] == '/')
            schemeEnds.push_back(i);
    };
    // Kept out of the lambdas' captures, so they stay in registers.
    std::size_t units = 0;
    unsigned backticks = 0;
    std::size_t i = 0;
    for (; i + 16 <= s.size(); i += 16) {
        const Masks16 m = masks16(s.data() + i);
        units += 16;
        if (m.high)
            units += popcount16(m.lead4) - popcount16(m.continuation);
        backticks |= m.backtick;
        for (unsigned c = m.colon; c; c &= c - 1)
            colonAt(i + std::size_t(std::countr_zero(c)));
        for (unsigned f = m.feed; f; f &= f - 1)
            endLine(i + std::size_t(std::countr_zero(f)));
    }
    for (; i < s.size(); ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        units += ((c & 0xC0) != 0x80 ? 1 : 0) + (c >= 0xF0 ? 1 : 0);
        backticks |= c == '`' ? 1 : 0;
        if (c == ':')
            colonAt(i);
        else if (c == '\n')
            endLine(i);
    }
    r.units = units;
    r.backtick = backticks != 0;
    if (lineStart < s.size())
        endLine(s.size());
    return r;
}

// Text without two qualifying lines: 8-byte shingles taken every 8 bytes.
double shingleRepetition(std::string_view text, SeenSet &seen)
{
    constexpr std::size_t kShingle = 8;
    if (text.size() < 32 * kShingle)
        return 0.0;
    seen.clear();
    std::size_t total = 0, repeated = 0;
    for (std::size_t p = 0; p + kShingle <= text.size(); p += kShingle) {
        ++total;
        std::uint64_t w;
        std::memcpy(&w, text.data() + p, kShingle);
        if (!seen.insertWord(w))
            ++repeated;
    }
    return total ? double(repeated) / double(total) : 0.0;
}

// Per thread: the line set and the "://" positions, reused for every text.
struct Scratch {
    SeenSet seen;
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

} // namespace

double repetition(std::string_view text)
{
    thread_local Scratch scratch;
    const Measure m = measure(text, scratch.seen, scratch.schemeEnds);
    return scratch.repetition(text, m);
}

std::int64_t estimateText(std::string_view text)
{
    if (text.empty())
        return 0;
    thread_local Scratch scratch;
    const Measure m = measure(text, scratch.seen, scratch.schemeEnds);
    const auto base = static_cast<std::int64_t>((m.units + 3) / 4);
    const auto codeBlocks = static_cast<std::int64_t>(m.backtick ? countSubstr(text, "```") / 2 : 0);
    const auto urls = static_cast<std::int64_t>(countUrls(text, scratch.schemeEnds));
    const double rep = scratch.repetition(text, m);
    const auto repeatDiscount = static_cast<std::int64_t>(std::floor(double(base) * rep * 0.1));
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
