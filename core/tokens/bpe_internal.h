// SPDX-License-Identifier: MIT
#pragma once

// Private pieces of the BPE tokenizer (core/bpe*.cpp only): the rank table, the merge loops and the
// regex pre-tokenizer.

#include "core/tokens/bpe.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

namespace cl::bpe::detail {

using Rank = std::uint32_t;
constexpr Rank kNoRank = 0xffffffffu;

inline std::uint64_t load64(const char *p)
{
    std::uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}

inline std::uint32_t load32(const char *p)
{
    std::uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}

// The tail is read with whole (overlapping) 8- or 4-byte loads: a memcpy of a variable length
// compiles to byte stores that the next 8-byte load must wait for. The length is part of the seed,
// so the overlap cannot make two different strings equal.
inline std::uint64_t hashBytes(const char *p, std::size_t n)
{
    std::uint64_t h = 0x9E3779B97F4A7C15ull ^ (n * 0xff51afd7ed558ccdull);
    std::uint64_t v = 0;
    if (n >= 8) {
        const char *last = p + n - 8;
        for (; p < last; p += 8) {
            h = (h ^ load64(p)) * 0xbf58476d1ce4e5b9ull;
            h ^= h >> 31;
        }
        v = load64(last);
    } else if (n >= 4) {
        v = load32(p) | (static_cast<std::uint64_t>(load32(p + n - 4)) << 32);
    } else if (n > 0) {
        v = static_cast<unsigned char>(p[0]) | (static_cast<std::uint64_t>(static_cast<unsigned char>(p[n / 2])) << 8)
            | (static_cast<std::uint64_t>(static_cast<unsigned char>(p[n - 1])) << 16);
    }
    h = (h ^ v) * 0x94d049bb133111ebull;
    h ^= h >> 29;
    return h;
}

// memcmp(a, b, n) == 0 without a library call for the usual token lengths.
inline bool equalBytes(const char *a, const char *b, std::size_t n)
{
    if (n >= 8 && n <= 16)
        return load64(a) == load64(b) && load64(a + n - 8) == load64(b + n - 8);
    if (n >= 4 && n < 8)
        return load32(a) == load32(b) && load32(a + n - 4) == load32(b + n - 4);
    return std::memcmp(a, b, n) == 0;
}

// Open-addressing table from token bytes to rank; keys live in one byte arena. A std::unordered_map of
// std::string is several times slower on the short lookups that dominate merging.
class RankTable
{
public:
    // Room for the tokens of a .tiktoken file of `fileSize` bytes (a guess: saves regrowing).
    void reserveFor(std::size_t fileSize);
    // Returns false when `rank` is already taken. Duplicate bytes are found by finish().
    bool insert(std::string_view bytes, Rank rank);
    // Builds the hash index; call once after the last insert. False when two ranks share their bytes.
    bool finish();

    Rank find(const char *p, std::size_t n) const
    {
        // Merging asks mostly for 2..4-byte strings: small dense tables keep those lookups in cache.
        switch (n) {
        case 1:
            return m_one[static_cast<unsigned char>(p[0])];
        case 2:
            return m_two[static_cast<unsigned char>(p[0]) | (static_cast<unsigned>(static_cast<unsigned char>(p[1])) << 8)];
        case 3:
            return findShort(m_three, m_threeMask, load3(p));
        case 4: {
            std::uint32_t k;
            std::memcpy(&k, p, 4);
            return findShort(m_four, m_fourMask, k);
        }
        default:
            return findLong(p, n);
        }
    }
    Rank find(std::string_view s) const { return find(s.data(), s.size()); }
    std::string_view bytes(Rank r) const
    {
        if (r >= m_byRank.size() || m_byRank[r].len == 0)
            return {};
        return {m_arena.data() + m_byRank[r].off, m_byRank[r].len};
    }
    std::size_t size() const { return m_count; }

private:
    struct ShortSlot {
        std::uint32_t key = 0;
        Rank rank = kNoRank; // kNoRank = empty
    };
    static std::uint32_t load3(const char *p)
    {
        return static_cast<unsigned char>(p[0]) | (static_cast<std::uint32_t>(static_cast<unsigned char>(p[1])) << 8)
               | (static_cast<std::uint32_t>(static_cast<unsigned char>(p[2])) << 16);
    }
    static std::size_t shortHash(std::uint32_t k) { return (static_cast<std::uint64_t>(k) * 0x9E3779B97F4A7C15ull) >> 32; }
    static Rank findShort(const std::vector<ShortSlot> &t, std::size_t mask, std::uint32_t k)
    {
        for (std::size_t i = shortHash(k) & mask;; i = (i + 1) & mask) {
            if (t[i].rank == kNoRank || t[i].key == k)
                return t[i].rank;
        }
    }
    static bool insertShort(std::vector<ShortSlot> &t, std::size_t mask, std::uint32_t k, Rank r);
    Rank findLong(const char *p, std::size_t n) const
    {
        const std::uint64_t h = hashBytes(p, n);
        // Most long lookups while merging miss; a small bit filter answers them without touching the
        // big table (which does not fit in cache).
        const std::uint64_t bit = (h >> 40) & kFilterMask;
        if (!(m_filter[bit >> 6] >> (bit & 63) & 1))
            return kNoRank;
        const auto tag = static_cast<std::uint32_t>(h >> 32);
        for (std::size_t i = h & m_mask;; i = (i + 1) & m_mask) {
            const Slot s = m_slots[i];
            if (s.rank == kNoRank)
                return kNoRank;
            if (s.tag == tag) {
                const Ref ref = m_byRank[s.rank];
                if (ref.len == n && equalBytes(m_arena.data() + ref.off, p, n))
                    return s.rank;
            }
        }
    }

    // Tokens of 5 bytes or more: 8-byte slots (a hash tag and the rank; the bytes are found through
    // m_byRank), so the table is 2 MB for o200k_base instead of 8 and is built faster.
    struct Slot {
        std::uint32_t tag = 0;
        Rank rank = kNoRank; // kNoRank = empty
    };
    struct Ref {
        std::uint32_t off = 0;
        std::uint32_t len = 0;
    };
    std::string m_arena;
    std::vector<Ref> m_byRank;
    static constexpr std::uint64_t kFilterMask = (1u << 22) - 1; // 4 Mbit = 512 KB
    std::vector<std::uint64_t> m_filter = std::vector<std::uint64_t>((kFilterMask + 1) / 64, 0);
    std::vector<Slot> m_slots;
    std::size_t m_mask = 0;
    std::vector<Rank> m_one = std::vector<Rank>(256, kNoRank);
    std::vector<Rank> m_two = std::vector<Rank>(65536, kNoRank);
    std::vector<ShortSlot> m_three, m_four;
    std::size_t m_threeMask = 0, m_fourMask = 0;
    std::size_t m_count = 0;
};

// Pieces shorter than this use tiktoken's quadratic loop on a stack buffer; longer ones the heap merge.
constexpr std::size_t kSimpleMergeLimit = 64;

// Calls sink(Rank) for each token of `piece` (not looked up whole), in order. Returns the token count.
template <class Sink>
std::size_t mergeSimple(const RankTable &t, const char *p, std::size_t n, Sink &&sink);
template <class Sink>
std::size_t mergeHeap(const RankTable &t, const char *p, std::size_t n, Sink &&sink);

struct NullSink {
    void operator()(Rank) const {}
};

// tiktoken's byte-pair encoding of one piece: whole-piece lookup first, then merge.
template <class Sink>
std::size_t encodePiece(const RankTable &t, const char *p, std::size_t n, Sink &&sink)
{
    const Rank whole = t.find(p, n);
    if (whole != kNoRank) {
        sink(whole);
        return 1;
    }
    return n < kSimpleMergeLimit ? mergeSimple(t, p, n, sink) : mergeHeap(t, p, n, sink);
}

// ---- merge loops --------------------------------------------------------------------------------

template <class Sink>
std::size_t mergeSimple(const RankTable &t, const char *p, std::size_t n, Sink &&sink)
{
    if (n == 0)
        return 0;
    if (n == 1) {
        sink(t.find(p, 1));
        return 1;
    }
    // parts[i] = start of part i and the rank of merging part i with part i+1; parts[len-1] is the end.
    struct Part {
        std::uint32_t start;
        Rank rank;
    };
    Part stackParts[kSimpleMergeLimit + 1];
    std::vector<Part> heapParts;
    Part *parts = stackParts;
    if (n + 1 > kSimpleMergeLimit + 1) { // only when called directly on a long piece (tests)
        heapParts.resize(n + 1);
        parts = heapParts.data();
    }
    std::size_t len = n + 1;
    for (std::size_t i = 0; i + 1 < n; ++i)
        parts[i] = {static_cast<std::uint32_t>(i), t.find(p + i, 2)};
    parts[n - 1] = {static_cast<std::uint32_t>(n - 1), kNoRank};
    parts[n] = {static_cast<std::uint32_t>(n), kNoRank};
    auto pairRank = [&](std::size_t i) -> Rank {
        // after a removal: merging part i with part i+1 spans [parts[i].start, parts[i+2].start)
        if (i + 2 >= len)
            return kNoRank;
        return t.find(p + parts[i].start, parts[i + 2].start - parts[i].start);
    };
    for (;;) {
        Rank best = kNoRank;
        std::size_t bi = 0;
        for (std::size_t i = 0; i + 1 < len; ++i) {
            if (parts[i].rank < best) {
                best = parts[i].rank;
                bi = i;
            }
        }
        if (best == kNoRank)
            break;
        std::memmove(parts + bi + 1, parts + bi + 2, (len - bi - 2) * sizeof(Part));
        --len;
        parts[bi].rank = pairRank(bi);
        if (bi > 0)
            parts[bi - 1].rank = pairRank(bi - 1);
    }
    for (std::size_t i = 0; i + 1 < len; ++i)
        sink(t.find(p + parts[i].start, parts[i + 1].start - parts[i].start));
    return len - 1;
}

// Buffers of the heap merge, one set per thread, reused from piece to piece.
struct HeapScratch {
    std::vector<std::uint32_t> next, prev; // linked list of the parts, by start offset
    std::vector<Rank> rank;                // rank of merging part i with its successor
    std::vector<std::uint64_t> heap;       // (rank << 32 | start), a min-heap
    std::vector<std::uint32_t> starts;     // the result: start offsets of the final parts, plus n
};
HeapScratch &heapScratch();
constexpr std::size_t kScratchKeep = 64 * 1024; // bytes of piece (about 1.5 MB of buffers)
// Fills s.starts; returns the number of parts.
std::size_t mergeHeapImpl(const RankTable &t, const char *p, std::size_t n, HeapScratch &s);

template <class Sink>
std::size_t mergeHeap(const RankTable &t, const char *p, std::size_t n, Sink &&sink)
{
    HeapScratch &s = heapScratch();
    const std::size_t count = mergeHeapImpl(t, p, n, s);
    for (std::size_t i = 0; i + 1 < s.starts.size(); ++i)
        sink(t.find(p + s.starts[i], s.starts[i + 1] - s.starts[i]));
    if (n > kScratchKeep)
        s = HeapScratch{}; // a huge piece's buffers are not kept for the rest of the thread's life
    return count;
}

// ---- pre-tokenizer ------------------------------------------------------------------------------

// o200k_base's split pattern hand-coded for ASCII text (see bpe_split.cpp for the pattern). Returns the
// end of the match that starts at `pos`, or 0 when any byte the regex would have to look at is not
// ASCII: then the caller asks PCRE2 for that one match, so letters, digits and white space outside
// ASCII keep PCRE2's Unicode tables. The regex has no look-behind, so each match depends only on the
// text from `pos` on and the two paths can alternate freely.
namespace o200k {

enum Class : unsigned char {
    kLower,   // a-z
    kUpper,   // A-Z
    kDigit,   // 0-9
    kSpace,   // ' '
    kBlank,   // \t \v \f: white space, and in [^\r\n\p{L}\p{N}]
    kNewline, // \r \n
    kPunct,   // the rest of ASCII, control characters included: not white space, letter or digit
    kHigh     // >= 0x80
};

struct ClassTable {
    Class c[256];
    constexpr ClassTable()
        : c()
    {
        for (int b = 0; b < 256; ++b) {
            if (b >= 0x80)
                c[b] = kHigh;
            else if (b >= 'a' && b <= 'z')
                c[b] = kLower;
            else if (b >= 'A' && b <= 'Z')
                c[b] = kUpper;
            else if (b >= '0' && b <= '9')
                c[b] = kDigit;
            else if (b == ' ')
                c[b] = kSpace;
            else if (b == '\t' || b == '\v' || b == '\f')
                c[b] = kBlank;
            else if (b == '\r' || b == '\n')
                c[b] = kNewline;
            else
                c[b] = kPunct;
        }
    }
};
inline constexpr ClassTable kClass;

inline Class classOf(const unsigned char *s, std::size_t n, std::size_t i) { return i < n ? kClass.c[s[i]] : kPunct; }
inline bool highAt(const unsigned char *s, std::size_t n, std::size_t i) { return i < n && s[i] >= 0x80; }

// [^\r\n\p{L}\p{N}]?[\p{Lu}..\p{M}]*[\p{Ll}..\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)? and the same with
// + and * swapped: in ASCII both are an upper-case run, a lower-case run, at least one letter in
// all, then a contraction. `i` is at the first letter (after the optional prefix).
inline std::size_t letters(const unsigned char *s, std::size_t n, std::size_t i)
{
    while (i < n && kClass.c[s[i]] == kUpper)
        ++i;
    while (i < n && kClass.c[s[i]] == kLower)
        ++i;
    if (i >= n)
        return i;
    if (s[i] != '\'')
        return s[i] >= 0x80 ? 0 : i; // a letter outside ASCII would continue the run
    if (i + 1 >= n)
        return i;
    const unsigned char a = s[i + 1];
    if (a >= 0x80)
        return 0; // caseless 's' also matches U+017F
    switch (a | 0x20) {
    case 's':
    case 't':
    case 'm':
    case 'd':
        return i + 2;
    case 'r':
    case 'v':
    case 'l':
        if (i + 2 >= n)
            return i;
        if (s[i + 2] >= 0x80)
            return 0;
        return (s[i + 2] | 0x20) == ((a | 0x20) == 'l' ? 'l' : 'e') ? i + 3 : i;
    default:
        return i;
    }
}

// ` ?[^\s\p{L}\p{N}]+[\r\n/]*`, `i` at the first character of the run.
inline std::size_t punctuation(const unsigned char *s, std::size_t n, std::size_t i)
{
    while (i < n && kClass.c[s[i]] == kPunct)
        ++i;
    if (highAt(s, n, i))
        return 0; // a symbol outside ASCII would continue the run
    while (i < n && (s[i] == '\r' || s[i] == '\n' || s[i] == '/'))
        ++i;
    return i;
}

// `\s*[\r\n]+|\s+(?!\S)|\s+` from `pos`, a white-space character.
inline std::size_t whiteSpace(const unsigned char *s, std::size_t n, std::size_t pos)
{
    std::size_t i = pos;
    std::size_t lastNewline = n;
    for (; i < n; ++i) {
        const Class c = kClass.c[s[i]];
        if (c == kNewline)
            lastNewline = i;
        else if (c != kSpace && c != kBlank)
            break;
    }
    if (highAt(s, n, i))
        return 0; // U+0085, U+00A0, U+2028... are white space too
    if (lastNewline != n)
        return lastNewline + 1; // up to and including the last line break of the run
    if (i == n || i - pos == 1)
        return i; // the whole run at the end of the text; a single blank
    return i - 1; // leaves the last blank to the next piece
}

inline std::size_t match(const unsigned char *s, std::size_t n, std::size_t pos)
{
    switch (kClass.c[s[pos]]) {
    case kLower:
    case kUpper:
        return letters(s, n, pos);
    case kDigit: {
        std::size_t i = pos + 1;
        while (i < n && i < pos + 3 && kClass.c[s[i]] == kDigit)
            ++i;
        return i < pos + 3 && highAt(s, n, i) ? 0 : i; // other scripts' digits are \p{N} too
    }
    case kPunct:
    case kSpace:
    case kBlank: {
        // One prefix character then letters; else a space may lead punctuation; else white space.
        const Class next = classOf(s, n, pos + 1);
        if (next == kLower || next == kUpper)
            return letters(s, n, pos + 1);
        if (next == kHigh)
            return 0;
        const Class c = kClass.c[s[pos]];
        if (c == kPunct)
            return punctuation(s, n, pos);
        if (c == kSpace && next == kPunct && pos + 1 < n)
            return punctuation(s, n, pos + 1);
        return whiteSpace(s, n, pos);
    }
    case kNewline:
        return whiteSpace(s, n, pos);
    case kHigh:
        break;
    }
    return 0;
}

} // namespace o200k

class Splitter
{
public:
    explicit Splitter(Encoding e);
    ~Splitter();
    Splitter(const Splitter &) = delete;
    Splitter &operator=(const Splitter &) = delete;
    bool ok() const { return m_code != nullptr; }
    const std::string &error() const { return m_error; }

    // Calls piece(const char*, size_t) for every regex match and for every run of bytes the regex
    // cannot match (invalid UTF-8), in order, covering the whole text. `fastPath` false runs PCRE2
    // on everything (tests compare the two).
    template <class F>
    void forEach(std::string_view text, F &&piece, bool fastPath = true) const
    {
        const auto *s = reinterpret_cast<PCRE2_SPTR>(text.data());
        const std::size_t n = text.size();
        const bool ascii = fastPath && m_encoding == Encoding::O200kBase;
        std::size_t pos = 0;
        while (pos < n) {
            if (ascii) {
                if (const std::size_t e = o200k::match(s, n, pos)) {
                    piece(text.data() + pos, e - pos);
                    pos = e;
                    continue;
                }
            }
            std::size_t b = 0, e = 0;
            if (!next(s, n, pos, b, e)) {
                piece(text.data() + pos, n - pos);
                return;
            }
            if (b > pos)
                piece(text.data() + pos, b - pos);
            if (e <= b) { // cannot happen with tiktoken's patterns; never loop forever
                e = b + 1;
            }
            piece(text.data() + b, e - b);
            pos = e;
        }
    }

    // Offsets where a regex match is guaranteed to start whatever precedes them and where no match
    // before them looks past them (see bpe_split.cpp), chosen near `parts` equal shares.
    std::vector<std::size_t> cutPoints(std::string_view text, int parts) const;

private:
    bool next(PCRE2_SPTR s, std::size_t n, std::size_t pos, std::size_t &b, std::size_t &e) const;

    Encoding m_encoding;
    pcre2_code *m_code = nullptr;
    bool m_jit = false;
    std::string m_error;
};

} // namespace cl::bpe::detail
