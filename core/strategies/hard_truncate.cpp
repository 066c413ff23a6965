// SPDX-License-Identifier: MIT
// Tier 4 as a strategy: only the newest messages that fit the window stay (mechanisms.md §9.5).
#include "core/strategies/factories.h"
#include "core/strategies/tier_strategy.h"

namespace cl::strategy {

using T = ParamSpec::Type;

std::unique_ptr<Strategy> makeHardTruncate()
{
    return makeTierStrategy(TierSpec{
        "hard-truncate",
        "Hard truncate",
        "seed 003 tier 4",
        Group::Removal,
        "At triggerRatio (95 %) of the window or more: budget = window - system prompt tokens - safetyMargin (1000); "
        "the newest messages that fit the budget are kept (the kept tail starts at a safe cut), older ones are dropped. "
        "The system prompt stays.",
        {triggerParam(0.95, "Truncate when usage is at least this share of the window (default 0.95)."),
         {"safetyMargin", T::Int, 0, 1e9, 1000, {}, "Tokens left free below the window (default 1000)."},
         forceParam()},
        false,
        [](tiers::TierRun &run, const Input &in, const Params &p) {
            return tiers::hardTruncate(run, in.contextWindow(), p.integer("safetyMargin"));
        }});
}

} // namespace cl::strategy
