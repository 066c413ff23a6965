// SPDX-License-Identifier: MIT
#include "widgets/models/cachechartgeometry.h"

#include <algorithm>

namespace cl::gui {

std::vector<CacheBar> cacheBars(const std::vector<CachePoint> &points, const QRectF &plot)
{
    std::vector<CacheBar> bars;
    if (points.empty() || plot.width() <= 0 || plot.height() <= 0)
        return bars;
    qint64 highest = 1;
    for (const CachePoint &p : points)
        highest = std::max(highest, p.read + p.written + p.uncached);
    const qreal slot = plot.width() / qreal(points.size());
    const qreal gap = slot >= 3 ? std::min<qreal>(slot * 0.2, 4) : 0;
    const qreal scale = plot.height() / qreal(highest);
    bars.reserve(points.size());
    for (std::size_t i = 0; i < points.size(); ++i) {
        const CachePoint &p = points[i];
        CacheBar b;
        b.number = p.number;
        b.broke = p.broke;
        b.slot = QRectF(plot.left() + slot * qreal(i), plot.top(), slot, plot.height());
        const qreal left = b.slot.left() + gap / 2, width = std::max<qreal>(1, slot - gap);
        qreal bottom = plot.bottom();
        auto stack = [&](qint64 tokens) {
            if (tokens <= 0)
                return QRectF();
            const qreal h = std::max<qreal>(1, qreal(tokens) * scale);
            bottom -= h;
            return QRectF(left, bottom, width, h);
        };
        b.read = stack(p.read);
        b.written = stack(p.written);
        b.uncached = stack(p.uncached);
        bars.push_back(b);
    }
    return bars;
}

int cacheBarAt(const std::vector<CacheBar> &bars, qreal x)
{
    for (std::size_t i = 0; i < bars.size(); ++i)
        if (x >= bars[i].slot.left() && x < bars[i].slot.right())
            return int(i);
    return -1;
}

} // namespace cl::gui
