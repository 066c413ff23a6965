// SPDX-License-Identifier: MIT
// docs/design/agents.md §10–11: OpenHands condensers.
// Amortized forgetting: when the view holds more than maxSize (120) events (conversation messages
// here), it keeps the first keepFirst (4) and as many of the newest as bring the view down to
// maxSize / 2 (one fewer when a summary takes a place), forgets the rest, and drops tool messages
// whose call was forgotten (and calls whose results were). With summarize, a condensation summary
// (style "openhands") goes in at offset keepFirst.
// Observation masking: always; every tool result outside the last attentionWindow (100) events
// gets the content "<MASKED>" (outputs no longer than that stay as they are).
#include "core/strategies/factories.h"

#include "core/strategies/agent_common.h"
#include "core/strategy/summary/summary.h"
#include "core/tokens/estimator.h"

namespace cl::strategy {

namespace {

class Amortized final : public Strategy
{
public:
    std::string_view name() const override { return "openhands-amortized"; }
    std::string_view title() const override { return "OpenHands amortized forgetting"; }
    std::string_view source() const override { return "peer: OpenHands condenser"; }
    Group group() const override { return Group::Summary; }
    std::string_view follows() const override { return "OpenHands"; }
    std::string_view description() const override
    {
        return "What OpenHands' amortized forgetting condenser does above 120 events: keeps the first 4 and the newest "
               "events so that the view drops to half of max_size; forgotten calls take their results along; an "
               "optional summary stands in for the forgotten middle.";
    }
    std::vector<ParamSpec> params() const override
    {
        return {{"maxSize", ParamSpec::Type::Int, 2, 100000000, 120, {}, "Events that trigger the condensation."},
                {"keepFirst", ParamSpec::Type::Int, 0, 1000000, 4, {}, "Head events always kept."},
                {"summarize", ParamSpec::Type::Bool, 0, 0, false, {}, "Insert a summary at offset keepFirst."},
                agents::forceParam()};
    }

    Result apply(const Input &in, const Params &p) const override
    {
        Editor e(in);
        const Transcript &t = e.transcript();
        const std::size_t n = e.size();
        const auto maxSize = static_cast<std::size_t>(p.integer("maxSize"));
        if (!p.flag("force") && n <= maxSize)
            return agents::unchangedResult(in, "below trigger: " + std::to_string(n) + " <= " + std::to_string(maxSize)
                                                   + " events");
        const bool summarize = p.flag("summarize");
        const std::size_t head = std::min<std::size_t>(n, static_cast<std::size_t>(p.integer("keepFirst")));
        const std::size_t target = maxSize / 2;
        const std::size_t reserved = head + (summarize ? 1 : 0);
        const std::size_t tail = target > reserved ? target - reserved : 0;
        if (head + tail >= n)
            return agents::unchangedResult(in, "nothing to forget: " + std::to_string(n) + " events fit in "
                                                   + std::to_string(head) + " head + " + std::to_string(tail) + " tail");
        const std::size_t from = head, to = n - tail; // forgotten positions [from, to)
        std::vector<char> kept(n, 1);
        for (std::size_t pos = from; pos < to; ++pos)
            kept[pos] = e.isProtected(e.at(pos)) ? 1 : 0;
        std::vector<char> before = kept;
        agents::closeKeptPairs(e, kept);
        std::size_t pairDrops = 0;
        for (std::size_t pos = 0; pos < n; ++pos)
            pairDrops += before[pos] && !kept[pos] ? 1 : 0;
        const std::string why = "forgotten: between the first " + std::to_string(head) + " and the last "
                                + std::to_string(tail) + " events";
        std::vector<std::size_t> forgotten;
        for (std::size_t pos = 0; pos < n; ++pos)
            if (!kept[pos]) {
                const bool middle = pos >= from && pos < to;
                if (e.remove(e.at(pos), middle ? why : "its tool partner was forgotten",
                             summarize ? Fate::Summarized : Fate::Removed))
                    forgotten.push_back(e.at(pos));
            }
        if (summarize && !forgotten.empty()) {
            SummaryRequest req;
            req.transcript = &t;
            req.style = "openhands";
            req.analysis = &e.analysis();
            req.messages = forgotten;
            for (const std::size_t i : forgotten)
                req.tokensBefore += tokens::estimateMessage(t.messages[i]);
            Summary s = in.summary().summarize(req);
            // The first kept event after the head.
            std::size_t at = t.messages.size();
            for (std::size_t pos = from; pos < n; ++pos)
                if (kept[pos]) {
                    at = e.at(pos);
                    break;
                }
            insertSummary(e, at, s.text, "OpenHands condensation summary at offset " + std::to_string(head));
            e.extra()["summary"] = s.sections;
        }
        e.extra()["forgottenRange"] = {from, to};
        e.extra()["pairDrops"] = pairDrops;
        e.log("view " + std::to_string(n) + " > " + std::to_string(maxSize) + ": keep " + std::to_string(head)
              + " head + " + std::to_string(tail) + " tail" + (summarize ? " + summary" : "") + " = target "
              + std::to_string(target));
        if (pairDrops)
            e.log(std::to_string(pairDrops) + " kept event(s) dropped because their tool partner was forgotten");
        e.setNote("forgot " + std::to_string(forgotten.size()) + " of " + std::to_string(n) + " events (view "
                  + std::to_string(n) + " -> " + std::to_string(n - forgotten.size() + (summarize ? 1 : 0)) + ")");
        agents::closeRemovals(e);
        return e.finish();
    }
};

class Masking final : public Strategy
{
public:
    std::string_view name() const override { return "openhands-observation-masking"; }
    std::string_view title() const override { return "OpenHands observation masking"; }
    std::string_view source() const override { return "peer: OpenHands condenser"; }
    Group group() const override { return Group::ToolResults; }
    std::string_view follows() const override { return "OpenHands"; }
    std::string_view description() const override
    {
        return "What OpenHands' observation-masking condenser does: tool results older than the last 100 events are "
               "replaced by <MASKED>; everything else stays.";
    }
    std::vector<ParamSpec> params() const override
    {
        return {{"attentionWindow", ParamSpec::Type::Int, 0, 100000000, 100, {}, "Newest events left unmasked."},
                {"placeholder", ParamSpec::Type::String, 0, 0, "<MASKED>", {}, "Content of a masked observation."}};
    }

    Result apply(const Input &in, const Params &p) const override
    {
        Editor e(in);
        const Transcript &t = e.transcript();
        const auto window = static_cast<std::size_t>(p.integer("attentionWindow"));
        const std::string placeholder = p.string("placeholder");
        const std::size_t end = e.size() > window ? e.size() - window : 0;
        std::size_t masked = 0;
        const std::string why = "observation outside the last " + std::to_string(window) + " events"; // built once
        std::vector<Editor::TextEdit> edits;
        for (std::size_t pos = 0; pos < end; ++pos) {
            const std::size_t i = e.at(pos);
            const Message &m = t.messages[i];
            for (std::size_t b = 0; b < m.blocks.size(); ++b)
                if (m.blocks[b].type == BlockType::ToolResult && m.blocks[b].text.size() > placeholder.size())
                    edits.push_back({i, b, placeholder, Fate::Cleared, why});
        }
        for (const char done : e.setBlockTexts(edits))
            masked += done ? 1 : 0;
        e.log(std::to_string(e.size()) + " events; masking observations before event " + std::to_string(end));
        e.setNote(masked ? "masked " + std::to_string(masked) + " observation(s) outside the last "
                               + std::to_string(window) + " events"
                         : "nothing to mask outside the last " + std::to_string(window) + " events");
        return e.finish();
    }
};

} // namespace

std::unique_ptr<Strategy> makeOpenHandsAmortized()
{
    return std::make_unique<Amortized>();
}

std::unique_ptr<Strategy> makeOpenHandsMasking()
{
    return std::make_unique<Masking>();
}

} // namespace cl::strategy
