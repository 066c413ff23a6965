// SPDX-License-Identifier: MIT
// Tier 3 as a strategy: the oldest messages become one rule-based summary (mechanisms.md §9.4).
#include "core/strategies/factories.h"
#include "core/strategies/tier_strategy.h"

namespace cl::strategy {

using T = ParamSpec::Type;

std::unique_ptr<Strategy> makeAutoCompact()
{
    return makeTierStrategy(TierSpec{
        "auto-compact",
        "Auto-compact into a summary",
        "seed 003 tier 3",
        Group::Summary,
        "When usage is above triggerRatio (80 %) of the window: threshold = triggerRatio x window, targetReduction = "
        "total - threshold x 0.5; the oldest messages are accumulated until they reach it, the cut moves to a safe point, "
        "and they are replaced by one \"[Conversation History Summary] ... [End Summary — recent messages follow]\" "
        "message (decisions, files modified, task status and next steps, errors and resolutions). The system prompt "
        "stays.",
        {triggerParam(0.8, "Compact when usage is above this share of the window (default 0.8)."),
         {"summaryMaxChars", T::Int, 200, 1e7, 4000, {}, "Longest summary in characters (a model is asked for at most 1000 tokens, about 4000 characters)."},
         forceParam()},
        true,
        [](tiers::TierRun &run, const Input &in, const Params &p) {
            const auto threshold = static_cast<std::int64_t>(p.number("triggerRatio") * static_cast<double>(in.contextWindow()));
            return tiers::autoCompact(run, threshold, static_cast<std::size_t>(p.integer("summaryMaxChars")));
        }});
}

} // namespace cl::strategy
