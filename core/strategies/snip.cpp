// SPDX-License-Identifier: MIT
// Tier 1 as a strategy: long tool results keep their head and tail (mechanisms.md §9.2), in the
// shares of the tier manager ("snip") and of the seed 004 operation ("snip-seed004").
#include "core/strategies/factories.h"
#include "core/strategies/tier_strategy.h"

namespace cl::strategy {

using T = ParamSpec::Type;

std::unique_ptr<Strategy> makeSnip()
{
    return makeTierStrategy(TierSpec{
        "snip",
        "Snip large tool results",
        "seed 003 tier 1",
        Group::ToolResults,
        "Every tool result longer than snipMaxChars characters (code points) keeps its first headShare and last "
        "tailShare of snipMaxChars with \"[... N characters snipped ...]\" between. Defaults 10000, "
        "30 %, 30 %; it snips at any usage (trigger 0) unless a trigger is set (the usage bands put it at 40 %).",
        {{"snipMaxChars", T::Int, 1, 1e9, 10000, {}, "Tool results longer than this many characters are snipped."},
         {"headShare", T::Double, 0, 0.5, 0.3, {}, "Share of snipMaxChars kept from the start."},
         {"tailShare", T::Double, 0, 0.5, 0.3, {}, "Share of snipMaxChars kept from the end."},
         triggerParam(0.0, "Snip only when usage is at least this share of the window (0: always)."),
         forceParam()},
        false,
        [](tiers::TierRun &run, const Input &, const Params &p) {
            tiers::SnipStyle style = tiers::seed003Snip();
            style.headShare = p.number("headShare");
            style.tailShare = p.number("tailShare");
            return tiers::snip(run, charsParam(p, "snipMaxChars"), style);
        }});
}

std::unique_ptr<Strategy> makeSnipSeed004()
{
    return makeTierStrategy(TierSpec{
        "snip-seed004",
        "Truncate long tool output",
        "seed 004 truncateToolOutput",
        Group::ToolResults,
        "Every tool result longer than maxToolOutput characters (code points) keeps its first and last half of "
        "maxToolOutput with \"... [truncated N characters] ...\" between (default 3000).",
        {{"maxToolOutput", T::Int, 1, 1e9, 3000, {}, "Tool results longer than this many characters are truncated."}},
        false,
        [](tiers::TierRun &run, const Input &, const Params &p) {
            return tiers::snip(run, charsParam(p, "maxToolOutput"), tiers::seed004Snip());
        }});
}

} // namespace cl::strategy
