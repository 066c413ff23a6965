// SPDX-License-Identifier: MIT
// Seed 003 manageContext (docs/design/mechanisms.md §9.6): the four tiers in order on one Editor, each only
// when usage is still above its trigger after the previous ones (re-measured after every tier).
// Tier 1 (snip) runs at any usage by default, as in the seed's code ("always active").
// extra()["tiers"] = [{tier, name, before, after, changed, note}] for every tier that ran;
// extra()["skipped"] = [{tier, name, usage, trigger}] for the others.
#include "core/strategies/factories.h"

#include "core/strategies/tiers.h"
#include "core/strategy/editor.h"

namespace cl::strategy {

namespace {

using T = ParamSpec::Type;

class Progressive final : public Strategy
{
public:
    std::string_view name() const override { return "progressive"; }
    std::string_view title() const override { return "Progressive: snip, clear, summarize, truncate"; }
    std::string_view source() const override { return "seed 003 manageContext"; }
    Group group() const override { return Group::Summary; }
    std::string_view follows() const override { return ""; }
    std::string_view description() const override
    {
        return "Four tiers in turn: snip large tool results (tier 1), then, while usage is still above each "
               "trigger, microcompact old tool results (above 60 %), auto-compact the oldest messages into a summary "
               "(above 80 %) and hard-truncate to the window (at 95 %). Usage is re-measured after each tier; the log "
               "and extra().tiers give the tokens before and after every tier that ran.";
    }
    std::vector<ParamSpec> params() const override
    {
        return {
            {"snipMaxChars", T::Int, 1, 1e9, 10000, {}, "Tier 1: tool results longer than this many characters are snipped."},
            {"snipTrigger", T::Double, 0, 1, 0.0, {}, "Tier 1 runs when usage is at least this share (0: always; the usage bands would say 0.4)."},
            {"microcompactTrigger", T::Double, 0, 1, 0.6, {}, "Tier 2 runs when usage is above this share of the window."},
            {"oldestShare", T::Double, 0, 1, 0.5, {}, "Tier 2 compacts tool results in this oldest share of the messages."},
            {"autoCompactTrigger", T::Double, 0, 1, 0.8, {}, "Tier 3 runs when usage is above this share; its threshold is this share of the window."},
            {"summaryMaxChars", T::Int, 200, 1e7, 4000, {}, "Tier 3: longest summary in characters."},
            {"hardTruncateTrigger", T::Double, 0, 1, 0.95, {}, "Tier 4 runs when usage is at least this share."},
            {"safetyMargin", T::Int, 0, 1e9, 1000, {}, "Tier 4: tokens left free below the window."},
            {"force", T::Bool, 0, 0, false, {}, "Run every tier whatever the usage (preview)."},
        };
    }
    Result apply(const Input &in, const Params &p) const override
    {
        Editor e(in);
        tiers::TierRun run(e);
        const std::int64_t window = in.contextWindow();
        const bool force = p.flag("force");
        const std::int64_t start = run.tokens();
        nlohmann::json ran = nlohmann::json::array(), skipped = nlohmann::json::array();
        std::string which;
        struct Tier {
            int number;
            const char *name;
            double trigger;
            bool strict;
        };
        const Tier list[] = {{1, "snip", p.number("snipTrigger"), false},
                             {2, "microcompact", p.number("microcompactTrigger"), true},
                             {3, "auto-compact", p.number("autoCompactTrigger"), true},
                             {4, "hard-truncate", p.number("hardTruncateTrigger"), false}};
        for (const Tier &tier : list) {
            const std::int64_t before = run.tokens();
            const double usage = window > 0 ? static_cast<double>(before) / static_cast<double>(window) : 0.0;
            const bool above = tier.strict ? usage > tier.trigger : usage >= tier.trigger;
            if (!above && !force) {
                skipped.push_back({{"tier", tier.number}, {"name", tier.name}, {"usage", usage}, {"trigger", tier.trigger}});
                e.log("tier " + std::to_string(tier.number) + " " + tier.name + " skipped: usage " + tiers::percent(usage)
                      + (tier.strict ? " <= " : " < ") + tiers::percent(tier.trigger));
                continue;
            }
            tiers::TierOutcome o;
            switch (tier.number) {
            case 1: o = tiers::snip(run, static_cast<std::size_t>(p.integer("snipMaxChars")), tiers::seed003Snip(), true); break;
            case 2: o = tiers::microcompact(run, p.number("oldestShare")); break;
            case 3:
                o = tiers::autoCompact(run, static_cast<std::int64_t>(tier.trigger * static_cast<double>(window)),
                                       static_cast<std::size_t>(p.integer("summaryMaxChars")));
                break;
            default: o = tiers::hardTruncate(run, window, p.integer("safetyMargin")); break;
            }
            const std::int64_t after = run.tokens();
            ran.push_back({{"tier", tier.number}, {"name", tier.name}, {"before", before}, {"after", after}, {"changed", o.changed}, {"note", o.note}});
            e.log("tier " + std::to_string(tier.number) + " " + tier.name + ": " + std::to_string(before) + " -> "
                  + std::to_string(after) + " tokens (usage " + tiers::percent(usage) + ")");
            which += (which.empty() ? "" : ", ") + std::to_string(tier.number);
        }
        const std::int64_t end = run.tokens();
        e.extra()["tiers"] = std::move(ran);
        e.extra()["skipped"] = std::move(skipped);
        e.extra()["window"] = window;
        const std::string usageEnd = tiers::percent(window > 0 ? static_cast<double>(end) / static_cast<double>(window) : 0);
        if (which.empty())
            e.setNote("below every trigger: usage " + usageEnd + " of " + std::to_string(window) + " tokens");
        else
            e.setNote("tier" + std::string(which.size() > 1 ? "s " : " ") + which + " ran: " + std::to_string(start)
                      + " -> " + std::to_string(end) + " tokens (" + usageEnd + " of the window)");
        return e.finish();
    }
};

} // namespace

std::unique_ptr<Strategy> makeProgressive()
{
    return std::make_unique<Progressive>();
}

} // namespace cl::strategy
