// SPDX-License-Identifier: MIT
#pragma once

// The timeline view's geometry (widgets/analysis/timelineview.h): the time range shown, zoomed and
// panned within the session, the lanes' height and the axis' ticks. Plain functions, tested without
// painting.

#include <QtGlobal>

#include <vector>

namespace cl::gui {

struct TimeRange {
    qint64 from = 0, to = 0;
    qint64 span() const { return to - from; }
    bool operator==(const TimeRange &) const = default;
};

inline constexpr qint64 kShortestRangeMs = 200; // the deepest zoom: 200 ms across the view

// `r` zoomed by `factor` (< 1 zooms in) around the point at `anchor` (0: left edge, 1: right edge),
// kept within `whole` (a little margin either side) and no narrower than kShortestRangeMs.
TimeRange zoomRange(TimeRange r, double anchor, double factor, TimeRange whole);

// `r` moved by `deltaMs`, kept within `whole` and its margin.
TimeRange panRange(TimeRange r, qint64 deltaMs, TimeRange whole);

// `whole` with its margin: what "show the whole session" shows (at least kShortestRangeMs).
TimeRange paddedRange(TimeRange whole);

// The height of one lane: the lanes share `available` pixels, between 16 and 30 each (more lanes
// than fit scroll).
int laneHeight(int available, int lanes);

// The axis' tick step for `range` over `pixels`: a round duration (1 ms ... 1 day) leaving at least
// `minGap` pixels between ticks.
qint64 tickStep(TimeRange range, int pixels, int minGap = 90);
// The ticks of `range`, multiples of `step` (local time zone ignored: multiples of UTC).
std::vector<qint64> ticks(TimeRange range, qint64 step);

} // namespace cl::gui
