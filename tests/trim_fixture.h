// SPDX-License-Identifier: MIT
#pragma once

// trim-tools with a given number of kept rounds: the strategy the GUI and document tests apply.

#include "core/strategy/strategy.h"
#include "core/strategies/registry.h"

#include <nlohmann/json.hpp>

namespace cl::test {

inline strategy::Result runTrim(const Transcript &t, int keep)
{
    const strategy::Strategy *s = strategy::find("trim-tools");
    strategy::Input in(t);
    return strategy::run(*s, in, nlohmann::json{{"keepLastToolRounds", keep}});
}

} // namespace cl::test
