// SPDX-License-Identifier: MIT
#pragma once
// Internals of the seed 001 estimator shared by core/tokens/estimator.cpp (the formula) and
// core/tokens/estimator_scan.cpp (the one pass over a text, with a 32-byte AVX2 variant chosen at run time).

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

namespace cl::tokens::detail {

inline std::uint64_t mix(std::uint64_t h)
{
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDull;
    h ^= h >> 33;
    return h;
}

inline std::uint64_t load64(const char *p)
{
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    return w;
}

// Hash of a byte string, sixteen bytes at a time in two independent lanes (the last word read
// overlapping when the length is not a multiple of eight). Only speed depends on its quality:
// every hit is confirmed by comparing the bytes.
inline std::uint64_t hashBytes(const char *p, std::size_t n)
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

// The lines (or 8-byte shingles) seen so far in one text, as offsets into it: open addressing in
// 16-byte slots, reused by the thread for every text (a generation number empties it without
// touching the slots). A text uses only as many slots as its size suggests (one line per 32 bytes,
// at least 256 slots), doubling them when it has more, so that a short text's lookups stay in a few
// cache-resident kilobytes however large the table grew for an earlier one.
class SeenSet
{
public:
    // Empties the set for a new text of `size` bytes starting at base.
    void clear(const char *base, std::size_t size)
    {
        m_base = base;
        nextGeneration();
        m_count = 0;
        m_mask = std::bit_ceil(std::clamp<std::size_t>(size / 16, kMinSlots, kMaxStart)) - 1;
        if (m_slots.size() <= m_mask)
            m_slots.resize(m_mask + 1);
    }
    // True when the bytes (a part of the text) were not in the set yet.
    bool insert(std::string_view bytes)
    {
        return insert(hashBytes(bytes.data(), bytes.size()), std::size_t(bytes.data() - m_base), bytes.size());
    }
    // A shingle: the 8 bytes at p (in the text), hashed as one word.
    bool insertWord(const char *p)
    {
        return insert(mix(load64(p) ^ 0x2545F4914F6CDD1Dull), std::size_t(p - m_base), 8);
    }
    // Drops a large table after a huge text, so an idle thread does not keep it.
    void trim()
    {
        if (m_slots.size() > (std::size_t(1) << 12)) {
            std::vector<Slot>().swap(m_slots);
            m_count = 0;
            m_mask = 0;
        }
    }

private:
    static constexpr std::size_t kMinSlots = 256, kMaxStart = std::size_t(1) << 12;
    static constexpr unsigned kGenBits = 16;
    struct Slot {
        std::uint64_t where = 0; // offset in the text << kGenBits | generation
        std::uint32_t size = 0;
        std::uint32_t hash = 0; // low bits of the hash (the index is taken from them)
    };

    std::uint64_t generation(const Slot &s) const { return s.where & ((std::uint64_t(1) << kGenBits) - 1); }

    void nextGeneration()
    {
        if (++m_gen == (std::uint64_t(1) << kGenBits)) { // wrapped: stale slots could look current
            for (auto &s : m_slots)
                s.where = 0;
            m_gen = 1;
        }
    }

    bool insert(std::uint64_t h, std::size_t offset, std::size_t size)
    {
        if ((m_count + 1) * 2 > m_mask + 1)
            grow();
        const auto h32 = static_cast<std::uint32_t>(h);
        const char *data = m_base + offset;
        for (std::size_t i = h32 & m_mask;; i = (i + 1) & m_mask) {
            Slot &s = m_slots[i];
            if (generation(s) != m_gen) {
                s = {std::uint64_t(offset) << kGenBits | m_gen, std::uint32_t(size), h32};
                ++m_count;
                return true;
            }
            if (s.hash == h32 && s.size == size) {
                const char *other = m_base + (s.where >> kGenBits);
                if (size == 8 ? load64(other) == load64(data) : std::memcmp(other, data, size) == 0)
                    return false;
            }
        }
    }

    // Doubles the slots in use: the current entries are put aside, the generation moves on, and
    // they go back in with the wider mask.
    void grow()
    {
        m_moving.clear();
        for (std::size_t i = 0; i <= m_mask; ++i)
            if (generation(m_slots[i]) == m_gen)
                m_moving.push_back(m_slots[i]);
        const std::size_t capacity = (m_mask + 1) * 2;
        if (m_slots.size() < capacity)
            m_slots.resize(capacity);
        nextGeneration();
        m_mask = capacity - 1;
        for (Slot s : m_moving) {
            std::size_t i = s.hash & m_mask;
            while (generation(m_slots[i]) == m_gen)
                i = (i + 1) & m_mask;
            s.where = (s.where >> kGenBits) << kGenBits | m_gen;
            m_slots[i] = s;
        }
    }

    std::vector<Slot> m_slots;
    std::vector<Slot> m_moving;
    const char *m_base = nullptr;
    std::size_t m_count = 0;
    std::size_t m_mask = 0;
    std::uint64_t m_gen = 0;
};

// The lines of one text in order, as (offset, size): what the pass gives a caller that knows
// most of them are different (estimateTextDistinctOutside), so that no line is hashed.
class LineList
{
public:
    struct Line {
        std::size_t offset = 0, size = 0;
    };
    void clear(const char *base, std::size_t)
    {
        m_base = base;
        m_lines.clear();
    }
    bool insert(std::string_view bytes)
    {
        m_lines.push_back({std::size_t(bytes.data() - m_base), bytes.size()});
        return true; // counted as new: the caller counts the repeats
    }
    const std::vector<Line> &lines() const { return m_lines; }
    void trim()
    {
        if (m_lines.capacity() > (std::size_t(1) << 16))
            std::vector<Line>().swap(m_lines);
    }

private:
    const char *m_base = nullptr;
    std::vector<Line> m_lines;
};

// Lines shorter than this (after trimming) are not counted for repetition.
constexpr std::size_t kMinLine = 8;

// What the estimate needs of a text, in one pass:
// - units: JavaScript's String.length (UTF-16 code units; the seed is JavaScript): every byte but a
//   continuation byte starts a code point, and a 4-byte lead adds the second unit of a surrogate pair;
// - the positions of "://" (for the URL count) and whether any backtick occurs (fences are only
//   counted then);
// - the lines (split at line feeds, trimmed of ' ' \t \n \v \f \r, at least kMinLine bytes) and how
//   many of them already appeared earlier in the text (the repetition factor).
struct Measure {
    std::size_t units = 0;
    bool backtick = false;
    std::size_t lines = 0, repeated = 0;
};

// The pass itself (core/tokens/estimator_scan.cpp): schemeEnds receives the "://" positions, ascending;
// seen is cleared and left holding the text's lines.
Measure measure(std::string_view s, SeenSet &seen, std::vector<std::size_t> &schemeEnds);
// The same pass listing the lines instead (repeated stays 0).
Measure measure(std::string_view s, LineList &lines, std::vector<std::size_t> &schemeEnds);

} // namespace cl::tokens::detail
