// SPDX-License-Identifier: MIT
#pragma once

// One colour table for strategy fates, shared by the preview, the compare view and their models.
// Header-only (QtGui only) so the models library can use it without linking the widgets library.
//   fateColor(f, dark):  row background tint; text in the palette's Text colour stays readable on it
//                        (light tints for light palettes, deep tints for dark ones).
//   fateAccent(f, dark): a saturated colour for bars, chart series, legend swatches and markers.
//   fateLabel(f):        the user-visible word ("kept", "snipped", ...), as fateName() says it.

#include "core/strategy/strategy.h"

#include <QColor>
#include <QString>

namespace cl::gui {

inline QColor fateColor(cl::strategy::Fate f, bool dark)
{
    using F = cl::strategy::Fate;
    switch (f) {
    case F::Kept: return dark ? QColor(30, 30, 30, 0) : QColor(255, 255, 255, 0);     // transparent: the view's own base
    case F::Snipped: return dark ? QColor(92, 76, 24) : QColor(255, 240, 190);        // amber
    case F::Cleared: return dark ? QColor(96, 58, 28) : QColor(255, 222, 190);        // orange
    case F::Microcompacted: return dark ? QColor(70, 52, 96) : QColor(232, 220, 250); // violet
    case F::Summarized: return dark ? QColor(28, 64, 100) : QColor(208, 228, 252);    // blue
    case F::Removed: return dark ? QColor(100, 36, 40) : QColor(252, 212, 212);       // red
    case F::Inserted: return dark ? QColor(26, 84, 52) : QColor(206, 242, 214);       // green
    }
    return {};
}

inline QColor fateAccent(cl::strategy::Fate f, bool dark)
{
    using F = cl::strategy::Fate;
    switch (f) {
    case F::Kept: return dark ? QColor(150, 150, 150) : QColor(120, 120, 120);
    case F::Snipped: return dark ? QColor(230, 190, 70) : QColor(200, 150, 0);
    case F::Cleared: return dark ? QColor(240, 150, 80) : QColor(220, 110, 20);
    case F::Microcompacted: return dark ? QColor(180, 140, 240) : QColor(130, 80, 200);
    case F::Summarized: return dark ? QColor(100, 170, 250) : QColor(30, 110, 210);
    case F::Removed: return dark ? QColor(240, 100, 100) : QColor(200, 40, 40);
    case F::Inserted: return dark ? QColor(90, 210, 130) : QColor(20, 150, 70);
    }
    return {};
}

inline QString fateLabel(cl::strategy::Fate f)
{
    const auto n = cl::strategy::fateName(f);
    return QString::fromUtf8(n.data(), static_cast<qsizetype>(n.size()));
}

} // namespace cl::gui
