// SPDX-License-Identifier: MIT
#include "core/strategy/tables.h"

#include "core/util/parallel.h"
#include "core/strategy/summary/tooldigest.h"
#include "core/tokens/contentchars.h"
#include "core/tokens/estimator.h"

#include <algorithm>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace cl::strategy {

namespace {

// Code points (bytes that are not UTF-8 continuation bytes, as utf8Length counts them) and line
// feeds of a text in one pass, sixteen bytes at a time with per-lane counters folded by psadbw.
std::pair<std::size_t, std::size_t> countText(std::string_view s)
{
    std::size_t continuation = 0, feeds = 0, i = 0;
#if defined(__SSE2__)
    const __m128i nl = _mm_set1_epi8('\n'), low = _mm_set1_epi8(-64), zero = _mm_setzero_si128();
    auto fold = [&zero](__m128i lanes) {
        const __m128i sums = _mm_sad_epu8(lanes, zero);
        return static_cast<std::size_t>(_mm_cvtsi128_si32(sums)) + static_cast<std::size_t>(_mm_extract_epi16(sums, 4));
    };
    while (s.size() - i >= 16) {
        const std::size_t steps = std::min<std::size_t>((s.size() - i) / 16, 255);
        __m128i cont = zero, lines = zero;
        for (std::size_t k = 0; k < steps; ++k, i += 16) {
            const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i *>(s.data() + i));
            cont = _mm_sub_epi8(cont, _mm_cmplt_epi8(v, low)); // 10xxxxxx is -128..-65: a match is -1
            lines = _mm_sub_epi8(lines, _mm_cmpeq_epi8(v, nl));
        }
        continuation += fold(cont);
        feeds += fold(lines);
    }
#endif
    for (; i < s.size(); ++i) {
        continuation += static_cast<signed char>(s[i]) < -64 ? 1 : 0;
        feeds += s[i] == '\n' ? 1 : 0;
    }
    return {s.size() - continuation, feeds};
}

// first[] of a per-block table: messages for which counted(blocks) is false get no entries.
template <class Counted> std::vector<std::size_t> blockOffsets(const Transcript &t, Counted counted)
{
    const std::size_t n = t.messages.size();
    std::vector<std::size_t> first(n + 1);
    std::size_t count = 0;
    for (std::size_t i = 0; i < n; ++i) {
        first[i] = count;
        const std::size_t blocks = t.messages[i].blocks.size();
        count += counted(blocks) ? blocks : 0;
    }
    first[n] = count;
    return first;
}

// Calls fill(i) for every message with entries, on two threads in interleaved chunks (as
// tokens::estimateAll: large results cluster) when there are enough entries to be worth one.
template <class Fill> void forMessages(const std::vector<std::size_t> &first, Fill fill)
{
    const std::size_t n = first.size() - 1;
    parallelFor(n, 64, first[n] > 256 ? 0 : SIZE_MAX, [&](std::size_t i) {
        if (first[i + 1] > first[i])
            fill(i);
    });
}

} // namespace

std::size_t TextLengths::lines(const Transcript &t, std::size_t message, std::size_t block) const
{
    const std::string &text = t.messages[message].blocks[block].text;
    return text.empty() ? 0 : feeds[first[message] + block] + (text.back() != '\n' ? 1 : 0);
}

// ---- CompactDigests -----------------------------------------------------------------------------------------

CompactDigest makeCompactDigest(const Transcript &t, std::size_t message, std::size_t block)
{
    static const Block none;
    const Block &result = t.messages[message].blocks[block];
    const Block *use = &none;
    if (result.pairMessage >= 0 && static_cast<std::size_t>(result.pairMessage) < t.messages.size()) {
        const Message &pm = t.messages[static_cast<std::size_t>(result.pairMessage)];
        if (result.pairBlock >= 0 && static_cast<std::size_t>(result.pairBlock) < pm.blocks.size())
            use = &pm.blocks[static_cast<std::size_t>(result.pairBlock)];
    }
    CompactDigest d;
    d.line = tooldigest::compactLine(*use, result);
    Block estimate;
    estimate.type = BlockType::ToolResult;
    estimate.text = d.line;
    d.tokens = tokens::estimateBlock(estimate);
    return d;
}

CompactDigests::CompactDigests(const Transcript &t)
    : m_t(t)
    , m_first(blockOffsets(t, [](std::size_t) { return true; }))
    , m_entries(m_first.back())
    , m_state(m_first.back())
{
}

CompactDigest CompactDigests::get(std::size_t message, std::size_t block) const
{
    const std::size_t k = m_first[message] + block;
    if (m_state[k].load(std::memory_order_acquire) == 2)
        return m_entries[k];
    CompactDigest d = makeCompactDigest(m_t, message, block);
    // The first thread to finish stores it; another one that made it meanwhile just returns its own.
    std::uint8_t idle = 0;
    if (m_state[k].compare_exchange_strong(idle, 1, std::memory_order_acq_rel)) {
        m_entries[k] = d;
        m_state[k].store(2, std::memory_order_release);
    }
    return d;
}

void CompactDigests::fill() const
{
    forMessages(m_first, [this](std::size_t i) {
        const auto &blocks = m_t.messages[i].blocks;
        for (std::size_t b = 0; b < blocks.size(); ++b)
            if (blocks[b].type == BlockType::ToolResult && m_state[m_first[i] + b].load(std::memory_order_acquire) != 2)
                (void)get(i, b);
    });
}

std::size_t CompactDigests::made() const
{
    return static_cast<std::size_t>(std::count_if(m_state.begin(), m_state.end(), [](const auto &s) {
        return s.load(std::memory_order_acquire) == 2;
    }));
}

// ---- TranscriptTables --------------------------------------------------------------------------------

void TranscriptTables::adopt(const Transcript &t)
{
    if (m_owner == &t && m_messages == t.messages.size())
        return;
    m_blockTokens.reset();
    m_textLengths.reset();
    m_digests.reset();
    m_contentChars.reset();
    m_prepared = false;
    m_owner = &t;
    m_messages = t.messages.size();
}

std::shared_ptr<const BlockTokens> TranscriptTables::blockTokens(const Transcript &t)
{
    const std::lock_guard<std::mutex> guard(m_lock);
    adopt(t);
    if (!m_blockTokens) {
        auto table = std::make_shared<BlockTokens>();
        table->first = blockOffsets(t, [](std::size_t blocks) { return blocks > 1; });
        table->values.assign(table->first.back(), 0);
        forMessages(table->first, [&](std::size_t i) {
            const auto &blocks = t.messages[i].blocks;
            for (std::size_t b = 0; b < blocks.size(); ++b)
                table->values[table->first[i] + b] = tokens::estimateBlock(blocks[b]);
        });
        m_blockTokens = std::move(table);
    }
    return m_blockTokens;
}

std::shared_ptr<const TextLengths> TranscriptTables::textLengths(const Transcript &t)
{
    const std::lock_guard<std::mutex> guard(m_lock);
    adopt(t);
    if (!m_textLengths) {
        auto table = std::make_shared<TextLengths>();
        table->first = blockOffsets(t, [](std::size_t) { return true; });
        table->values.assign(table->first.back(), 0);
        table->feeds.assign(table->first.back(), 0);
        table->distinct.assign(table->first.back(), 0);
        forMessages(table->first, [&](std::size_t i) {
            const auto &blocks = t.messages[i].blocks;
            for (std::size_t b = 0; b < blocks.size(); ++b) {
                const std::string &text = blocks[b].text;
                const auto [points, feeds] = countText(text);
                table->values[table->first[i] + b] = points;
                table->feeds[table->first[i] + b] = feeds;
                if (text.size() >= TextLengths::kDistinctMin)
                    table->distinct[table->first[i] + b] = tokens::linesAreDistinct(text) ? 1 : 0;
            }
        });
        m_textLengths = std::move(table);
    }
    return m_textLengths;
}

std::shared_ptr<const CompactDigests> TranscriptTables::digests(const Transcript &t)
{
    const std::lock_guard<std::mutex> guard(m_lock);
    adopt(t);
    if (!m_digests)
        m_digests = std::make_shared<const CompactDigests>(t);
    return m_digests;
}

std::shared_ptr<const std::vector<std::size_t>> TranscriptTables::contentChars(const Transcript &t)
{
    const std::lock_guard<std::mutex> guard(m_lock);
    adopt(t);
    if (!m_contentChars) {
        auto table = std::make_shared<std::vector<std::size_t>>(t.messages.size());
        parallelFor(t.messages.size(), 64, 256, [&](std::size_t i) { (*table)[i] = cl::contentChars(t.messages[i]); });
        m_contentChars = std::move(table);
    }
    return m_contentChars;
}

void TranscriptTables::prepare(const Transcript &t)
{
    (void)blockTokens(t);
    (void)textLengths(t);
    (void)contentChars(t);
    digests(t)->fill();
    const std::lock_guard<std::mutex> guard(m_lock);
    m_prepared = m_owner == &t && m_messages == t.messages.size() && m_blockTokens && m_textLengths && m_digests
                 && m_contentChars;
}

bool TranscriptTables::prepared(const Transcript &t)
{
    const std::lock_guard<std::mutex> guard(m_lock);
    return m_prepared && m_owner == &t && m_messages == t.messages.size();
}

} // namespace cl::strategy
