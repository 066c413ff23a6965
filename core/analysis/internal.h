// SPDX-License-Identifier: MIT
#pragma once

// Helpers shared by the analysis sources (not part of the public API): text scans, and the
// one-pass per-message summary every rule of analyze() reads, so that no rule re-walks the blocks,
// re-derives tool kinds or re-scans text (a 100 000-message transcript analyses in tens of ms).

#include "core/analysis/analysis.h"
#include "core/analysis/toolpaths.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cl::analysis::detail {

std::string_view trim(std::string_view s);

// A fixed set of needles searched at once, ASCII case-insensitively (see analysis/scan.cpp).
class Scanner
{
public:
    explicit Scanner(const std::vector<std::string> &needles);
    // Lowest index of a needle occurring in hay, or -1 (empty needles never match).
    int find(std::string_view hay) const;
    // Over m's text blocks (first `limit` bytes each): the first block holding a needle decides.
    int findInText(const Message &m, std::size_t limit) const;

private:
    static constexpr std::size_t kMaxSimdPairs = 40;
    struct Pair { // a needle prefix: lower-cased first two or three bytes
        std::uint8_t b0 = 0, b1 = 0, b2 = 0;
        bool hasB2 = false;               // false: a two-byte needle
        std::vector<std::size_t> needles; // ascending
    };
    bool matchAt(std::string_view hay, std::size_t pos, std::size_t k) const;
    std::vector<std::string> needles_; // lower-cased
    std::vector<std::size_t> singles_; // one-byte needles
    std::vector<Pair> pairs_;
};

// The tool-call readers the summaries share (core/analysis/toolpaths.h), under their old names here.
using analysis::forEachPatchPath;
using analysis::forEachToolPath;
using analysis::shellCommandView;

// Topic words are kept as the high 32 bits of their 64-bit hashes (analysis.h "topic change"):
// the set chosen per message is the same, and 32 of them fit in Message::textIndex.
using Word = std::uint32_t;

// The text scans of one message that depend only on its text and the scan options: what
// Message::textIndex caches (analysis/index.cpp). `key` identifies the options (0 when the words
// do not fit the cache, i.e. topicMaxWords > TextIndex::kMaxWords).
class TextScanner
{
public:
    explicit TextScanner(const AnalysisOptions &o);
    std::uint32_t key() const { return key_; }
    // Scans m's text blocks: keyword, fence, break phrase (user requests), topic words (sorted,
    // unique, at most topicMaxWords) into words; returns the text + tool result bytes.
    std::size_t scan(const Message &m, TextIndex &out, std::vector<Word> &words) const;
    // The cached index when it is current for these options, else nullptr.
    const TextIndex *cached(const Message &m, std::size_t bytes) const
    {
        const TextIndex &x = m.cache.textIndex;
        return key_ != 0 && x.key == key_ && x.bytes == std::uint32_t(bytes) ? &x : nullptr;
    }

private:
    const AnalysisOptions &o_;
    Scanner keywords_, breaks_;
    std::uint32_t key_ = 0;
    mutable std::vector<std::uint64_t> raw_;
};

// The walks over every message are bound by cache misses on data allocated apart from the message
// array (block arrays, text, tool input objects), not by computation: a 100 000-message session's
// heap is far larger than the caches. This prefetches, two stages ahead of position p, the block
// array of the message at p + 8 and the text and input of the blocks of the message at p + 4.
inline void prefetchAhead(const Transcript &t, const ConversationView &v, std::size_t p)
{
    if (p + 8 < v.size()) {
        const Message &m = t.messages[v.index[p + 8]];
        const char *b = reinterpret_cast<const char *>(m.blocks.data());
        const std::size_t bytes = std::min<std::size_t>(m.blocks.size() * sizeof(Block), 512);
        for (std::size_t off = 0; off < bytes; off += 64)
            __builtin_prefetch(b + off);
    }
    if (p + 4 < v.size())
        for (const Block &b : t.messages[v.index[p + 4]].blocks) {
            __builtin_prefetch(b.text.data());
            if (b.type == BlockType::ToolUse && b.input.is_object() && !b.input.empty())
                __builtin_prefetch(&*b.input.begin()); // the object's (contiguous) key/value pairs
        }
}

// Per conversation position, everything the rules read.
enum MsgFlag : std::uint16_t {
    kUserRequest = 1,
    kToolUse = 2,
    kToolResult = 4,
    kFailed = 8,
    kFence = 16,
    kCodeCall = 32,
    kMedia = 64,
    kReferencedLater = 128,
    kChainedRef = 256, // an assistant call whose text names the previous position's first result id
};
struct MsgInfo {
    std::int64_t timeMs = kNoTime;
    std::size_t textLen = 0;                  // textLength()
    std::uint32_t wordBegin = 0, wordEnd = 0; // topic word hashes in Summary::words
    std::int32_t keyword = -1;                // textContainsAny(importantKeywords)
    std::int32_t firstResult = -1;            // block index of the first tool_result
    std::int32_t breakPhrase = -1;            // Scanner(breakPhrases).findInText() for user requests
    Role role = Role::Unknown;
    std::uint16_t flags = 0;
    bool has(MsgFlag f) const { return (flags & f) != 0; }
};
struct Summary {
    std::vector<MsgInfo> msgs;       // per position
    std::vector<Word> words;         // sorted unique word hashes per message, concatenated
    std::vector<std::int32_t> spans; // rule (c) difference array, n + 1
    std::size_t maxWords = 0;        // most words of one message
};
Summary summarize(const Transcript &t, const ConversationView &v, const AnalysisOptions &o);

std::vector<BoundaryScore> scoreBoundaries(const Transcript &t, const ConversationView &v, const AnalysisOptions &o,
                                           const Summary &s);
// toolRounds + criticalTools + facts in one walk (analyze()'s second thread); results identical.
void toolsAndFacts(const Transcript &t, const ConversationView &v, const AnalysisOptions &o,
                   std::vector<ToolRound> &rounds, std::vector<CriticalTool> &critical, Facts &facts);
// priorities() in two steps, so that analyze() can share the per-message part between its threads:
// the plan sizes `out`, fills the non-conversation messages and finds the recent sets; then each
// range of conversation positions is assigned independently (disjoint elements of `out`).
struct PriorityPlan {
    std::vector<char> criticalUser;                                 // per position: one of the last N user requests
    std::int64_t lastAssistant = -1;                                // transcript index
    std::vector<std::pair<std::size_t, std::size_t>> recentResults; // (message, block) of the last N results
};
PriorityPlan planPriorities(const Transcript &t, const ConversationView &v, const AnalysisOptions &o,
                            std::vector<PriorityInfo> &out);
void assignPriorities(const Transcript &t, const ConversationView &v, const AnalysisOptions &o, const PriorityPlan &plan,
                      std::size_t from, std::size_t to, std::vector<PriorityInfo> &out);
std::vector<Importance> importance(const Transcript &t, const ConversationView &v, const AnalysisOptions &o,
                                   const Summary &s);

} // namespace cl::analysis::detail
