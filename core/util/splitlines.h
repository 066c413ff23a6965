// SPDX-License-Identifier: MIT
#pragma once

// json::splitLines for a large buffer, on two threads: each splits half of it (the halves meet at
// a line end) and the second half's spans are appended and renumbered. The same spans as
// json::splitLines(buffer); below a few megabytes, or with one thread, it is that call.

#include "core/util/json.h"

#include <string_view>
#include <vector>

namespace cl::json {

std::vector<LineSpan> splitLinesOnThreads(std::string_view buffer, int threads);

} // namespace cl::json
