// SPDX-License-Identifier: MIT
// Seed 001 boundary detection: a score with its reasons for every cut position, and the search for
// the best one around the target. Definitions in analysis.h.
#include "core/analysis/analysis.h"
#include "core/analysis/internal.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>

namespace cl::analysis {

namespace {

using detail::Word;
using Words = std::vector<Word>;

// Jaccard similarity of two unions of word sets; -1 when a side is empty.
double jaccard(const std::vector<const Words *> &before, const std::vector<const Words *> &after, Words &a, Words &b)
{
    a.clear();
    b.clear();
    for (const Words *w : before)
        a.insert(a.end(), w->begin(), w->end());
    for (const Words *w : after)
        b.insert(b.end(), w->begin(), w->end());
    if (a.empty() || b.empty())
        return -1;
    std::sort(a.begin(), a.end());
    a.erase(std::unique(a.begin(), a.end()), a.end());
    std::sort(b.begin(), b.end());
    b.erase(std::unique(b.begin(), b.end()), b.end());
    std::size_t inter = 0, x = 0, y = 0;
    while (x < a.size() && y < b.size()) {
        if (a[x] < b[y])
            ++x;
        else if (b[y] < a[x])
            ++y;
        else {
            ++inter;
            ++x;
            ++y;
        }
    }
    return double(inter) / double(a.size() + b.size() - inter);
}

std::string fmt(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", v);
    return buf;
}

// Words of the topicWindow messages before and after a cut, kept as counts per word while the cut
// slides: each step moves one message into "before", one out of it, one out of "after" and one into
// it, so the Jaccard index costs O(words of 4 messages) per cut instead of sorting both unions.
class SlidingWords
{
public:
    explicit SlidingWords(std::size_t maxLive)
    {
        std::size_t cap = 64;
        while (cap < maxLive * 2)
            cap *= 2;
        slots_.assign(cap, Slot{});
        mask_ = cap - 1;
    }
    void add(const Word *w, const Word *end, bool before)
    {
        for (; w != end; ++w) {
            Slot &e = slots_[findOrInsert(*w)];
            std::uint32_t &mine = before ? e.a : e.b;
            const std::uint32_t other = before ? e.b : e.a;
            if (mine++ == 0) {
                ++(before ? sizeA_ : sizeB_);
                if (other)
                    ++inter_;
            }
        }
    }
    void remove(const Word *w, const Word *end, bool before)
    {
        for (; w != end; ++w) {
            const std::size_t k = find(*w);
            Slot &e = slots_[k];
            std::uint32_t &mine = before ? e.a : e.b;
            const std::uint32_t other = before ? e.b : e.a;
            if (--mine == 0) {
                --(before ? sizeA_ : sizeB_);
                if (other)
                    --inter_;
                else
                    erase(k);
            }
        }
    }
    // Jaccard of the two sides; -1 when a side is empty.
    double jaccard() const
    {
        if (sizeA_ == 0 || sizeB_ == 0)
            return -1;
        return double(inter_) / double(sizeA_ + sizeB_ - inter_);
    }

private:
    struct Slot {
        Word key = 0;
        std::uint32_t a = 0, b = 0; // both 0: empty
    };
    std::size_t home(Word key) const { return std::size_t((std::uint64_t(key) * 0x9e3779b97f4a7c15ull) >> 20) & mask_; }
    std::size_t find(Word key) const
    {
        std::size_t k = home(key);
        while (slots_[k].key != key || (slots_[k].a == 0 && slots_[k].b == 0))
            k = (k + 1) & mask_;
        return k;
    }
    std::size_t findOrInsert(Word key)
    {
        std::size_t k = home(key);
        while (slots_[k].a != 0 || slots_[k].b != 0) {
            if (slots_[k].key == key)
                return k;
            k = (k + 1) & mask_;
        }
        slots_[k].key = key;
        return k;
    }
    // Linear probing deletion by backward shift: no tombstones, probes stay short.
    void erase(std::size_t k)
    {
        std::size_t j = k;
        for (;;) {
            slots_[k] = Slot{};
            for (;;) {
                j = (j + 1) & mask_;
                if (slots_[j].a == 0 && slots_[j].b == 0)
                    return;
                const std::size_t h = home(slots_[j].key);
                // Move j back to k unless its home lies cyclically in (k, j].
                if (k <= j ? (k < h && h <= j) : (k < h || h <= j))
                    continue;
                break;
            }
            slots_[k] = slots_[j];
            k = j;
        }
    }
    std::vector<Slot> slots_;
    std::size_t mask_ = 0;
    std::size_t sizeA_ = 0, sizeB_ = 0, inter_ = 0;
};

} // namespace

std::vector<BoundaryScore> scoreBoundaries(const Transcript &t, const ConversationView &v, const AnalysisOptions &o)
{
    return detail::scoreBoundaries(t, v, o, detail::summarize(t, v, o));
}

namespace detail {

std::vector<BoundaryScore> scoreBoundaries(const Transcript &t, const ConversationView &v, const AnalysisOptions &o,
                                           const Summary &sum)
{
    const std::size_t n = v.size();
    std::vector<BoundaryScore> out;
    if (n < 2)
        return out;
    const std::vector<MsgInfo> &info = sum.msgs;
    auto words = [&sum](std::size_t p) {
        const MsgInfo &m = sum.msgs[p];
        return std::pair(sum.words.data() + m.wordBegin, sum.words.data() + m.wordEnd);
    };

    // Failed results by position (prefix sums) for "error near".
    std::vector<std::uint32_t> errPrefix(n + 1, 0);
    for (std::size_t p = 0; p < n; ++p)
        errPrefix[p + 1] = errPrefix[p] + (info[p].has(kFailed) ? 1u : 0u);

    // Topic windows: before = [i - W, i), after = [i, i + W), slid from i = 1.
    const std::size_t W = o.topicWindow > 0 ? std::size_t(o.topicWindow) : 0;
    std::optional<SlidingWords> sliding;
    if (o.topicWindow >= 0) {
        sliding.emplace(2 * std::min(W, n) * sum.maxWords);
        if (W > 0) {
            sliding->add(words(0).first, words(0).second, true);
            for (std::size_t p = 1; p < std::min(n, 1 + W); ++p)
                sliding->add(words(p).first, words(p).second, false);
        }
    }
    std::vector<Words> legacy; // negative topicWindow: the unbounded ranges of the generic code
    if (!sliding) {
        legacy.resize(n);
        for (std::size_t p = 0; p < n; ++p)
            legacy[p].assign(words(p).first, words(p).second);
    }

    out.resize(n - 1);
    std::int32_t spanCount = sum.spans[0];
    Words scratchA, scratchB;
    std::vector<const Words *> before, after;
    for (std::size_t i = 1; i < n; ++i) {
        spanCount += sum.spans[i];
        const MsgInfo &prev = info[i - 1];
        const MsgInfo &cur = info[i];
        BoundaryScore &s = out[i - 1];
        // Tool sequence.
        if (prev.role == Role::Assistant && prev.has(kToolUse) && cur.has(kToolResult)) {
            s.sequence = SequenceRule::CallResult;
        } else if (cur.has(kChainedRef)) { // (summarize() tested the text)
            s.sequence = SequenceRule::Chained;
            s.chainedId = t.messages[v.index[i - 1]].blocks[std::size_t(prev.firstResult)].toolId;
        } else if (spanCount > 0) {
            s.sequence = SequenceRule::PairSpansCut;
        }
        // Conversation break.
        if (prev.has(kUserRequest) && cur.has(kUserRequest)) {
            s.breakRule = BreakRule::UserFollowsUser;
        } else if (prev.timeMs != kNoTime && cur.timeMs != kNoTime && cur.timeMs - prev.timeMs > o.breakGapMs) {
            s.breakRule = BreakRule::Pause;
            s.pauseMs = cur.timeMs - prev.timeMs;
        } else if (cur.has(kUserRequest) && cur.breakPhrase >= 0) {
            s.breakRule = BreakRule::Phrase;
            s.breakPhrase = cur.breakPhrase;
        }
        // Error near the cut.
        const std::size_t lo = i >= std::size_t(o.errorDistance) ? i - std::size_t(o.errorDistance) : 0;
        const std::size_t hi = std::min(n, i + std::size_t(std::max(0, o.errorDistance)));
        const bool errorNear = o.errorDistance > 0 && errPrefix[hi] > errPrefix[lo];
        // Topic change.
        double similarity;
        if (sliding) {
            similarity = sliding->jaccard();
            if (W > 0) { // slide to i + 1
                sliding->add(words(i).first, words(i).second, true);
                if (i >= W)
                    sliding->remove(words(i - W).first, words(i - W).second, true);
                sliding->remove(words(i).first, words(i).second, false);
                if (i + W < n)
                    sliding->add(words(i + W).first, words(i + W).second, false);
            }
        } else {
            before.clear();
            after.clear();
            for (std::size_t p = i >= std::size_t(o.topicWindow) ? i - std::size_t(o.topicWindow) : 0; p < i; ++p)
                before.push_back(&legacy[p]);
            for (std::size_t p = i; p < std::min(n, i + std::size_t(o.topicWindow)); ++p)
                after.push_back(&legacy[p]);
            similarity = jaccard(before, after, scratchA, scratchB);
        }
        const bool topicChange = similarity >= 0 && similarity < o.topicThreshold;

        s.position = i;
        s.index = v.index[i];
        s.topicSimilarity = similarity;
        s.afterToolResult = prev.has(kToolResult);
        s.afterAssistant = prev.role == Role::Assistant;
        s.inToolSequence = s.sequence != SequenceRule::None;
        s.conversationBreak = s.breakRule != BreakRule::None;
        s.errorNear = errorNear;
        s.topicChange = topicChange;
        s.score = 100 + (s.afterToolResult ? 50 : 0) + (s.afterAssistant ? 30 : 0) - (s.inToolSequence ? 100 : 0)
                  + (s.conversationBreak ? 20 : 0) - (errorNear ? 30 : 0) + (topicChange ? 25 : 0);
    }
    return out;
}

} // namespace detail

Reasons reasonsFor(const BoundaryScore &s, const AnalysisOptions &o)
{
    Reasons r;
    r.push_back({"base", 100, "base score", {}});
    if (s.afterToolResult)
        r.push_back({"after_tool_result", 50, "previous message holds a tool result", {}});
    if (s.afterAssistant)
        r.push_back({"after_assistant", 30, "previous message is an assistant message", {}});
    switch (s.sequence) {
    case SequenceRule::None:
        break;
    case SequenceRule::CallResult:
        r.push_back({"tool_sequence_call_result", -100, "would separate a tool call from its result", {}});
        break;
    case SequenceRule::Chained:
        r.push_back({"tool_sequence_chained", -100, "next call's text references the previous result's id",
                     std::string(s.chainedId)});
        break;
    case SequenceRule::PairSpansCut:
        r.push_back({"pair_spans_cut", -100, "a tool call before the cut is answered after it", {}});
        break;
    }
    switch (s.breakRule) {
    case BreakRule::None:
        break;
    case BreakRule::UserFollowsUser:
        r.push_back({"conversation_break", 20, "conversation break: user message follows a user message", {}});
        break;
    case BreakRule::Pause:
        r.push_back({"conversation_break", 20, "conversation break: long pause", std::to_string(s.pauseMs / 1000) + " s"});
        break;
    case BreakRule::Phrase: {
        const bool known = s.breakPhrase >= 0 && std::size_t(s.breakPhrase) < o.breakPhrases.size();
        r.push_back({"conversation_break", 20, "conversation break: break phrase",
                     known ? o.breakPhrases[std::size_t(s.breakPhrase)] : std::string()});
        break;
    }
    }
    if (s.errorNear)
        r.push_back({"error_near", -30, "failed tool result near the cut", "within " + std::to_string(o.errorDistance) + " messages"});
    if (s.topicChange)
        r.push_back({"topic_change", 25, "topic change (low word overlap)", "Jaccard " + fmt(s.topicSimilarity)});
    return r;
}

std::optional<std::size_t> findCompactionBoundary(const std::vector<BoundaryScore> &scores, std::size_t n,
                                                  const AnalysisOptions &o)
{
    const auto target = std::int64_t(std::floor(double(n) * o.targetRatio));
    const std::int64_t lo = std::max<std::int64_t>({std::int64_t(o.minIndex), target - o.window, 1});
    const std::int64_t hi = std::min<std::int64_t>(std::int64_t(n) - o.window, target + o.window);
    std::optional<std::size_t> best;
    double bestScore = 0;
    for (std::int64_t i = lo; i <= hi; ++i) {
        if (i < 1 || std::size_t(i) > scores.size())
            continue;
        const BoundaryScore &s = scores[std::size_t(i) - 1];
        if (!best || s.score > bestScore) {
            best = std::size_t(i);
            bestScore = s.score;
        }
    }
    return best;
}

} // namespace cl::analysis
