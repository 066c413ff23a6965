// SPDX-License-Identifier: MIT
// Tier 2 as a strategy: old tool results become one-line digests (mechanisms.md §9.3).
#include "core/strategies/factories.h"
#include "core/strategies/tier_strategy.h"

namespace cl::strategy {

using T = ParamSpec::Type;

std::unique_ptr<Strategy> makeMicrocompact()
{
    return makeTierStrategy(TierSpec{
        "microcompact",
        "Microcompact old tool results",
        "seed 003 tier 2",
        Group::ToolResults,
        "When usage is above triggerRatio (60 %) of the context window, every tool result in the oldest oldestShare "
        "(50 %) of the messages that is not compacted yet becomes one deterministic line \"[Compacted: <tool> <key "
        "output>]\" (path, size, language and definitions of a read; matches of a search; exit status and last line of "
        "a command; lines changed by an edit; ...).",
        {triggerParam(0.6, "Compact when usage is above this share of the window (default 0.6)."),
         {"oldestShare", T::Double, 0, 1, 0.5, {}, "Share of the messages, oldest first, whose tool results are compacted."},
         forceParam()},
        true,
        [](tiers::TierRun &run, const Input &, const Params &p) {
            return tiers::microcompact(run, p.number("oldestShare"));
        }});
}

} // namespace cl::strategy
