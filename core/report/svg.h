// SPDX-License-Identifier: MIT
#pragma once

// The report's charts as inline SVG (no script; native <title> tooltips). Colours come from CSS
// classes the page defines (htmlstyle.cpp), so that they follow the light or dark scheme:
//   usage chart   .series-measured, .series-estimated, .compaction, .window-line, .grid, .axis
//   context map   .p-<priority> (sacred, critical, high, medium, low, lowest, excluded), .cut
//   composition   .k0 … .k11 (categories in order), .sp-free, .sp-reserved
// Each series of the usage chart is <polyline data-series="measured|estimated"> with one point per
// message that has that figure (the estimated line is split at every compaction).

#include "core/report/reportdata.h"

#include <optional>
#include <string>
#include <vector>

namespace cl::report {

constexpr std::size_t kCategoryColours = 12;

std::string usageChartSvg(const UsageSeries &u);
std::string contextMapSvg(const std::vector<MapSegment> &map, std::optional<std::size_t> boundary);
std::string compositionBarSvg(const composition::Composition &c);
// The CSS class of category k of c in the composition bar (and in the legend beside it).
std::string categoryClass(const composition::Composition &c, std::size_t k);
std::string priorityClass(analysis::Priority p);

// A "nice" step (1, 2, 2.5 or 5 times a power of ten) giving about `count` intervals up to max.
std::int64_t niceStep(std::int64_t max, int count);

} // namespace cl::report
