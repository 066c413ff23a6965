// SPDX-License-Identifier: MIT
#pragma once

// Factories of the seed strategies (seed-mechanics.md §9), one per file under core/strategies/.

#include "core/strategy.h"

#include <memory>

namespace cl::strategy {

std::unique_ptr<Strategy> makeTrimTools();       // seed_trim.cpp: "trim-tools" (seed 000 §3)
std::unique_ptr<Strategy> makeMiddleRemoval();   // seed_removal.cpp: "middle" (seed 000 §4)
std::unique_ptr<Strategy> makeOldestRemoval();   // seed_removal.cpp: "oldest"
std::unique_ptr<Strategy> makeHybridRemoval();   // seed_removal.cpp: "hybrid"
std::unique_ptr<Strategy> makeAutoSelect();      // seed_removal.cpp: "auto-select" (adaptive choice)
std::unique_ptr<Strategy> makeMicrocompaction(); // seed_microcompact.cpp: "microcompaction" (seed 001)
std::unique_ptr<Strategy> makeSlidingWindow();   // seed_sliding.cpp: "sliding-window" (seed 004)

} // namespace cl::strategy
