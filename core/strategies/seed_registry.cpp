// SPDX-License-Identifier: MIT
#include "core/strategies/registry.h"
#include "core/strategies/seed_strategies.h"

namespace cl::strategy {

void addSeedStrategies(std::vector<std::unique_ptr<Strategy>> &out)
{
    out.push_back(makeTrimTools());
    out.push_back(makeMiddleRemoval());
    out.push_back(makeOldestRemoval());
    out.push_back(makeHybridRemoval());
    out.push_back(makeAutoSelect());
    out.push_back(makeMicrocompaction());
    out.push_back(makeSlidingWindow());
}

} // namespace cl::strategy
