// SPDX-License-Identifier: MIT
// The estimator's one pass over a text (see Measure in tokens/estimator_internal.h). A chunk of 16 bytes
// (SSE2, or 8-byte words without it) or 32 bytes (AVX2, chosen at run time where the processor has
// it) becomes bit masks, one bit per byte; the line ends, the trimming of each line and the code
// unit count are then bit operations on those masks, the same for every chunk width. Only the
// trimmed lines of at least kMinLine bytes are read again (hashed into the seen set), or, for a
// text whose lines are known to differ, listed.
#include "core/tokens/estimator.h"
#include "core/tokens/estimator_internal.h"

#include <atomic>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#define CL_HAVE_AVX2_SCAN 1
#endif

namespace cl::tokens::detail {

namespace {

// One chunk's flags, bit k for byte k.
struct Chunk {
    std::uint64_t high = 0;         // bytes >= 0x80
    std::uint64_t continuation = 0; // 10xxxxxx
    std::uint64_t lead4 = 0;        // >= 0xF0: a code point outside the BMP, two UTF-16 units
    std::uint64_t colon = 0, feed = 0, backtick = 0;
    std::uint64_t nonspace = 0; // not ' ' \t \n \v \f \r (a line feed is a space)
};

constexpr std::size_t kNone = std::size_t(-1);

// Bits set (std::popcount is a library call without -mpopcnt; only non-ASCII chunks count them).
[[gnu::always_inline]] inline std::size_t bitCount(std::uint64_t x)
{
    x -= (x >> 1) & 0x5555555555555555ull;
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Full;
    return std::size_t((x * 0x0101010101010101ull) >> 56);
}

// The state the pass carries from chunk to chunk. Everything is inlined into each width's loop.
// Lines receive the trimmed lines of at least kMinLine bytes: a SeenSet (repeats counted) or a
// LineList (only listed).
template <class Lines> class Scanner
{
public:
    Scanner(std::string_view s, Lines &seen, std::vector<std::size_t> &schemeEnds)
        : m_s(s)
        , m_seen(seen)
        , m_schemeEnds(schemeEnds)
    {
        m_schemeEnds.clear();
        m_seen.clear(s.data(), s.size());
    }

    // The chunk starting at byte i: width bytes, `valid` of them real (the text's end pads the last).
    [[gnu::always_inline]] inline void chunk(std::size_t i, const Chunk &m, std::size_t valid)
    {
        m_units += valid;
        if (m.high)
            m_units += bitCount(m.lead4) - bitCount(m.continuation);
        m_backticks |= m.backtick;
        for (std::uint64_t c = m.colon; c; c &= c - 1) {
            const std::size_t at = i + std::size_t(std::countr_zero(c));
            if (at + 2 < m_s.size() && m_s[at + 1] == '/' && m_s[at + 2] == '/')
                m_schemeEnds.push_back(at);
        }
        for (std::uint64_t f = m.feed; f; f &= f - 1) {
            const int k = std::countr_zero(f);
            extend(i, m.nonspace & m_from & ((std::uint64_t(1) << k) - 1));
            if (m_first != kNone)
                line();
            m_first = kNone;
            m_from = ~std::uint64_t(0) << k << 1; // the next line starts after the feed
        }
        extend(i, m.nonspace & m_from);
        m_from = ~std::uint64_t(0);
    }

    Measure finish()
    {
        if (m_first != kNone) // a last line without a final feed
            line();
        m_result.units = m_units;
        m_result.backtick = m_backticks != 0;
        return m_result;
    }

private:
    // Non-space bytes of the current line in the chunk at i: the first one opens the trimmed line
    // (when none did yet), the last one is its end so far.
    [[gnu::always_inline]] inline void extend(std::size_t i, std::uint64_t bits)
    {
        if (!bits)
            return;
        if (m_first == kNone)
            m_first = i + std::size_t(std::countr_zero(bits));
        m_last = i + std::size_t(63 - std::countl_zero(bits));
    }

    [[gnu::always_inline]] inline void line()
    {
        const std::size_t length = m_last + 1 - m_first;
        if (length < kMinLine)
            return;
        ++m_result.lines;
        if (!m_seen.insert(m_s.substr(m_first, length)))
            ++m_result.repeated;
    }

    std::string_view m_s;
    Lines &m_seen;
    std::vector<std::size_t> &m_schemeEnds;
    Measure m_result;
    std::size_t m_units = 0;
    std::uint64_t m_backticks = 0;
    std::size_t m_first = kNone, m_last = 0;  // the current line's first and last non-space bytes
    std::uint64_t m_from = ~std::uint64_t(0); // bits of the current chunk at or after the line's start
};

#if defined(__SSE2__)
constexpr std::size_t kNarrow = 16;

Chunk narrowChunk(const char *p)
{
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p));
    auto mask = [](__m128i x) { return std::uint64_t(unsigned(_mm_movemask_epi8(x))); };
    Chunk m;
    m.colon = mask(_mm_cmpeq_epi8(v, _mm_set1_epi8(':')));
    m.feed = mask(_mm_cmpeq_epi8(v, _mm_set1_epi8('\n')));
    m.backtick = mask(_mm_cmpeq_epi8(v, _mm_set1_epi8('`')));
    const __m128i control = _mm_sub_epi8(v, _mm_set1_epi8(9)); // \t..\r become 0..4
    const __m128i space = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')),
                                       _mm_cmpeq_epi8(_mm_min_epu8(control, _mm_set1_epi8(4)), control));
    m.nonspace = ~mask(space) & 0xFFFFu;
    m.high = mask(v);
    if (m.high) {
        const __m128i top2 = _mm_and_si128(v, _mm_set1_epi8(char(0xC0)));
        m.continuation = mask(_mm_cmpeq_epi8(top2, _mm_set1_epi8(char(0x80))));
        m.lead4 = mask(_mm_cmpeq_epi8(_mm_max_epu8(v, _mm_set1_epi8(char(0xF0))), v));
    }
    return m;
}
#else
constexpr std::size_t kNarrow = 8;
constexpr std::uint64_t kHigh = 0x8080808080808080ull;
constexpr std::uint64_t kLow7 = 0x7F7F7F7F7F7F7F7Full;

// Bit 7 set in each byte of w equal to c (exact: no false positives from borrows).
std::uint64_t bytesEqual(std::uint64_t w, unsigned char c)
{
    const std::uint64_t x = w ^ (0x0101010101010101ull * c);
    return ~(((x & kLow7) + kLow7) | x) & kHigh;
}

// Bit 7 of each byte of a flag word gathered into the low eight bits.
std::uint64_t gather(std::uint64_t flags) { return ((flags >> 7) * 0x0102040810204080ull) >> 56; }

// Without SSE2 the narrow chunk is one 8-byte word.
Chunk narrowChunk(const char *p)
{
    const std::uint64_t w = load64(p);
    Chunk m;
    m.colon = gather(bytesEqual(w, ':'));
    m.feed = gather(bytesEqual(w, '\n'));
    m.backtick = gather(bytesEqual(w, '`'));
    std::uint64_t space = bytesEqual(w, ' ');
    for (unsigned char c = '\t'; c <= '\r'; ++c)
        space |= bytesEqual(w, c);
    m.nonspace = ~gather(space) & 0xFFu;
    m.high = gather(w & kHigh);
    m.continuation = gather(w & ~(w << 1) & kHigh);
    m.lead4 = gather(w & (w << 1) & (w << 2) & (w << 3) & kHigh);
    return m;
}
#endif

// The text's last bytes (fewer than a chunk), zero-padded: zero bytes set no flag but nonspace.
template <std::size_t W, class Scan, class Load> void lastChunk(Scan &scan, std::string_view s, std::size_t i, Load load)
{
    const std::size_t rest = s.size() - i;
    if (rest == 0)
        return;
    alignas(32) char pad[W] = {};
    std::memcpy(pad, s.data() + i, rest);
    Chunk m = load(pad);
    m.nonspace &= (std::uint64_t(1) << rest) - 1;
    scan.chunk(i, m, rest);
}

template <class Lines> Measure measureNarrow(std::string_view s, Lines &seen, std::vector<std::size_t> &schemeEnds)
{
    Scanner<Lines> scan(s, seen, schemeEnds);
    std::size_t i = 0;
    for (; i + kNarrow <= s.size(); i += kNarrow)
        scan.chunk(i, narrowChunk(s.data() + i), kNarrow);
    lastChunk<kNarrow>(scan, s, i, narrowChunk);
    return scan.finish();
}

#ifdef CL_HAVE_AVX2_SCAN
#define CL_AVX2 gnu::target("avx2,bmi,bmi2,popcnt")

[[CL_AVX2]] inline std::uint64_t mask(__m256i x)
{
    return std::uint64_t(unsigned(_mm256_movemask_epi8(x)));
}

[[CL_AVX2]] Chunk wideChunk(const char *p)
{
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p));
    Chunk m;
    m.colon = mask(_mm256_cmpeq_epi8(v, _mm256_set1_epi8(':')));
    m.feed = mask(_mm256_cmpeq_epi8(v, _mm256_set1_epi8('\n')));
    m.backtick = mask(_mm256_cmpeq_epi8(v, _mm256_set1_epi8('`')));
    const __m256i control = _mm256_sub_epi8(v, _mm256_set1_epi8(9));
    const __m256i space = _mm256_or_si256(_mm256_cmpeq_epi8(v, _mm256_set1_epi8(' ')),
                                          _mm256_cmpeq_epi8(_mm256_min_epu8(control, _mm256_set1_epi8(4)), control));
    m.nonspace = ~mask(space) & 0xFFFFFFFFu;
    m.high = mask(v);
    if (m.high) {
        const __m256i top2 = _mm256_and_si256(v, _mm256_set1_epi8(char(0xC0)));
        m.continuation = mask(_mm256_cmpeq_epi8(top2, _mm256_set1_epi8(char(0x80))));
        m.lead4 = mask(_mm256_cmpeq_epi8(_mm256_max_epu8(v, _mm256_set1_epi8(char(0xF0))), v));
    }
    return m;
}

template <class Lines>
[[CL_AVX2]] Measure measureWide(std::string_view s, Lines &seen, std::vector<std::size_t> &schemeEnds)
{
    Scanner<Lines> scan(s, seen, schemeEnds);
    std::size_t i = 0;
    for (; i + 32 <= s.size(); i += 32)
        scan.chunk(i, wideChunk(s.data() + i), 32);
    lastChunk<32>(scan, s, i, wideChunk);
    return scan.finish();
}

bool cpuHasWide()
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2")
           && __builtin_cpu_supports("popcnt");
}
#else
bool cpuHasWide()
{
    return false;
}
#endif

std::atomic<bool> g_wide{cpuHasWide()};

} // namespace

template <class Lines> Measure measureWith(std::string_view s, Lines &lines, std::vector<std::size_t> &schemeEnds)
{
#ifdef CL_HAVE_AVX2_SCAN
    if (g_wide.load(std::memory_order_relaxed))
        return measureWide(s, lines, schemeEnds);
#endif
    return measureNarrow(s, lines, schemeEnds);
}

Measure measure(std::string_view s, SeenSet &seen, std::vector<std::size_t> &schemeEnds)
{
    return measureWith(s, seen, schemeEnds);
}

Measure measure(std::string_view s, LineList &lines, std::vector<std::size_t> &schemeEnds)
{
    return measureWith(s, lines, schemeEnds);
}

} // namespace cl::tokens::detail

namespace cl::tokens {

std::string_view scanName()
{
    if (detail::g_wide.load(std::memory_order_relaxed))
        return "avx2";
#if defined(__SSE2__)
    return "sse2";
#else
    return "portable";
#endif
}

bool setWideScan(bool wide)
{
    return detail::g_wide.exchange(wide && detail::cpuHasWide());
}

} // namespace cl::tokens
