// SPDX-License-Identifier: MIT
#include "widgets/models/tokenbargeometry.h"

#include <algorithm>

namespace cl::gui {

int TokenBarGeometry::barWidth(qint64 tokens, qint64 maxTokens, int available) const
{
    if (tokens <= 0 || maxTokens <= 0 || available <= 0)
        return 0;
    tokens = std::min(tokens, maxTokens); // a block can never outgrow the scale
    // Rounded integer maths: doubles would drift for counts in the billions.
    const qint64 w = (tokens * available + maxTokens / 2) / maxTokens;
    return int(std::clamp<qint64>(w, std::min(minVisible, available), available));
}

QRect TokenBarGeometry::barRect(const QRect &cell, qint64 tokens, qint64 maxTokens) const
{
    const QRect inner = cell.adjusted(padding, padding, -padding, -padding);
    if (inner.width() <= 0 || inner.height() <= 0)
        return {};
    const int w = barWidth(tokens, maxTokens, inner.width());
    if (w <= 0)
        return {};
    return QRect(inner.left(), inner.top(), w, inner.height());
}

} // namespace cl::gui
