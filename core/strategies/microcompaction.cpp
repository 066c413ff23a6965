// SPDX-License-Identifier: MIT
// Seed 001 microcompaction manager (docs/design/mechanisms.md §5, §6, §9.7): needsCompaction ->
// findCompactionBoundary -> createSummary -> [boundary marker, summary, messages from the boundary
// on]. The marker is a CompactBoundary message (not sent to a model; session formats only, an API
// request has no record for it); the summary is one user
// message (insertSummary) in the seed 001 layout, with the results of critical tools quoted
// verbatim as "[preserved tool result: <id>]" blocks.
//
// Adaptive ratio (seed 001 determineCompressionRatio), over the candidate messages, applied in order:
//   code share  = messages with code or a command (``` in text, or a Write/Edit/Shell call) / messages;
//                 > 0.5 -> ratio = min(0.7, ratio + 0.2)
//   chat share  = user requests and assistant messages without tool blocks or code / messages;
//                 > 0.7 -> ratio = max(0.3, ratio - 0.2)
//   error rate  = failed tool results / tool results (0 without results);
//                 > 0.1 -> ratio = min(0.6, ratio + 0.1)
// The seed uses targetRatio as the share of the candidates placed before the boundary (the boundary
// search target = floor(candidates x ratio)); so does this strategy.
//
// Incremental mode (seed 001 IncrementalCompactor): candidates start after the last compaction
// already in the transcript (a compact boundary or compact summary: Claude Code's, Codex's, or one
// this strategy inserted earlier). The compaction history {timestamp, messagesCompacted,
// tokensSaved} is read back from those markers (our markers carry the numbers in their meta; for
// others messagesCompacted is the number of conversation messages since the previous marker and
// tokensSaved is unknown) and reported in extra["history"] with the new entry appended.
#include "core/strategies/factories.h"

#include "core/strategies/exchanges.h"
#include "core/strategy/summary/summary.h"
#include "core/tokens/estimator.h"

#include <algorithm>
#include <cmath>

namespace cl::strategy {

namespace {

struct Shares {
    double code = 0, chat = 0, errorRate = 0;
};

Shares contentShares(const Editor &e, std::size_t start)
{
    Shares s;
    std::size_t code = 0, chat = 0, results = 0, failed = 0;
    // Code or command as the analysis found it for the importance rules (a Write / Edit / Shell call,
    // or ``` in the first scanBytes of a text block): no text is scanned again here.
    const std::vector<analysis::Importance> &importance = e.analysis().importance;
    for (std::size_t p = start; p < e.size(); ++p) {
        const Message &m = e.transcript().messages[e.at(p)];
        const bool hasCode = importance[p].codeOrCommand;
        code += hasCode ? 1 : 0;
        bool tools = false;
        for (const auto &b : m.blocks) {
            if (b.type == BlockType::ToolResult) {
                ++results;
                failed += b.isError ? 1 : 0;
            }
            tools = tools || b.type == BlockType::ToolUse || b.type == BlockType::ToolResult;
        }
        if (!tools && !hasCode && (m.role == Role::Assistant || analysis::isUserRequest(m)))
            ++chat;
    }
    const std::size_t n = e.size() > start ? e.size() - start : 0;
    if (n) {
        s.code = double(code) / double(n);
        s.chat = double(chat) / double(n);
    }
    s.errorRate = results ? double(failed) / double(results) : 0.0;
    return s;
}

nlohmann::json readHistory(const Transcript &t, std::int64_t &lastMarker)
{
    nlohmann::json history = nlohmann::json::array();
    lastMarker = -1;
    std::size_t since = 0;
    for (std::size_t i = 0; i < t.messages.size(); ++i) {
        const Message &m = t.messages[i];
        if (m.sidechain)
            continue;
        if (m.kind == MessageKind::CompactBoundary) {
            nlohmann::json entry = {{"index", i}, {"timestamp", m.timestamp}, {"messagesCompacted", since}, {"tokensSaved", nullptr}};
            if (m.meta.is_object()) {
                if (const auto it = m.meta.find("messagesCompacted"); it != m.meta.end() && it->is_number())
                    entry["messagesCompacted"] = *it;
                if (const auto it = m.meta.find("tokensSaved"); it != m.meta.end() && it->is_number())
                    entry["tokensSaved"] = *it;
                if (const auto it = m.meta.find("preTokens"); it != m.meta.end() && it->is_number())
                    entry["preTokens"] = *it;
            }
            history.push_back(std::move(entry));
            lastMarker = std::int64_t(i);
            since = 0;
        } else if (m.kind == MessageKind::CompactSummary) {
            lastMarker = std::int64_t(i);
            since = 0;
        } else if (m.isConversation()) {
            ++since;
        }
    }
    return history;
}

class Microcompaction final : public Strategy
{
public:
    std::string_view name() const override { return "microcompaction"; }
    std::string_view title() const override { return "Summarize up to the best boundary"; }
    std::string_view source() const override { return "seed 001 §5-6, §9.7"; }
    Group group() const override { return Group::Summary; }
    std::string_view follows() const override { return ""; }
    std::string_view description() const override
    {
        return "When the conversation passes 150 000 tokens or 500 messages (with at least 10), finds the best "
               "boundary near targetRatio of the messages (scored: after tool results / assistant turns, never inside a "
               "tool sequence, at conversation breaks and topic changes, away from errors), replaces everything "
               "before it with a boundary marker and a structured summary, and quotes critical tool results verbatim.";
    }
    std::vector<ParamSpec> params() const override
    {
        using T = ParamSpec::Type;
        return {
            {"threshold", T::Int, 0, 1e12, 150000, {}, "Compact when the conversation passes this many tokens."},
            {"maxMessages", T::Int, 0, 1e9, 500, {}, "Message-count trigger: more than this many messages."},
            {"minMessages", T::Int, 0, 1e9, 10, {}, "Never compact fewer messages than this."},
            {"targetRatio", T::Double, 0.05, 0.95, 0.5, {}, "Share of the candidate messages before the boundary."},
            {"window", T::Int, 0, 1000, 5, {}, "Boundary search window around the target position."},
            {"minIndex", T::Int, 0, 1e9, 10, {}, "Earliest boundary position (messages always summarized)."},
            {"preserveToolCalls", T::Bool, 0, 0, true, {}, "Include the tool-usage summary."},
            {"adaptiveRatio", T::Bool, 0, 0, true, {}, "Adjust targetRatio by code share, chat share and error rate."},
            {"incremental", T::Bool, 0, 0, false, {}, "Only compact the messages after the last compaction."},
            {"force", T::Bool, 0, 0, false, {}, "Skip the trigger (preview)."},
        };
    }
    Result apply(const Input &in, const Params &p) const override
    {
        Editor e(in);
        const Transcript &t = in.transcript;
        const analysis::Analysis &a = e.analysis();
        const std::size_t n = e.size();

        std::int64_t lastMarker = -1;
        nlohmann::json history = readHistory(t, lastMarker);
        std::size_t start = leadingSystem(e).size();
        if (p.flag("incremental") && lastMarker >= 0) {
            const auto &idx = a.view.index;
            const auto it = std::upper_bound(idx.begin(), idx.end(), std::size_t(lastMarker));
            start = std::max(start, std::size_t(it - idx.begin()));
            e.log("incremental: " + std::to_string(history.size()) + " earlier compaction(s); candidates start at position "
                  + std::to_string(start) + " (after message " + std::to_string(lastMarker) + ")");
        }
        e.extra()["history"] = history;
        e.extra()["lastCompactionIndex"] = start;

        std::int64_t candidateTokens = 0, preTokens = 0;
        for (std::size_t q = 0; q < n; ++q) {
            const std::int64_t tok = e.tokens(e.at(q));
            preTokens += tok;
            candidateTokens += q >= start ? tok : 0;
        }
        const std::size_t candidates = n - std::min(n, start);
        analysis::AnalysisOptions o = in.options;
        o.threshold = p.integer("threshold");
        o.maxMessages = std::size_t(p.integer("maxMessages"));
        o.minMessages = std::size_t(p.integer("minMessages"));
        const auto needs = analysis::needsCompaction(candidateTokens, candidates, o);
        for (const auto &r : needs.reasons)
            e.log("needsCompaction: " + r.describe());
        if (!needs.needed && !p.flag("force")) {
            e.setNote("below trigger: " + std::to_string(candidateTokens) + " tokens < " + std::to_string(o.threshold)
                      + " and " + std::to_string(candidates) + " messages <= " + std::to_string(o.maxMessages)
                      + (candidates < o.minMessages ? " (fewer than " + std::to_string(o.minMessages) + ")" : ""));
            return e.finish();
        }

        double ratio = p.number("targetRatio");
        if (p.flag("adaptiveRatio")) {
            const Shares s = contentShares(e, start);
            const double r0 = ratio;
            if (s.code > 0.5)
                ratio = std::min(0.7, ratio + 0.2);
            if (s.chat > 0.7)
                ratio = std::max(0.3, ratio - 0.2);
            if (s.errorRate > 0.1)
                ratio = std::min(0.6, ratio + 0.1);
            e.log("adaptive ratio: code share " + exchanges::fixed(s.code, 3) + ", chat share " + exchanges::fixed(s.chat, 3)
                  + ", error rate " + exchanges::fixed(s.errorRate, 3) + ": ratio " + exchanges::fixed(r0, 2) + " -> "
                  + exchanges::fixed(ratio, 2));
            e.extra()["adaptive"] = {{"codeShare", s.code}, {"chatShare", s.chat}, {"errorRate", s.errorRate}, {"ratioBefore", r0}, {"ratio", ratio}};
        }

        const auto boundary = findBoundary(e, start, ratio, p.integer("window"), p.integer("minIndex"));
        if (!boundary) {
            e.setNote("no boundary: no position between the candidates' start and the last messages is a safe cut");
            return e.finish();
        }
        const std::size_t b = *boundary;
        const std::size_t before = e.at(b);

        // The summarized range; protected messages stay where they are and out of the summary.
        SummaryRequest req;
        req.transcript = &t;
        req.style = "seed001";
        req.preserveToolCalls = p.flag("preserveToolCalls");
        req.analysis = &a;
        const std::string why = "summarized: before the compaction boundary at position " + std::to_string(b);
        for (std::size_t q = start; q < b; ++q) {
            const std::size_t i = e.at(q);
            const std::int64_t tok = e.tokens(i);
            if (e.remove(i, why, Fate::Summarized)) {
                req.messages.push_back(i);
                req.tokensBefore += tok;
            }
        }
        if (req.messages.empty()) {
            e.setNote("nothing to compact: every message before the boundary at position " + std::to_string(b)
                      + " is pinned or carries an exempt tool");
            return e.finish();
        }
        std::vector<std::size_t> &preserved = req.preserved;
        for (const auto &c : a.critical) {
            const std::int32_t r = t.messages[c.message].blocks[c.block].pairMessage;
            if (r >= 0 && e.isRemoved(std::size_t(r)) && e.isRemoved(c.message))
                preserved.push_back(std::size_t(r));
        }
        std::sort(preserved.begin(), preserved.end());
        preserved.erase(std::unique(preserved.begin(), preserved.end()), preserved.end());

        Summary s = in.summary().summarize(req);
        // Messages a guard kept in the range (pinned, exempt tool) follow the summary, so that the
        // conversation still opens with the summary (a user turn) after the system prompt.
        std::size_t insertAt = before;
        for (std::size_t q = start; q < b; ++q)
            if (!e.isRemoved(e.at(q))) {
                insertAt = e.at(q);
                e.log("message " + std::to_string(insertAt) + " is protected: it stays, after the summary");
                break;
            }
        // API requests have no record for a boundary (their writers would turn it into a turn); the
        // session formats (Claude Code compact_boundary, Codex compacted, ...) get the marker.
        if (!isApiFormat(t.format)) {
            Message marker = makeTextMessage(Role::System,
                                             "Conversation compacted: " + std::to_string(req.messages.size()) + " messages before position "
                                                 + std::to_string(b) + " replaced by a summary",
                                             MessageKind::CompactBoundary);
            marker.type = "system/compact_boundary";
            marker.timestamp = t.messages[before].timestamp;
            marker.timeMs = t.messages[before].timeMs;
            e.insertBefore(insertAt, std::move(marker), "compaction boundary marker");
        } else {
            e.log("no boundary marker: " + std::string(formatName(t.format)) + " requests have no record for it");
        }
        insertSummary(e, insertAt, s.text, "summary of " + std::to_string(req.messages.size()) + " messages");
        e.log("summary: " + std::to_string(s.text.size()) + " bytes, " + std::to_string(preserved.size())
              + " preserved tool result message(s)");

        const auto &score = a.boundaries[b - 1];
        nlohmann::json reasons = nlohmann::json::array();
        for (const auto &r : analysis::reasonsFor(score, a.options))
            reasons.push_back(r.describe());
        e.extra()["boundary"] = {{"position", b}, {"index", before}, {"score", score.score}, {"reasons", reasons}, {"ratio", ratio}};
        // Moved, not copied: the sections quote every modified file and error of the range.
        nlohmann::json summary = nlohmann::json::object();
        summary["text"] = std::move(s.text);
        summary["sections"] = std::move(s.sections);
        summary["keyPoints"] = std::move(s.keyPoints);
        e.extra()["summary"] = std::move(summary);

        Result res = e.finish();
        // Post-compaction size: the conversation messages of the result (the marker is not one).
        std::int64_t postTokens = 0;
        std::size_t compacted = 0;
        nlohmann::json list = nlohmann::json::array();
        for (std::size_t k = 0; k < res.slots.size(); ++k) {
            const Message &m = res.message(t, k);
            if (m.isConversation() && !m.sidechain) {
                postTokens += tokens::estimateMessage(m);
                ++compacted;
            }
            list.push_back(res.slots[k].origin);
        }
        const std::int64_t saved = preTokens - postTokens;
        for (auto &slot : res.slots)
            if (slot.origin < 0 && slot.message && slot.message->kind == MessageKind::CompactBoundary) {
                auto m = std::make_shared<Message>(*slot.message);
                m->meta = {{"trigger", "contextlens-microcompaction"}, {"preTokens", preTokens}, {"messagesCompacted", req.messages.size()}, {"tokensSaved", saved}};
                m->blocks[0].text += " (~" + std::to_string(saved) + " tokens saved)";
                slot.message = std::move(m);
            }
        res.extra["history"].push_back(
            {{"timestamp", t.messages[before].timestamp}, {"messagesCompacted", req.messages.size()}, {"tokensSaved", saved}});
        res.extra["messages"] = std::move(list);
        res.extra["originalCount"] = n;
        res.extra["compactedCount"] = compacted;
        res.extra["tokenSavings"] = saved;
        res.extra["preCompactTokenCount"] = preTokens;
        res.extra["postCompactTokenCount"] = postTokens;
        res.note = "compacted " + std::to_string(req.messages.size()) + " messages before position " + std::to_string(b)
                   + " (score " + exchanges::fixed(score.score, 0) + ", ratio " + exchanges::fixed(ratio, 2) + "): "
                   + std::to_string(preTokens) + " -> " + std::to_string(postTokens) + " tokens";
        return res;
    }

private:
    // Seed 001 findCompactionBoundary over the candidates [start, n): target = start + floor(len x
    // ratio), best score in [max(start + minIndex, target - window), min(n - window, target + window)],
    // first on ties; positions inside a tool sequence are never chosen. Without any candidate there
    // (short transcripts, forced runs) the nearest safe cut at or before the target, else after it.
    static std::optional<std::size_t> findBoundary(Editor &e, std::size_t start, double ratio, std::int64_t window,
                                                   std::int64_t minIndex)
    {
        const auto &scores = e.analysis().boundaries;
        const std::int64_t n = std::int64_t(e.size()), s = std::int64_t(start);
        const std::int64_t target = s + std::int64_t(std::floor(double(n - s) * ratio));
        const std::int64_t lo = std::max({s + minIndex, target - window, s + 1});
        const std::int64_t hi = std::min(n - window, target + window);
        std::optional<std::size_t> best;
        double bestScore = 0;
        for (std::int64_t i = lo; i <= hi; ++i) {
            if (i < 1 || std::size_t(i) > scores.size() || scores[std::size_t(i) - 1].inToolSequence)
                continue;
            const double sc = scores[std::size_t(i) - 1].score;
            if (!best || sc > bestScore) {
                best = std::size_t(i);
                bestScore = sc;
            }
        }
        e.log("boundary search: target position " + std::to_string(target) + ", range [" + std::to_string(lo) + ", "
              + std::to_string(hi) + "]" + (best ? ", best " + std::to_string(*best) + " (score " + exchanges::fixed(bestScore, 0) + ")" : ", no candidate"));
        if (best)
            return best;
        const std::size_t tgt = std::size_t(std::clamp<std::int64_t>(target, s + 1, std::max(s + 1, n - 1)));
        auto cut = safeCutAtOrBefore(e, tgt);
        if (!cut || std::int64_t(*cut) <= s || std::int64_t(*cut) >= n)
            cut = safeCutAtOrAfter(e, tgt);
        if (!cut || std::int64_t(*cut) <= s || std::int64_t(*cut) >= n)
            return std::nullopt;
        e.log("fallback: nearest safe cut at position " + std::to_string(*cut));
        return cut;
    }
};

} // namespace

std::unique_ptr<Strategy> makeMicrocompaction()
{
    return std::make_unique<Microcompaction>();
}

} // namespace cl::strategy
