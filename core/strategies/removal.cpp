// SPDX-License-Identifier: MIT
// Seed 000 §4 (docs/design/mechanisms.md §9.8): middle, oldest and hybrid removal, and auto-select, which
// picks one by the analysis' recommendation (provider table -> feature rules -> adaptive) and, when
// adaptive, runs middle and oldest and keeps the result with the higher seed 000 efficiency.
// The removal order of each mode is documented in strategies/exchanges.h (removeExchanges).
#include "core/strategies/factories.h"

#include "core/strategies/exchanges.h"

namespace cl::strategy {

namespace {

using exchanges::Removal;

std::vector<ParamSpec> removalParams()
{
    return {
        {"targetTokens", ParamSpec::Type::Int, 0, 1e12, 0, {}, "Live context to reach (fixed part included, in the agent's count); 0: the analysis target (targetTokens option, else context window x 0.5)."},
        {"keepFirst", ParamSpec::Type::Int, 0, 1000000, 1, {}, "Exchanges kept at the start by middle and hybrid removal (after the system prompt)."},
        {"keepLast", ParamSpec::Type::Int, 0, 1000000, 1, {}, "Exchanges always kept at the end (the current request)."},
        {"rounds", ParamSpec::Type::Bool, 0, 0, true, {}, "When whole exchanges are not enough, also remove tool rounds (a call and its result) inside the exchanges left, keeping each exchange's answer; keepFirst and keepLast then count rounds."},
        {"force", ParamSpec::Type::Bool, 0, 0, false, {}, "Run even when the live context is within the target (then aims at half of it)."},
    };
}

// The removal target, a live context size like the agents' triggers (fixed part included, in the
// agent's count), and the same target as a conversation size in seed-estimate tokens, the unit the
// exchanges are removed in: the seed tokens whose removal frees live - target.
struct Target {
    std::int64_t live = 0, target = 0, seed = 0;
    std::string why;
};

Target targetOf(const Input &in, Editor &e, const Params &p)
{
    Target t;
    t.live = in.liveTokens();
    t.target = exchanges::removalTarget(e, p.integer("targetTokens"), p.flag("force"), t.live, t.why);
    const std::int64_t conversation = exchanges::conversationTokens(e);
    t.seed = std::max<std::int64_t>(0, conversation - in.seedTokensFor(t.live - t.target));
    return t;
}

std::string targetLine(const Target &t)
{
    return "target " + std::to_string(t.target) + " tokens of live context (" + t.why + "), now "
           + std::to_string(t.live) + "; conversation target " + std::to_string(t.seed) + " (plain estimate)";
}

std::string belowTarget(const Target &t)
{
    return "below target: " + std::to_string(t.live) + " <= " + std::to_string(t.target) + " tokens of live context";
}

std::string outcomeNote(Removal mode, const exchanges::RemovalOutcome &o)
{
    std::string s = std::string(exchanges::removalName(mode)) + " removal: removed " + std::to_string(o.exchangesRemoved)
                    + " exchange(s)" + (o.roundsRemoved ? " and " + std::to_string(o.roundsRemoved) + " tool round(s)" : std::string())
                    + " (" + std::to_string(o.messagesBefore - o.messagesKept) + " messages), conversation "
                    + std::to_string(o.tokensBefore) + " -> " + std::to_string(o.tokensAfter) + " tokens (plain estimate)";
    s += o.reached ? " (conversation target " + std::to_string(o.target) + ")"
                   : "; conversation target " + std::to_string(o.target) + " not reached: no removable exchange or tool round left";
    return s;
}

void fillExtra(Editor &e, const exchanges::RemovalOutcome &o, Removal mode)
{
    e.extra()["mode"] = std::string(exchanges::removalName(mode));
    e.extra()["target"] = o.target;
    e.extra()["tokensBefore"] = o.tokensBefore;
    e.extra()["tokensAfter"] = o.tokensAfter;
    e.extra()["messagesKept"] = o.messagesKept;
    e.extra()["exchanges"] = o.exchanges;
    e.extra()["exchangesRemoved"] = o.exchangesRemoved;
    e.extra()["rounds"] = o.rounds;
    e.extra()["roundsRemoved"] = o.roundsRemoved;
    e.extra()["reached"] = o.reached;
    e.extra()["efficiency"] = o.efficiency;
}

class RemovalStrategy final : public Strategy
{
public:
    explicit RemovalStrategy(Removal mode)
        : m_mode(mode)
    {
    }
    std::string_view name() const override { return exchanges::removalName(m_mode); }
    std::string_view title() const override
    {
        return m_mode == Removal::Middle ? "Middle removal" : m_mode == Removal::Oldest ? "Oldest removal"
                                                                                        : "Hybrid removal";
    }
    std::string_view source() const override { return "seed 000 §4"; }
    Group group() const override { return Group::Removal; }
    std::string_view follows() const override { return ""; }
    std::string_view description() const override
    {
        switch (m_mode) {
        case Removal::Middle:
            return "Removes whole exchanges (a user request and everything up to the next one) from the middle of the "
                   "conversation outward until it fits the target; keeps the system prompt, the first keepFirst and "
                   "the last keepLast exchanges. When that is not enough (an agent's session is often one request "
                   "and many tool calls), tool rounds go the same way.";
        case Removal::Oldest:
            return "Removes whole exchanges from the oldest on until the conversation fits the target; keeps the "
                   "system prompt and the last keepLast exchanges.";
        case Removal::Hybrid:
            return "Keeps the opening (first keepFirst exchanges) and the end like middle removal but removes the "
                   "middle region oldest first; only when that is not enough are the opening exchanges removed too.";
        }
        return {};
    }
    std::vector<ParamSpec> params() const override { return removalParams(); }
    Result apply(const Input &in, const Params &p) const override
    {
        Editor e(in);
        const Target target = targetOf(in, e, p);
        e.log(targetLine(target));
        if (target.live <= target.target) {
            e.setNote(belowTarget(target));
            return e.finish();
        }
        const auto o = exchanges::removeExchanges(e, m_mode, target.seed, std::size_t(p.integer("keepFirst")),
                                                  std::size_t(p.integer("keepLast")), p.flag("rounds"));
        fillExtra(e, o, m_mode);
        e.setNote(outcomeNote(m_mode, o));
        return e.finish();
    }

private:
    Removal m_mode;
};

class AutoSelect final : public Strategy
{
public:
    std::string_view name() const override { return "auto-select"; }
    std::string_view title() const override { return "Auto-select removal (adaptive)"; }
    std::string_view source() const override { return "seed 000 §4"; }
    Group group() const override { return Group::Removal; }
    std::string_view follows() const override { return ""; }
    std::string_view description() const override
    {
        return "Chooses middle, oldest or hybrid removal by the provider/model table, then the conversation-feature "
               "rules; when no rule fires or its confidence is below minConfidence (0.6) it runs middle and oldest and "
               "keeps the one with the higher efficiency = 0.6 x token reduction + 0.4 x messages kept.";
    }
    std::vector<ParamSpec> params() const override { return removalParams(); }
    Result apply(const Input &in, const Params &p) const override
    {
        const auto &rec = in.analysis().recommendation;
        const std::size_t keepFirst = std::size_t(p.integer("keepFirst")), keepLast = std::size_t(p.integer("keepLast"));
        const bool rounds = p.flag("rounds");
        Editor e(in);
        const Target target = targetOf(in, e, p);
        std::vector<std::string> head;
        head.push_back("recommendation: " + rec.strategy + " by rule " + rec.rule + " (confidence "
                       + exchanges::fixed(rec.confidence, 2) + (rec.model.empty() ? "" : ", model " + rec.model) + ")");
        for (const auto &r : rec.reasons)
            head.push_back("  " + std::string(r.rule) + ": " + r.describe());
        head.push_back(targetLine(target));
        if (target.live <= target.target) {
            for (auto &l : head)
                e.log(std::move(l));
            e.setNote(belowTarget(target));
            return e.finish();
        }
        if (rec.strategy == "middle" || rec.strategy == "oldest" || rec.strategy == "hybrid") {
            const Removal mode = rec.strategy == "middle"   ? Removal::Middle
                                 : rec.strategy == "oldest" ? Removal::Oldest
                                                            : Removal::Hybrid;
            for (auto &l : head)
                e.log(std::move(l));
            const auto o = exchanges::removeExchanges(e, mode, target.seed, keepFirst, keepLast, rounds);
            fillExtra(e, o, mode);
            e.extra()["rule"] = rec.rule;
            e.extra()["confidence"] = rec.confidence;
            e.setNote("auto-select (" + rec.rule + ", confidence " + exchanges::fixed(rec.confidence, 2) + "): "
                      + outcomeNote(mode, o));
            return e.finish();
        }
        // Adaptive: run both, keep the higher efficiency (middle on ties, as the seed's >=).
        Editor middle(in), oldest(in);
        const auto om = exchanges::removeExchanges(middle, Removal::Middle, target.seed, keepFirst, keepLast, rounds);
        const auto oo = exchanges::removeExchanges(oldest, Removal::Oldest, target.seed, keepFirst, keepLast, rounds);
        const bool pickMiddle = om.efficiency >= oo.efficiency;
        Editor &chosen = pickMiddle ? middle : oldest;
        const auto &o = pickMiddle ? om : oo;
        const std::string line = "adaptive (" + rec.adaptiveReason + "): middle " + std::to_string(om.tokensAfter)
                                 + " tokens / " + std::to_string(om.messagesKept) + " kept -> efficiency "
                                 + exchanges::fixed(om.efficiency, 4) + "; oldest " + std::to_string(oo.tokensAfter)
                                 + " tokens / " + std::to_string(oo.messagesKept) + " kept -> efficiency "
                                 + exchanges::fixed(oo.efficiency, 4) + "; " + (pickMiddle ? "middle" : "oldest") + " wins";
        for (auto &l : head)
            chosen.log(std::move(l));
        chosen.log(line);
        fillExtra(chosen, o, pickMiddle ? Removal::Middle : Removal::Oldest);
        chosen.extra()["rule"] = rec.rule;
        chosen.extra()["confidence"] = rec.confidence;
        chosen.extra()["adaptive"] = {{"reason", rec.adaptiveReason},
                                      {"middle", {{"tokensAfter", om.tokensAfter}, {"messagesKept", om.messagesKept}, {"efficiency", om.efficiency}}},
                                      {"oldest", {{"tokensAfter", oo.tokensAfter}, {"messagesKept", oo.messagesKept}, {"efficiency", oo.efficiency}}},
                                      {"chosen", pickMiddle ? "middle" : "oldest"}};
        chosen.setNote("auto-select " + line + ": " + outcomeNote(pickMiddle ? Removal::Middle : Removal::Oldest, o));
        return chosen.finish();
    }
};

} // namespace

std::unique_ptr<Strategy> makeMiddleRemoval()
{
    return std::make_unique<RemovalStrategy>(Removal::Middle);
}

std::unique_ptr<Strategy> makeOldestRemoval()
{
    return std::make_unique<RemovalStrategy>(Removal::Oldest);
}

std::unique_ptr<Strategy> makeHybridRemoval()
{
    return std::make_unique<RemovalStrategy>(Removal::Hybrid);
}

std::unique_ptr<Strategy> makeAutoSelect()
{
    return std::make_unique<AutoSelect>();
}

} // namespace cl::strategy
