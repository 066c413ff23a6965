// SPDX-License-Identifier: MIT
#include "core/strategies/registry.h"
#include "core/strategies/tier_strategies.h"

namespace cl::strategy {

void addTierStrategies(std::vector<std::unique_ptr<Strategy>> &out)
{
    out.push_back(makeSnip());
    out.push_back(makeSnipSeed004());
    out.push_back(makeMicrocompact());
    out.push_back(makeAutoCompact());
    out.push_back(makeHardTruncate());
    out.push_back(makeProgressive());
}

} // namespace cl::strategy
