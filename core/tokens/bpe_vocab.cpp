// SPDX-License-Identifier: MIT
// The rank table and the heap-based merge for long pieces.

#include "core/tokens/bpe_internal.h"

#include <algorithm>
#include <functional>

namespace cl::bpe::detail {

void RankTable::reserveFor(std::size_t fileSize)
{
    // A line is at least "<4 base64 chars> <rank>\n"; o200k_base averages 18 bytes a line, of which
    // about 7 are token bytes. Reserving only claims address space; nothing is touched.
    m_byRank.reserve(fileSize / 16);
    m_arena.reserve(fileSize / 2);
}

bool RankTable::insert(std::string_view bytes, Rank rank)
{
    // Duplicate byte strings are detected in finish(); here only duplicate ranks.
    if (rank >= m_byRank.size())
        m_byRank.resize(static_cast<std::size_t>(rank) + 1);
    if (m_byRank[rank].len != 0)
        return false;
    m_byRank[rank] = {static_cast<std::uint32_t>(m_arena.size()), static_cast<std::uint32_t>(bytes.size())};
    m_arena.append(bytes);
    ++m_count;
    return true;
}

bool RankTable::insertShort(std::vector<ShortSlot> &t, std::size_t mask, std::uint32_t k, Rank r)
{
    std::size_t i = shortHash(k) & mask;
    while (t[i].rank != kNoRank) {
        if (t[i].key == k)
            return false;
        i = (i + 1) & mask;
    }
    t[i] = {k, r};
    return true;
}

bool RankTable::finish()
{
    // Load factor <= 0.5 keeps probe chains short.
    auto capacityFor = [](std::size_t n) {
        std::size_t cap = 16;
        while (cap < n * 2 + 1)
            cap <<= 1;
        return cap;
    };
    std::size_t counts[5] = {};
    for (const Ref &ref : m_byRank)
        if (ref.len != 0)
            ++counts[std::min<std::size_t>(ref.len, 5) - 1];
    m_three.assign(capacityFor(counts[2]), ShortSlot{});
    m_threeMask = m_three.size() - 1;
    m_four.assign(capacityFor(counts[3]), ShortSlot{});
    m_fourMask = m_four.size() - 1;
    // The long-token slots are 8 bytes, so a fuller table (load factor <= 0.6) still probes within a
    // cache line or two.
    std::size_t longCap = 16;
    while (longCap * 3 < counts[4] * 5)
        longCap <<= 1;
    m_slots.assign(longCap, Slot{});
    m_mask = m_slots.size() - 1;
    for (Rank r = 0; r < m_byRank.size(); ++r) {
        const Ref ref = m_byRank[r];
        if (ref.len == 0 || ref.len > 4)
            continue;
        const char *p = m_arena.data() + ref.off;
        bool fresh = true;
        if (ref.len == 1) {
            fresh = m_one[static_cast<unsigned char>(p[0])] == kNoRank;
            m_one[static_cast<unsigned char>(p[0])] = r;
        } else if (ref.len == 2) {
            Rank &slot = m_two[static_cast<unsigned char>(p[0]) | (static_cast<unsigned>(static_cast<unsigned char>(p[1])) << 8)];
            fresh = slot == kNoRank;
            slot = r;
        } else if (ref.len == 3) {
            fresh = insertShort(m_three, m_threeMask, load3(p), r);
        } else {
            std::uint32_t k;
            std::memcpy(&k, p, 4);
            fresh = insertShort(m_four, m_fourMask, k, r);
        }
        if (!fresh)
            return false; // the same bytes under two ranks: not a BPE vocabulary
    }
    // Long tokens in blocks: hash a block and prefetch its slots and filter words first, so the cache
    // misses of the random inserts overlap instead of coming one after another (o200k_base: ~3 ms
    // instead of 5 to 9).
    constexpr std::size_t kBlock = 32;
    Rank ranks[kBlock];
    std::uint64_t hashes[kBlock];
    for (Rank r = 0; r < m_byRank.size();) {
        std::size_t k = 0;
        for (; k < kBlock && r < m_byRank.size(); ++r) {
            const Ref ref = m_byRank[r];
            if (ref.len <= 4)
                continue;
            const std::uint64_t h = hashBytes(m_arena.data() + ref.off, ref.len);
            __builtin_prefetch(&m_slots[h & m_mask], 1);
            __builtin_prefetch(&m_filter[((h >> 40) & kFilterMask) >> 6], 1);
            ranks[k] = r;
            hashes[k++] = h;
        }
        for (std::size_t j = 0; j < k; ++j) {
            const std::uint64_t h = hashes[j];
            const Ref ref = m_byRank[ranks[j]];
            const std::uint64_t bit = (h >> 40) & kFilterMask;
            m_filter[bit >> 6] |= std::uint64_t(1) << (bit & 63);
            const auto tag = static_cast<std::uint32_t>(h >> 32);
            std::size_t i = h & m_mask;
            while (m_slots[i].rank != kNoRank) {
                const Slot o = m_slots[i];
                if (o.tag == tag && m_byRank[o.rank].len == ref.len
                    && std::memcmp(m_arena.data() + m_byRank[o.rank].off, m_arena.data() + ref.off, ref.len) == 0)
                    return false; // the same bytes under two ranks: not a BPE vocabulary
                i = (i + 1) & m_mask;
            }
            m_slots[i] = {tag, ranks[j]};
        }
    }
    return true;
}

HeapScratch &heapScratch()
{
    thread_local HeapScratch s;
    return s;
}

// Same result as tiktoken's quadratic loop (lowest rank first, leftmost on ties), in O(n log n): a
// min-heap of (rank, start) over adjacent pairs, a linked list of parts, and lazy deletion of heap
// entries whose pair changed. Part i always starts at byte i, so the part index is its start; a part
// merged into its predecessor gets rank kNoRank, which no heap entry has, so its entries go stale too.
std::size_t mergeHeapImpl(const RankTable &t, const char *p, std::size_t n, HeapScratch &s)
{
    s.starts.clear();
    if (n == 0) {
        s.starts.push_back(0);
        return 0;
    }
    const auto end = static_cast<std::uint32_t>(n);
    s.next.resize(n);
    s.prev.resize(n);
    s.rank.resize(n);
    s.heap.clear();
    std::uint32_t *next = s.next.data();
    std::uint32_t *prev = s.prev.data();
    Rank *rank = s.rank.data();
    auto &heap = s.heap;
    for (std::uint32_t i = 0; i < end; ++i) {
        next[i] = i + 1;
        prev[i] = i == 0 ? end : i - 1;
        rank[i] = i + 1 < end ? t.find(p + i, 2) : kNoRank;
        if (rank[i] != kNoRank)
            heap.push_back((static_cast<std::uint64_t>(rank[i]) << 32) | i);
    }
    const std::greater<> after;
    std::make_heap(heap.begin(), heap.end(), after);
    auto push = [&](Rank r, std::uint32_t i) {
        heap.push_back((static_cast<std::uint64_t>(r) << 32) | i);
        std::push_heap(heap.begin(), heap.end(), after);
    };
    auto pairRank = [&](std::uint32_t i) -> Rank {
        const std::uint32_t j = next[i];
        return j == end ? kNoRank : t.find(p + i, next[j] - i);
    };
    std::size_t parts = n;
    while (!heap.empty()) {
        std::pop_heap(heap.begin(), heap.end(), after);
        const std::uint64_t top = heap.back();
        heap.pop_back();
        const auto i = static_cast<std::uint32_t>(top & 0xffffffffu);
        if (rank[i] != static_cast<Rank>(top >> 32))
            continue; // stale: the pair starting at i changed, or part i is gone
        const std::uint32_t j = next[i];
        rank[j] = kNoRank;
        next[i] = next[j];
        if (next[j] != end)
            prev[next[j]] = i;
        --parts;
        rank[i] = pairRank(i);
        if (rank[i] != kNoRank)
            push(rank[i], i);
        if (prev[i] != end) {
            const std::uint32_t h = prev[i];
            const Rank rh = pairRank(h);
            if (rh != rank[h]) {
                rank[h] = rh;
                if (rh != kNoRank)
                    push(rh, h);
            }
        }
    }
    s.starts.reserve(parts + 1);
    for (std::uint32_t i = 0; i != end; i = next[i])
        s.starts.push_back(i);
    s.starts.push_back(end);
    return parts;
}

} // namespace cl::bpe::detail
