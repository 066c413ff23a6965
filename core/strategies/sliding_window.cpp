// SPDX-License-Identifier: MIT
// Seed 004 sliding window with importance (docs/design/mechanisms.md §9.9): the last keepRecent turns stay
// whole; older turns are replaced by one summary, except their important messages (seed 004
// importance >= importanceThreshold), which stay in place: [summary] + [important old messages] +
// [recent messages]. Tool outputs longer than maxToolOutput characters keep half head, half tail.
//
// Definitions the seed leaves open:
// - Turn: a user request and everything up to the next one, cut only at safe cuts (so a tool call
//   and its result are always in the same turn). The system prompt and anything before the first
//   request are never touched.
// - Trigger (autoCompress): more than keepRecent x 2 conversation messages (seed 004's check) and
//   more than keepRecent turns. With autoCompress off the strategy only runs with force.
// - Tool pairs stay whole: a tool round (the calling assistant message and its result messages)
//   is one unit whose importance is the highest of its members.
// - maxTurns: at most maxTurns turns keep messages verbatim: the keepRecent recent ones plus the
//   newest (maxTurns - keepRecent) old turns may keep their important messages; older turns are
//   summarized whole.
#include "core/strategies/factories.h"

#include "core/strategies/exchanges.h"
#include "core/strategy/summary/summary.h"

#include <algorithm>

namespace cl::strategy {

namespace {

// Byte offset where the last k code points of s start (codePointOffset(s, utf8Length(s) - k)
// for 0 < k <= utf8Length(s)), walking back over the k kept code points only.
std::size_t lastPointsOffset(std::string_view s, std::size_t k)
{
    std::size_t seen = 0;
    for (std::size_t i = s.size(); i-- > 0;)
        if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80 && ++seen == k)
            return i;
    return 0;
}

std::size_t codePointOffset(std::string_view s, std::size_t k)
{
    std::size_t seen = 0;
    for (std::size_t i = 0; i < s.size(); ++i)
        if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) {
            if (seen == k)
                return i;
            ++seen;
        }
    return s.size();
}

class SlidingWindow final : public Strategy
{
public:
    std::string_view name() const override { return "sliding-window"; }
    std::string_view title() const override { return "Sliding window keeping important messages"; }
    std::string_view source() const override { return "seed 004"; }
    Group group() const override { return Group::Summary; }
    std::string_view follows() const override { return ""; }
    std::string_view description() const override
    {
        return "Keeps the last keepRecent turns whole, keeps important older messages (importance >= "
               "importanceThreshold) and replaces the rest of the older turns by one short summary (at most "
               "summaryMaxChars characters, with key points); long tool outputs keep their head and tail.";
    }
    std::vector<ParamSpec> params() const override
    {
        using T = ParamSpec::Type;
        return {
            {"maxTurns", T::Int, 1, 1e9, 50, {}, "Turns that may keep messages verbatim (recent + important old)."},
            {"keepRecent", T::Int, 0, 1e9, 10, {}, "Most recent turns kept whole."},
            {"maxToolOutput", T::Int, 0, 1e12, 3000, {}, "Longest tool output in characters (0: no limit)."},
            {"summaryMaxChars", T::Int, 0, 1e9, 500, {}, "Longest summary content in characters (0: no limit)."},
            {"autoCompress", T::Bool, 0, 0, true, {}, "Compress when the history exceeds keepRecent x 2 messages."},
            {"importanceThreshold", T::Double, 0, 1, 0.3, {}, "Old messages scoring at least this are kept."},
            {"force", T::Bool, 0, 0, false, {}, "Run even below the trigger or with autoCompress off."},
        };
    }
    Result apply(const Input &in, const Params &p) const override
    {
        Editor e(in);
        const analysis::Analysis &a = e.analysis();
        const exchanges::Exchanges turns = exchanges::exchanges(e);
        const std::size_t n = e.size(), T = turns.size();
        const std::size_t keepRecent = std::size_t(p.integer("keepRecent"));
        const std::size_t maxTurns = std::size_t(p.integer("maxTurns"));
        const double threshold = p.number("importanceThreshold");
        const bool force = p.flag("force");
        e.extra()["turns"] = T;
        if (!p.flag("autoCompress") && !force) {
            e.setNote("autoCompress is off (use force to preview)");
            return e.finish();
        }
        if (n <= keepRecent * 2 && !force) {
            e.setNote("below trigger: " + std::to_string(n) + " messages <= keepRecent x 2 = " + std::to_string(keepRecent * 2));
            return e.finish();
        }
        if (T <= keepRecent) {
            e.setNote("nothing to compress: " + std::to_string(T) + " turn(s) <= keepRecent " + std::to_string(keepRecent));
            return e.finish();
        }
        const std::size_t oldTurns = T - keepRecent;
        const std::size_t eligibleFrom = maxTurns > keepRecent && oldTurns > maxTurns - keepRecent
                                             ? oldTurns - (maxTurns - keepRecent)
                                             : (maxTurns > keepRecent ? 0 : oldTurns);
        e.log(std::to_string(T) + " turns: " + std::to_string(oldTurns) + " old, " + std::to_string(keepRecent)
              + " recent kept whole; old turns from " + std::to_string(eligibleFrom + 1)
              + " may keep important messages (maxTurns " + std::to_string(maxTurns) + ")");

        // Tool rounds as units: position -> round, round -> highest importance of its members.
        std::vector<std::int32_t> unit(n, -1);
        std::vector<double> unitScore(a.rounds.size(), 0.0);
        for (std::size_t r = 0; r < a.rounds.size(); ++r) {
            auto add = [&](std::size_t index) {
                const std::int32_t pos = a.view.position[index];
                if (pos < 0)
                    return;
                unit[std::size_t(pos)] = std::int32_t(r);
                unitScore[r] = std::max(unitScore[r], a.importance[std::size_t(pos)].score);
            };
            add(a.rounds[r].assistant);
            for (const std::size_t i : a.rounds[r].results)
                add(i);
        }

        SummaryRequest req;
        req.transcript = &in.transcript;
        req.style = "seed004";
        req.maxChars = std::size_t(p.integer("summaryMaxChars"));
        req.analysis = &a;
        std::size_t keptImportant = 0, firstTurn = 0, lastTurn = 0;
        for (std::size_t k = 0; k < oldTurns; ++k) {
            for (std::size_t q = turns.starts[k]; q < turns.end(k); ++q) {
                const double score = unit[q] >= 0 ? unitScore[std::size_t(unit[q])] : a.importance[q].score;
                const bool important = std::round(score * 1e9) >= std::round(threshold * 1e9);
                if (k >= eligibleFrom && important) {
                    ++keptImportant;
                    continue;
                }
                const std::size_t i = e.at(q);
                const std::int64_t tok = e.tokens(i);
                const std::string why = "sliding window: old turn " + std::to_string(k + 1) + " of " + std::to_string(T)
                                        + (k < eligibleFrom ? " (beyond maxTurns)"
                                                            : ", importance " + exchanges::fixed(score, 2) + " < "
                                                                  + exchanges::fixed(threshold, 2));
                if (e.remove(i, why, Fate::Summarized)) {
                    req.tokensBefore += tok;
                    req.messages.push_back(i);
                    if (!firstTurn)
                        firstTurn = k + 1;
                    lastTurn = k + 1;
                }
            }
        }
        e.log(std::to_string(req.messages.size()) + " old message(s) summarized, " + std::to_string(keptImportant)
              + " important old message(s) kept");

        if (!req.messages.empty()) {
            const Summary s = in.summary().summarize(req);
            const Message &lastMsg = in.transcript.messages[req.messages.back()];
            std::string text = "[Context summary: turns " + std::to_string(firstTurn) + "-" + std::to_string(lastTurn)
                               + ", " + std::to_string(req.messages.size()) + " messages]\n" + s.text;
            insertSummary(e, e.at(turns.starts[0]), std::move(text),
                          "summary of " + std::to_string(req.messages.size()) + " old messages");
            e.extra()["summary"] = {{"timestamp", lastMsg.timeMs == kNoTime ? nlohmann::json(nullptr) : nlohmann::json(lastMsg.timeMs)},
                                    {"turnRange", {firstTurn, lastTurn}},
                                    {"content", s.text},
                                    {"keyPoints", s.keyPoints}};
            if (s.sections.is_object() && s.sections.contains("summarizer")) // a model wrote it: who, and at what cost
                e.extra()["summary"]["model"] = s.sections;
        }
        const std::size_t truncated = truncateToolOutputs(e, turns.head, std::size_t(p.integer("maxToolOutput")));
        e.extra()["summarized"] = req.messages.size();
        e.extra()["importantKept"] = keptImportant;
        e.extra()["truncated"] = truncated;
        e.setNote("sliding window: " + std::to_string(T) + " turns, last " + std::to_string(keepRecent) + " kept whole; "
                  + std::to_string(req.messages.size()) + " old message(s) summarized, " + std::to_string(keptImportant)
                  + " important kept; " + std::to_string(truncated) + " tool output(s) truncated");
        return e.finish();
    }

private:
    // Seed 004 truncateToolOutput: half head, half tail, "... [truncated N characters] ...".
    static std::size_t truncateToolOutputs(Editor &e, std::size_t from, std::size_t max)
    {
        if (max == 0)
            return 0;
        std::size_t count = 0;
        const std::string limit = " characters > maxToolOutput " + std::to_string(max);
        for (std::size_t q = from; q < e.size(); ++q) {
            const std::size_t i = e.at(q);
            if (e.isRemoved(i))
                continue;
            const Message &m = e.transcript().messages[i];
            for (std::size_t b = 0; b < m.blocks.size(); ++b) {
                const std::string &text = m.blocks[b].text;
                if (m.blocks[b].type != BlockType::ToolResult || text.size() <= max)
                    continue;
                // The original text (messages here are only ever removed before this step): its
                // length is the input's, and only the kept head and tail are read.
                const std::size_t chars = e.textLength(i, b);
                if (chars <= max)
                    continue;
                const std::size_t head = max / 2, tail = max - head;
                const std::string_view sv(text);
                const std::string_view first = sv.substr(0, codePointOffset(sv, head));
                const std::string_view last = tail ? sv.substr(lastPointsOffset(sv, tail)) : std::string_view();
                const std::string marker = "\n\n... [truncated " + std::to_string(chars - max) + " characters] ...\n\n";
                std::string out;
                out.reserve(first.size() + marker.size() + last.size());
                out.append(first).append(marker).append(last);
                std::string why = "tool output of " + std::to_string(chars);
                why += limit;
                if (e.setBlockText(i, b, std::move(out), Fate::Snipped, std::move(why)))
                    ++count;
            }
        }
        return count;
    }
};

} // namespace

std::unique_ptr<Strategy> makeSlidingWindow()
{
    return std::make_unique<SlidingWindow>();
}

} // namespace cl::strategy
