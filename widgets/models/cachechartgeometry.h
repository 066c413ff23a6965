// SPDX-License-Identifier: MIT
#pragma once

// Where the bars of the prompt-cache chart go (the Requests dock): one bar per model call, in
// request order, its height the request's measured context split from the bottom into what was read
// from the cache, what was written to it and what was sent uncached; a request whose cache broke
// gets a marker above its bar. A pure function of the numbers, tested without painting.

#include <QRectF>

#include <cstddef>
#include <vector>

namespace cl::gui {

struct CachePoint {
    std::size_t number = 0; // the request
    qint64 read = 0, written = 0, uncached = 0;
    bool broke = false;
};

struct CacheBar {
    std::size_t number = 0;
    QRectF read, written, uncached; // stacked from the bottom; empty when zero
    QRectF slot;                    // the bar's whole column (hover, click)
    bool broke = false;
};

// Bars across `plot` (left to right, the tallest bar its full height). A slot narrower than 3 px
// has no gap; no bar is thinner than one pixel.
std::vector<CacheBar> cacheBars(const std::vector<CachePoint> &points, const QRectF &plot);
// The bar whose slot holds x; -1 when none.
int cacheBarAt(const std::vector<CacheBar> &bars, qreal x);

} // namespace cl::gui
