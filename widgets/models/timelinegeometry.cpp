// SPDX-License-Identifier: MIT
#include "widgets/models/timelinegeometry.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace cl::gui {

namespace {

qint64 marginOf(TimeRange whole)
{
    return std::max<qint64>(whole.span() / 50, kShortestRangeMs / 2);
}

TimeRange clampInto(TimeRange r, TimeRange whole)
{
    const TimeRange padded = paddedRange(whole);
    const qint64 span = std::min(r.span(), padded.span());
    if (r.from < padded.from)
        r = {padded.from, padded.from + span};
    if (r.to > padded.to)
        r = {padded.to - span, padded.to};
    return r;
}

} // namespace

TimeRange paddedRange(TimeRange whole)
{
    const qint64 margin = marginOf(whole);
    TimeRange r{whole.from - margin, whole.to + margin};
    if (r.span() < kShortestRangeMs) {
        const qint64 middle = whole.from + whole.span() / 2;
        r = {middle - kShortestRangeMs / 2, middle + kShortestRangeMs / 2};
    }
    return r;
}

TimeRange zoomRange(TimeRange r, double anchor, double factor, TimeRange whole)
{
    anchor = std::clamp(anchor, 0.0, 1.0);
    const double at = double(r.from) + anchor * double(r.span());
    double span = std::max(double(kShortestRangeMs), double(r.span()) * factor);
    span = std::min(span, double(paddedRange(whole).span()));
    const qint64 from = qint64(std::llround(at - anchor * span));
    return clampInto({from, from + qint64(std::llround(span))}, whole);
}

TimeRange panRange(TimeRange r, qint64 deltaMs, TimeRange whole)
{
    return clampInto({r.from + deltaMs, r.to + deltaMs}, whole);
}

int laneHeight(int available, int lanes)
{
    if (lanes <= 0)
        return 30;
    return std::clamp(available / lanes, 16, 30);
}

qint64 tickStep(TimeRange range, int pixels, int minGap)
{
    static constexpr std::array<qint64, 22> kSteps{
        1, 2, 5, 10, 20, 50, 100, 200,
        500, 1'000, 2'000, 5'000, 10'000, 15'000, 30'000, 60'000,
        120'000, 300'000, 600'000, 1'800'000, 3'600'000, 21'600'000};
    if (pixels <= 0 || range.span() <= 0)
        return 86'400'000;
    const double msPerPixel = double(range.span()) / pixels;
    for (qint64 step : kSteps)
        if (double(step) / msPerPixel >= minGap)
            return step;
    qint64 step = 86'400'000;
    while (double(step) / msPerPixel < minGap)
        step *= 2;
    return step;
}

std::vector<qint64> ticks(TimeRange range, qint64 step)
{
    std::vector<qint64> out;
    if (step <= 0 || range.span() < 0)
        return out;
    qint64 t = range.from / step * step;
    if (t < range.from)
        t += step;
    for (; t <= range.to && out.size() < 1000; t += step)
        out.push_back(t);
    return out;
}

} // namespace cl::gui
