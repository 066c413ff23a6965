// SPDX-License-Identifier: MIT
#include "core/strategies/tier_strategy.h"

#include "core/strategy/editor.h"

#include <algorithm>

namespace cl::strategy {

namespace {

class TierStrategy final : public Strategy
{
public:
    explicit TierStrategy(TierSpec s)
        : m_spec(std::move(s))
    {
    }
    std::string_view name() const override { return m_spec.name; }
    std::string_view title() const override { return m_spec.title; }
    std::string_view source() const override { return m_spec.source; }
    Group group() const override { return m_spec.group; }
    std::string_view follows() const override { return {}; }
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
    TierSpec m_spec;
};

} // namespace

std::unique_ptr<Strategy> makeTierStrategy(TierSpec spec)
{
    return std::make_unique<TierStrategy>(std::move(spec));
}

ParamSpec forceParam()
{
    return {"force", ParamSpec::Type::Bool, 0, 0, false, {}, "Run even below the usage trigger (preview)."};
}

ParamSpec triggerParam(double def, std::string help)
{
    return {"triggerRatio", ParamSpec::Type::Double, 0, 1, def, {}, std::move(help)};
}

std::size_t charsParam(const Params &p, std::string_view name)
{
    return static_cast<std::size_t>(std::max<std::int64_t>(1, p.integer(name)));
}

} // namespace cl::strategy
