// SPDX-License-Identifier: MIT
#pragma once

// Small text helpers shared by the analysis sources (not part of the public API).

#include "core/analysis.h"

#include <string>
#include <string_view>
#include <vector>

namespace cl::analysis::detail {

std::string_view trim(std::string_view s);
// ASCII case-insensitive search of needle in the first `limit` bytes of hay.
bool containsCi(std::string_view hay, std::string_view needle, std::size_t limit);
// Any text block (first `limit` bytes each) contains one of the needles; returns its index or -1.
int textContainsAny(const Message &m, const std::vector<std::string> &needles, std::size_t limit);
bool hasFence(const Message &m, std::size_t limit);
// ``` in text, or a Write/Edit/Shell call (see analysis.h).
bool hasCodeOrCommand(const Message &m, std::size_t limit);
bool hasFailedResult(const Message &m);
std::size_t textLength(const Message &m); // text + tool result text, in bytes

} // namespace cl::analysis::detail
