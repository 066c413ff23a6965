// SPDX-License-Identifier: MIT
#pragma once

// One tier of tiers.h behind a usage trigger (usage = context tokens / window) that the "force"
// parameter skips: the shape shared by snip, snip-seed004, microcompact, auto-compact and
// hard-truncate (docs/design/mechanisms.md §9.2–9.5).

#include "core/strategies/tiers.h"
#include "core/strategy/strategy.h"

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace cl::strategy {

struct TierSpec {
    std::string_view name, title, source;
    Group group;
    std::string_view description;
    std::vector<ParamSpec> params;
    bool strictTrigger = true; // usage > trigger (seed's manageContext); false: usage >= trigger
    std::function<tiers::TierOutcome(tiers::TierRun &, const Input &, const Params &)> tier;
};

std::unique_ptr<Strategy> makeTierStrategy(TierSpec spec);

// The parameters every tier strategy shares.
ParamSpec forceParam();
ParamSpec triggerParam(double def, std::string help);
// An integer parameter read as a character count of at least 1.
std::size_t charsParam(const Params &p, std::string_view name);

} // namespace cl::strategy
