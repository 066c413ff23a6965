// SPDX-License-Identifier: MIT
// The seed 003 tiers as stand-alone strategies (seed-mechanics.md §9.2–9.5): snip (and the seed 004
// variant), microcompact, auto-compact, hard truncate. Each is one tier of tier_ops.h behind a
// usage trigger (usage = context tokens / window) that "force" skips.
#include "core/strategies/tier_strategies.h"

#include "core/strategies/tier_ops.h"
#include "core/strategy_edit.h"

#include <functional>

namespace cl::strategy {

namespace {

using T = ParamSpec::Type;

ParamSpec forceParam()
{
    return {"force", T::Bool, 0, 0, false, {}, "Run even below the usage trigger (preview)."};
}

ParamSpec triggerParam(double def, std::string help)
{
    return {"triggerRatio", T::Double, 0, 1, def, {}, std::move(help)};
}

struct Spec {
    std::string_view name, title, source, description;
    std::vector<ParamSpec> params;
    bool strictTrigger = true; // usage > trigger (seed's manageContext); false: usage >= trigger
    std::function<tiers::TierOutcome(tiers::TierRun &, const Input &, const Params &)> tier;
};

class TierStrategy final : public Strategy
{
public:
    explicit TierStrategy(Spec s)
        : m_spec(std::move(s))
    {
    }
    std::string_view name() const override { return m_spec.name; }
    std::string_view title() const override { return m_spec.title; }
    std::string_view source() const override { return m_spec.source; }
    std::string_view description() const override { return m_spec.description; }
    std::vector<ParamSpec> params() const override { return m_spec.params; }
    Result apply(const Input &in, const Params &p) const override
    {
        Editor e(in);
        tiers::TierRun run(e);
        const std::int64_t window = in.contextWindow();
        const bool hasTrigger = p.values.contains("triggerRatio");
        if (hasTrigger) {
            const double trigger = p.number("triggerRatio");
            const double usage = run.usage(window);
            const bool above = m_spec.strictTrigger ? usage > trigger : usage >= trigger;
            const std::string measure = tiers::percent(usage) + " of " + std::to_string(window) + " tokens";
            e.extra()["usage"] = usage;
            if (!above && !p.flag("force")) {
                e.setNote("below trigger: " + tiers::percent(usage) + (m_spec.strictTrigger ? " <= " : " < ")
                          + tiers::percent(trigger));
                e.log("usage " + measure + "; trigger " + tiers::percent(trigger) + ": nothing to do");
                return e.finish();
            }
            e.log("usage " + measure + (above ? "" : " (below the trigger " + tiers::percent(trigger) + ", forced)"));
        }
        const std::int64_t before = run.tokens();
        const tiers::TierOutcome o = m_spec.tier(run, in, p);
        const std::int64_t after = run.tokens();
        e.extra()["tokensBefore"] = before;
        e.extra()["tokensAfter"] = after;
        e.setNote(o.note + (o.changed ? " (" + std::to_string(before) + " -> " + std::to_string(after) + " tokens)" : ""));
        return e.finish();
    }

private:
    Spec m_spec;
};

std::size_t chars(const Params &p, std::string_view name)
{
    return static_cast<std::size_t>(std::max<std::int64_t>(1, p.integer(name)));
}

} // namespace

std::unique_ptr<Strategy> makeSnip()
{
    return std::make_unique<TierStrategy>(Spec{
        "snip", "Snip large tool results", "seed 003 tier 1",
        "Every tool result longer than snipMaxChars characters (code points) keeps its first headShare and last "
        "tailShare of snipMaxChars with \"[... N characters snipped ...]\" between. Defaults are seed 003's (10000, "
        "30 %, 30 %); the seed's manageContext snips at any usage (trigger 0), its usage bands put tier 1 at 40 %.",
        {{"snipMaxChars", T::Int, 1, 1e9, 10000, {}, "Tool results longer than this many characters are snipped."},
         {"headShare", T::Double, 0, 0.5, 0.3, {}, "Share of snipMaxChars kept from the start."},
         {"tailShare", T::Double, 0, 0.5, 0.3, {}, "Share of snipMaxChars kept from the end."},
         triggerParam(0.0, "Snip only when usage is at least this share of the window (0: always, as the seed)."),
         forceParam()},
        false,
        [](tiers::TierRun &run, const Input &, const Params &p) {
            tiers::SnipStyle style = tiers::seed003Snip();
            style.headShare = p.number("headShare");
            style.tailShare = p.number("tailShare");
            return tiers::snip(run, chars(p, "snipMaxChars"), style);
        }});
}

std::unique_ptr<Strategy> makeSnipSeed004()
{
    return std::make_unique<TierStrategy>(Spec{
        "snip-seed004", "Truncate tool output (seed 004)", "seed 004 truncateToolOutput",
        "Every tool result longer than maxToolOutput characters (code points) keeps its first and last half of "
        "maxToolOutput with \"... [truncated N characters] ...\" between (seed 004, default 3000).",
        {{"maxToolOutput", T::Int, 1, 1e9, 3000, {}, "Tool results longer than this many characters are truncated."}},
        false,
        [](tiers::TierRun &run, const Input &, const Params &p) {
            return tiers::snip(run, chars(p, "maxToolOutput"), tiers::seed004Snip());
        }});
}

std::unique_ptr<Strategy> makeMicrocompact()
{
    return std::make_unique<TierStrategy>(Spec{
        "microcompact", "Microcompact old tool results", "seed 003 tier 2",
        "When usage is above triggerRatio (60 %) of the context window, every tool result in the oldest oldestShare "
        "(50 %) of the messages that is not compacted yet becomes one deterministic line \"[Compacted: <tool> <key "
        "output>]\" (path, size, language and definitions of a read; matches of a search; exit status and last line of "
        "a command; lines changed by an edit; ...).",
        {triggerParam(0.6, "Compact when usage is above this share of the window (seed 003: 0.6)."),
         {"oldestShare", T::Double, 0, 1, 0.5, {}, "Share of the messages, oldest first, whose tool results are compacted."},
         forceParam()},
        true,
        [](tiers::TierRun &run, const Input &, const Params &p) {
            return tiers::microcompact(run, p.number("oldestShare"));
        }});
}

std::unique_ptr<Strategy> makeAutoCompact()
{
    return std::make_unique<TierStrategy>(Spec{
        "auto-compact", "Auto-compact into a summary", "seed 003 tier 3",
        "When usage is above triggerRatio (80 %) of the window: threshold = triggerRatio x window, targetReduction = "
        "total - threshold x 0.5; the oldest messages are accumulated until they reach it, the cut moves to a safe point, "
        "and they are replaced by one \"[Conversation History Summary] ... [End Summary — recent messages follow]\" "
        "message (decisions, files modified, task status and next steps, errors and resolutions). The system prompt "
        "stays.",
        {triggerParam(0.8, "Compact when usage is above this share of the window (seed 003: 0.8)."),
         {"summaryMaxChars", T::Int, 200, 1e7, 4000, {},
          "Longest summary in characters (the seed asks its model for at most 1000 tokens, about 4000 characters)."},
         forceParam()},
        true,
        [](tiers::TierRun &run, const Input &in, const Params &p) {
            const auto threshold = static_cast<std::int64_t>(p.number("triggerRatio") * static_cast<double>(in.contextWindow()));
            return tiers::autoCompact(run, threshold, static_cast<std::size_t>(p.integer("summaryMaxChars")));
        }});
}

std::unique_ptr<Strategy> makeHardTruncate()
{
    return std::make_unique<TierStrategy>(Spec{
        "hard-truncate", "Hard truncate", "seed 003 tier 4",
        "At triggerRatio (95 %) of the window or more: budget = window - system prompt tokens - safetyMargin (1000); "
        "the newest messages that fit the budget are kept (the kept tail starts at a safe cut), older ones are dropped. "
        "The system prompt stays.",
        {triggerParam(0.95, "Truncate when usage is at least this share of the window (seed 003: 0.95)."),
         {"safetyMargin", T::Int, 0, 1e9, 1000, {}, "Tokens left free below the window (seed 003: 1000)."},
         forceParam()},
        false,
        [](tiers::TierRun &run, const Input &in, const Params &p) {
            return tiers::hardTruncate(run, in.contextWindow(), p.integer("safetyMargin"));
        }});
}

} // namespace cl::strategy
