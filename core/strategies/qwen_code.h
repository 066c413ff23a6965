// SPDX-License-Identifier: MIT
#pragma once

// Qwen Code's compression threshold, shared by its strategy (qwen_code.cpp) and the forecasts that
// say when the agent will compress (core/workflow/).

#include <cstdint>

namespace cl::strategy {

// The prompt size at which Qwen Code compresses: min(threshold x window, window - summaryReserve -
// buffer) (the second only when positive).
std::int64_t qwenCodeCompressAt(std::int64_t window, double threshold = 0.85, std::int64_t summaryReserve = 20000,
                                std::int64_t buffer = 13000);

} // namespace cl::strategy
