// SPDX-License-Identifier: MIT
// Seed 001 boundary detection: a score with its reasons for every cut position, and the search for
// the best one around the target. Definitions in analysis.h.
#include "core/analysis.h"
#include "core/analysis_internal.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace cl::analysis {

namespace {

using Words = std::vector<std::uint64_t>;

// Word hashes of a message's text blocks: ASCII [a-z0-9_] runs of >= 3 chars (lower-cased) and every
// non-ASCII code point, first scanBytes of each block, at most maxWords distinct; sorted.
Words wordsOf(const Message &m, std::size_t scanBytes, std::size_t maxWords)
{
    Words w;
    for (const auto &b : m.blocks) {
        if (b.type != BlockType::Text)
            continue;
        const std::string_view s = std::string_view(b.text).substr(0, scanBytes);
        std::size_t i = 0;
        while (i < s.size() && w.size() < maxWords * 2) {
            const unsigned char c = static_cast<unsigned char>(s[i]);
            const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
            if (alnum) {
                std::uint64_t h = 1469598103934665603ull;
                std::size_t len = 0;
                while (i < s.size()) {
                    char ch = s[i];
                    const bool a = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_';
                    if (!a)
                        break;
                    if (ch >= 'A' && ch <= 'Z')
                        ch = char(ch - 'A' + 'a');
                    h = (h ^ static_cast<unsigned char>(ch)) * 1099511628211ull;
                    ++len;
                    ++i;
                }
                if (len >= 3)
                    w.push_back(h);
            } else if (c >= 0x80) {
                // One UTF-8 code point: lead byte plus continuation bytes.
                std::uint64_t h = 0x9e3779b97f4a7c15ull;
                do {
                    h = (h ^ static_cast<unsigned char>(s[i])) * 1099511628211ull;
                    ++i;
                } while (i < s.size() && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80);
                w.push_back(h);
            } else {
                ++i;
            }
        }
    }
    std::sort(w.begin(), w.end());
    w.erase(std::unique(w.begin(), w.end()), w.end());
    if (w.size() > maxWords)
        w.resize(maxWords);
    return w;
}

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

} // namespace

std::vector<BoundaryScore> scoreBoundaries(const Transcript &t, const ConversationView &v, const AnalysisOptions &o)
{
    const std::size_t n = v.size();
    std::vector<BoundaryScore> out;
    if (n < 2)
        return out;
    auto msg = [&](std::size_t p) -> const Message & { return t.messages[v.index[p]]; };

    // Failed results by position (prefix sums) for "error near".
    std::vector<std::uint32_t> errPrefix(n + 1, 0);
    for (std::size_t p = 0; p < n; ++p)
        errPrefix[p + 1] = errPrefix[p] + (detail::hasFailedResult(msg(p)) ? 1u : 0u);
    // Rule (c): a call at position u answered at r > u splits every cut u+1..r.
    std::vector<std::int32_t> spans(n + 1, 0);
    for (std::size_t p = 0; p < n; ++p)
        for (const auto &b : msg(p).blocks) {
            if (b.type != BlockType::ToolUse || b.pairMessage < 0 || std::size_t(b.pairMessage) >= v.position.size())
                continue;
            const std::int32_t r = v.position[std::size_t(b.pairMessage)];
            if (r > std::int32_t(p)) {
                ++spans[p + 1];
                --spans[std::size_t(r) + 1];
            }
        }
    std::vector<Words> words(n);
    for (std::size_t p = 0; p < n; ++p)
        words[p] = wordsOf(msg(p), o.topicScanBytes, o.topicMaxWords);

    out.reserve(n - 1);
    std::int32_t spanCount = spans[0];
    Words scratchA, scratchB;
    std::vector<const Words *> before, after;
    for (std::size_t i = 1; i < n; ++i) {
        spanCount += spans[i];
        const Message &prev = msg(i - 1);
        const Message &cur = msg(i);
        BoundaryScore s;
        s.position = i;
        s.index = v.index[i];
        s.score = 100;
        s.reasons.reserve(4);
        s.reasons.push_back({"base", 100, "base score", {}});
        if (prev.hasToolResult()) {
            s.score += 50;
            s.reasons.push_back({"after_tool_result", 50, "previous message holds a tool result", {}});
        }
        if (prev.role == Role::Assistant) {
            s.score += 30;
            s.reasons.push_back({"after_assistant", 30, "previous message is an assistant message", {}});
        }
        // Tool sequence.
        std::string_view seqRule, seqText;
        std::string seqDetail;
        if (prev.role == Role::Assistant && prev.hasToolUse() && cur.hasToolResult()) {
            seqRule = "tool_sequence_call_result";
            seqText = "would separate a tool call from its result";
        } else if (prev.hasToolResult() && cur.role == Role::Assistant && cur.hasToolUse()) {
            std::string firstId;
            for (const auto &b : prev.blocks)
                if (b.type == BlockType::ToolResult) {
                    firstId = b.toolId;
                    break;
                }
            if (!firstId.empty())
                for (const auto &b : cur.blocks)
                    if (b.type == BlockType::Text && b.text.find(firstId) != std::string::npos) {
                        seqRule = "tool_sequence_chained";
                        seqText = "next call's text references the previous result's id";
                        seqDetail = firstId;
                        break;
                    }
        }
        if (seqRule.empty() && spanCount > 0) {
            seqRule = "pair_spans_cut";
            seqText = "a tool call before the cut is answered after it";
        }
        if (!seqRule.empty()) {
            s.inToolSequence = true;
            s.score -= 100;
            s.reasons.push_back({seqRule, -100, seqText, std::move(seqDetail)});
        }
        // Conversation break.
        std::string_view breakText;
        std::string breakDetail;
        if (isUserRequest(prev) && isUserRequest(cur)) {
            breakText = "conversation break: user message follows a user message";
        } else if (prev.timeMs != kNoTime && cur.timeMs != kNoTime && cur.timeMs - prev.timeMs > o.breakGapMs) {
            breakText = "conversation break: long pause";
            breakDetail = std::to_string((cur.timeMs - prev.timeMs) / 1000) + " s";
        } else if (isUserRequest(cur)) {
            if (const int k = detail::textContainsAny(cur, o.breakPhrases, o.scanBytes); k >= 0) {
                breakText = "conversation break: break phrase";
                breakDetail = o.breakPhrases[std::size_t(k)];
            }
        }
        if (!breakText.empty()) {
            s.conversationBreak = true;
            s.score += 20;
            s.reasons.push_back({"conversation_break", 20, breakText, std::move(breakDetail)});
        }
        // Error near the cut.
        const std::size_t lo = i >= std::size_t(o.errorDistance) ? i - std::size_t(o.errorDistance) : 0;
        const std::size_t hi = std::min(n, i + std::size_t(std::max(0, o.errorDistance)));
        if (o.errorDistance > 0 && errPrefix[hi] > errPrefix[lo]) {
            s.errorNear = true;
            s.score -= 30;
            s.reasons.push_back({"error_near", -30, "failed tool result near the cut",
                "within " + std::to_string(o.errorDistance) + " messages"});
        }
        // Topic change.
        before.clear();
        after.clear();
        for (std::size_t p = i >= std::size_t(o.topicWindow) ? i - std::size_t(o.topicWindow) : 0; p < i; ++p)
            before.push_back(&words[p]);
        for (std::size_t p = i; p < std::min(n, i + std::size_t(o.topicWindow)); ++p)
            after.push_back(&words[p]);
        s.topicSimilarity = jaccard(before, after, scratchA, scratchB);
        if (s.topicSimilarity >= 0 && s.topicSimilarity < o.topicThreshold) {
            s.topicChange = true;
            s.score += 25;
            s.reasons.push_back({"topic_change", 25, "topic change (low word overlap)", "Jaccard " + fmt(s.topicSimilarity)});
        }
        out.push_back(std::move(s));
    }
    return out;
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
