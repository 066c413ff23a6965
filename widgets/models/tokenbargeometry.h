// SPDX-License-Identifier: MIT
#pragma once

#include <QRect>

namespace cl::gui {

// Where the token bar of one cell goes: a pure function of the numbers, tested without painting.
// The bar grows from the left edge of the padded cell, proportional to tokens / maxTokens.
struct TokenBarGeometry {
    int padding = 2;    // pixels between the cell border and the bar on every side
    int minVisible = 1; // a non-zero count never vanishes

    // Width in pixels of a bar for tokens out of maxTokens over available pixels.
    int barWidth(qint64 tokens, qint64 maxTokens, int available) const;
    // The bar's rectangle inside cell; empty when there is nothing to draw.
    QRect barRect(const QRect &cell, qint64 tokens, qint64 maxTokens) const;
};

} // namespace cl::gui
