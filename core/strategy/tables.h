// SPDX-License-Identifier: MIT
#pragma once

// Per-block facts of one transcript that several strategies need, computed on first use and kept:
// every strategy run on an Input shares them, and an Input made later for the same transcript can
// be handed the same TranscriptTables (the GUI keeps them from one preview to the next), so a
// second preview or a compare never scans the unchanged text again. Everything here depends on
// the transcript only, never on strategy parameters or analysis options. Thread-safe: compare()
// runs strategies on threads sharing one Input. A transcript is recognized by its address and
// message count: whoever keeps tables replaces them together with the transcript (the GUI holds
// both side by side), so that tables never meet another transcript at a reused address.

#include "core/model/transcript.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace cl::strategy {

// tokens::estimateBlock of every block of the messages with more than one block (a one-block
// message's block is its cached estimate minus the fixed overhead): block b of message i is
// values[first[i] + b].
struct BlockTokens {
    std::vector<std::size_t> first; // per message, then one past the end
    std::vector<std::int64_t> values;
};

// Of every block's text: code points (utf8Length) and line feeds, block b of message i at
// [first[i] + b]. The strategies cutting long tool results to a number of characters read only the
// bytes they keep; the ones replacing an output by its line count read no byte of it.
struct TextLengths {
    std::vector<std::size_t> first;  // per message, then one past the end
    std::vector<std::size_t> values; // code points
    std::vector<std::size_t> feeds;  // '\n' bytes
    // 1 when the text is at least kDistinctMin bytes and tokens::linesAreDistinct holds for it (a
    // snip of it is estimated without hashing its lines: tokens::estimateTextDistinctOutside).
    std::vector<std::uint8_t> distinct;
    static constexpr std::size_t kDistinctMin = 4096;
    // Lines as Python's str.splitlines() counts them for \n and \r\n endings ("a\nb\n" = 2,
    // "" = 0): line feeds, plus a last line without one (swe-agent's omission notes).
    std::size_t lines(const Transcript &t, std::size_t message, std::size_t block) const;
};

// The microcompact digest of a tool result (tooldigest::compactLine of its call and itself) and its
// estimate as a tool result block (tokens::estimateBlock).
struct CompactDigest {
    std::string line;
    std::int64_t tokens = 0;
};

// CompactDigests of the transcript's tool results, each made on its first request and kept (a digest
// depends only on the original call and result). Any thread may ask for any entry at any time.
class CompactDigests
{
public:
    explicit CompactDigests(const Transcript &t);
    // The digest of block `block` of message `message` (a tool result), made now if not yet.
    CompactDigest get(std::size_t message, std::size_t block) const;
    // Makes every tool result's digest (on two threads).
    void fill() const;
    std::size_t made() const;

private:
    const Transcript &m_t;
    std::vector<std::size_t> m_first;
    mutable std::vector<CompactDigest> m_entries;
    // 0: not made, 1: being stored by one thread, 2: stored (m_entries readable).
    mutable std::vector<std::atomic<std::uint8_t>> m_state;
};

CompactDigest makeCompactDigest(const Transcript &t, std::size_t message, std::size_t block);

class TranscriptTables
{
public:
    // Each table is built for `t` on its first request; asked for with another transcript (or the
    // same one after its messages changed) it is rebuilt for that one.
    std::shared_ptr<const BlockTokens> blockTokens(const Transcript &t);
    std::shared_ptr<const TextLengths> textLengths(const Transcript &t);
    std::shared_ptr<const CompactDigests> digests(const Transcript &t);
    // cl::contentChars of every message (gemini-cli measures its history in these), kept because
    // walking every tool input's JSON tree is a large part of a gemini-cli run.
    std::shared_ptr<const std::vector<std::size_t>> contentChars(const Transcript &t);
    // Builds every table now, digests included (the bench, and the GUI in the background after a
    // load so that the first preview does not wait for them).
    void prepare(const Transcript &t);
    // True once prepare(t) finished for t (and no other transcript was asked for since).
    bool prepared(const Transcript &t);

private:
    void adopt(const Transcript &t); // drops tables of another transcript (m_lock held)
    std::mutex m_lock;
    const Transcript *m_owner = nullptr;
    std::size_t m_messages = 0;
    std::shared_ptr<const BlockTokens> m_blockTokens;
    std::shared_ptr<const TextLengths> m_textLengths;
    std::shared_ptr<const CompactDigests> m_digests;
    std::shared_ptr<const std::vector<std::size_t>> m_contentChars;
    bool m_prepared = false;
};

} // namespace cl::strategy
