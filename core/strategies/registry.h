// SPDX-License-Identifier: MIT
#pragma once

// The catalogue of strategies: every strategy, in menu order, for the code that offers a choice
// (CLI, GUI, compare, operations). The strategy engine itself (core/strategy/) never needs it.

#include "core/strategy/strategy.h"

#include <string_view>
#include <vector>

namespace cl::strategy {

// Every strategy, in menu order. Lives for the program's lifetime.
const std::vector<const Strategy *> &all();
// The strategy with this name, or null.
const Strategy *find(std::string_view name);

} // namespace cl::strategy
