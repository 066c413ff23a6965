// SPDX-License-Identifier: MIT
#pragma once

#include <string_view>

namespace cl::report {

// The style sheet htmlReport inlines (classes as core/report/svg.h lists them).
std::string_view reportCss();

} // namespace cl::report
