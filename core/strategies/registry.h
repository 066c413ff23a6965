// SPDX-License-Identifier: MIT
#pragma once

// Each family of strategies adds its instances here, in menu order (strategy.cpp calls all three).

#include "core/strategy.h"

#include <memory>
#include <vector>

namespace cl::strategy {

void addSeedStrategies(std::vector<std::unique_ptr<Strategy>> &out); // seed 000/001/004: strategies/seed_registry.cpp
void addTierStrategies(std::vector<std::unique_ptr<Strategy>> &out); // seed 003 tiers: strategies/tier_registry.cpp
void addPeerStrategies(std::vector<std::unique_ptr<Strategy>> &out); // peers.md: strategies/peer_registry.cpp

} // namespace cl::strategy
