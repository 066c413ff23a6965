// SPDX-License-Identifier: MIT
#pragma once

// Factories of the seed 003 tier strategies (seed-mechanics.md §9.2–9.6), one per file under core/strategies/.
// The tiers themselves are functions over an Editor in tier_ops.h (shared with the progressive manager).

#include "core/strategy.h"

#include <memory>

namespace cl::strategy {

std::unique_ptr<Strategy> makeSnip();          // "snip"          tier_single.cpp
std::unique_ptr<Strategy> makeSnipSeed004();   // "snip-seed004"  tier_single.cpp
std::unique_ptr<Strategy> makeMicrocompact();  // "microcompact"  tier_single.cpp
std::unique_ptr<Strategy> makeAutoCompact();   // "auto-compact"  tier_single.cpp
std::unique_ptr<Strategy> makeHardTruncate();  // "hard-truncate" tier_single.cpp
std::unique_ptr<Strategy> makeProgressive();   // "progressive"   tier_progressive.cpp

} // namespace cl::strategy
